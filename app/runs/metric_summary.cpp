// The columns' names are metrics.jsonl's keys (core/runlog/metrics_keys.h): the names Compare and
// the run list's metric columns address them by.
#include "metric_summary.h"

#include <array>

#include "runlog/metrics_keys.h"

namespace traindeck {

namespace {

struct SummarizedColumn {
  std::string_view name;
  std::vector<float> TrainColumns::*column;
};

constexpr std::array<SummarizedColumn, 6> kTrainColumns = {{
    {metrics_key::kLoss, &TrainColumns::loss},
    {metrics_key::kLr, &TrainColumns::lr},
    {metrics_key::kGradNorm, &TrainColumns::gradNorm},
    {metrics_key::kTokensPerSecond, &TrainColumns::tokensPerSecond},
    {metrics_key::kStepMs, &TrainColumns::stepMs},
    {metrics_key::kMfu, &TrainColumns::mfu},
}};

template <class Values>
void summarizeColumn(std::string_view name, const std::vector<std::int64_t>& steps, const Values& values,
                     MetricSummaries& into) {
  MetricSummary* summary = nullptr;  // made on the first finite value: a column never logged has none
  for (std::size_t i = 0; i < steps.size() && i < values.size(); ++i) {
    if (!std::isfinite(values[i])) continue;
    if (summary == nullptr) summary = &into[QString::fromLatin1(name.data(), static_cast<qsizetype>(name.size()))];
    summary->add(steps[i], values[i]);
  }
}

}  // namespace

void MetricSummary::add(qint64 step, double value) {
  if (!std::isfinite(value)) return;
  if (count == 0 || value < min) {
    min = value;
    minStep = step;
  }
  if (count == 0 || value > max) {
    max = value;
    maxStep = step;
  }
  last = value;
  lastStep = step;
  ++count;
}

bool higherIsBetter(QStringView metric) {
  const QString name = metric.mid(metric.lastIndexOf('/') + 1).toString().toLower();
  for (const char* word :
       {"acc", "f1", "auc", "precision", "recall", "bleu", "rouge", "tokens_per_s", "throughput", "mfu"})
    if (name.contains(QLatin1String(word))) return true;
  return false;
}

void summarizeBatch(const MetricsBatch& batch, MetricSummaries& into) {
  for (const SummarizedColumn& c : kTrainColumns)
    summarizeColumn(c.name, batch.train.step, batch.train.*c.column, into);
  summarizeColumn(metrics_key::kValLoss, batch.eval.step, batch.eval.valLoss, into);
}

void summarizeImportedRun(const ImportedRun& run, MetricSummaries& into) {
  summarizeBatch(run.metrics, into);
  for (const ScalarSeries& scalar : run.scalars) summarizeColumn(scalar.name, scalar.step, scalar.value, into);
}

}  // namespace traindeck
