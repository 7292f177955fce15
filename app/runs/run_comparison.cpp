#include "run_comparison.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "run_pauses.h"

namespace traindeck {

QVector<ConfigDiffRow> diffConfigs(const QVector<FlatConfig>& configs, bool onlyDifferences) {
  QVector<ConfigDiffRow> rows;
  std::map<std::string, int> rowOf;
  const int runs = static_cast<int>(configs.size());
  for (int run = 0; run < runs; ++run)
    for (const auto& [key, value] : configs[run].entries) {
      auto [it, fresh] = rowOf.try_emplace(key, static_cast<int>(rows.size()));
      if (fresh)
        rows.push_back({QString::fromStdString(key), QVector<QString>(runs), QVector<bool>(runs, false), false});
      ConfigDiffRow& row = rows[it->second];
      row.values[run] = QString::fromStdString(value);
      row.present[run] = true;
    }
  QVector<ConfigDiffRow> out;
  for (ConfigDiffRow& row : rows) {
    for (int run = 1; run < runs; ++run)
      if (row.present[run] != row.present[0] || row.values[run] != row.values[0]) row.differs = true;
    if (!onlyDifferences || row.differs) out.push_back(std::move(row));
  }
  return out;
}

RunFigures summarizeRun(const MetricsStore& store, const QString& status, const FlatConfig& config) {
  RunFigures f;
  f.status = status;
  const TrainColumns& train = store.train();
  const EvalColumns& eval = store.eval();
  if (train.size()) f.finalLoss = train.loss.back();
  for (std::size_t i = 0; i < eval.size(); ++i)
    if (std::isfinite(eval.valLoss[i]) && !(eval.valLoss[i] >= f.bestValLoss)) {
      f.bestValLoss = eval.valLoss[i];
      f.bestValStep = eval.step[i];
    }
  std::vector<float> rates;
  for (float r : train.tokensPerSecond)
    if (std::isfinite(r)) rates.push_back(r);
  if (!rates.empty()) {  // a selection, not a sort: this runs again whenever a live run grows
    const std::size_t n = rates.size();
    const auto middle = rates.begin() + static_cast<std::ptrdiff_t>(n / 2);
    std::nth_element(rates.begin(), middle, rates.end());
    const double upper = *middle;
    f.medianTokensPerSecond =
        n % 2 ? upper : (static_cast<double>(*std::max_element(rates.begin(), middle)) + upper) / 2;
  }
  f.wallSeconds = activeSeconds(train, eval);  // a resumed run's stopped time is not its own
  f.parameters = store.header().parameters;
  f.worldSize = store.header().worldSize;
  for (const auto& [key, value] : config.entries) {
    if (key == "strategy.kind") f.strategy = QString::fromStdString(value);
    if (key == "strategy.precision") f.precision = QString::fromStdString(value);
  }
  return f;
}

}  // namespace traindeck
