#include "metrics_csv.h"

#include <QStringList>
#include <algorithm>
#include <cmath>
#include <unordered_map>

namespace traindeck {

namespace {

// Row of each step in `steps` (file order: a later row of the same step wins).
std::unordered_map<std::int64_t, std::size_t> rowOfStep(const std::vector<std::int64_t>& steps) {
  std::unordered_map<std::int64_t, std::size_t> rows;
  rows.reserve(steps.size());
  for (std::size_t i = 0; i < steps.size(); ++i) rows[steps[i]] = i;
  return rows;
}

QString number(double value, int digits) {
  return std::isnan(value) ? QString() : QString::number(value, 'g', digits);
}

}  // namespace

QString csvField(QString text) {
  if (text.contains(QLatin1Char(',')) || text.contains(QLatin1Char('"')) || text.contains(QLatin1Char('\n')) ||
      text.contains(QLatin1Char('\r')))
    text = QLatin1Char('"') + text.replace(QLatin1String("\""), QLatin1String("\"\"")) + QLatin1Char('"');
  return text;
}

QString metricsCsv(const TrainColumns& train, const EvalColumns& eval, const std::vector<ScalarSeries>& scalars) {
  std::vector<std::int64_t> steps(train.step.begin(), train.step.end());
  steps.insert(steps.end(), eval.step.begin(), eval.step.end());
  for (const ScalarSeries& s : scalars) steps.insert(steps.end(), s.step.begin(), s.step.end());
  std::sort(steps.begin(), steps.end());
  steps.erase(std::unique(steps.begin(), steps.end()), steps.end());

  const auto trainRows = rowOfStep(train.step), evalRows = rowOfStep(eval.step);
  std::vector<std::unordered_map<std::int64_t, std::size_t>> scalarRows;
  for (const ScalarSeries& s : scalars) scalarRows.push_back(rowOfStep(s.step));

  QString out = QStringLiteral("step,tokens,time,loss,lr,grad_norm,tokens_per_s,step_ms,val_loss");
  for (const ScalarSeries& s : scalars) out += QLatin1Char(',') + csvField(QString::fromStdString(s.name));
  out += QLatin1Char('\n');
  constexpr int kFloatDigits = 7, kDoubleDigits = 10;
  constexpr int kTrainFieldsAfterStep = 7;  // tokens, time, loss, lr, grad_norm, tokens_per_s, step_ms
  for (const std::int64_t step : steps) {
    QStringList fields{QString::number(step)};
    if (const auto t = trainRows.find(step); t != trainRows.end()) {
      const std::size_t i = t->second;
      fields << QString::number(train.tokens[i])
             << (std::isnan(train.time[i]) ? QString() : QString::number(train.time[i], 'f', 3))
             << number(train.loss[i], kFloatDigits) << number(train.lr[i], kFloatDigits)
             << number(train.gradNorm[i], kFloatDigits) << number(train.tokensPerSecond[i], kFloatDigits)
             << number(train.stepMs[i], kFloatDigits);
    } else {
      for (int i = 0; i < kTrainFieldsAfterStep; ++i) fields << QString();
    }
    const auto e = evalRows.find(step);
    fields << (e == evalRows.end() ? QString() : number(eval.valLoss[e->second], kFloatDigits));
    for (std::size_t s = 0; s < scalars.size(); ++s) {
      const auto r = scalarRows[s].find(step);
      fields << (r == scalarRows[s].end() ? QString() : number(scalars[s].value[r->second], kDoubleDigits));
    }
    out += fields.join(QLatin1Char(',')) + QLatin1Char('\n');
  }
  return out;
}

}  // namespace traindeck
