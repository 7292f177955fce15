// Test helpers: compare two batches record by record (NaN equal
// to NaN), so that replays in different chunkings can be checked for identical results.
#pragma once

#include <QByteArray>
#include <QFile>
#include <QString>
#include <cmath>
#include <string>

#include "runlog/metrics_batch.h"

namespace traindeck::test {

template <class T>
bool sameFloats(const std::vector<T>& a, const std::vector<T>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (!(a[i] == b[i] || (std::isnan(a[i]) && std::isnan(b[i])))) return false;
  return true;
}

// An empty string when equal, else the first difference.
inline std::string difference(const MetricsBatch& a, const MetricsBatch& b) {
  if (a.hasHeader != b.hasHeader || a.header.runId != b.header.runId || a.header.totalSteps != b.header.totalSteps ||
      a.header.startStep != b.header.startStep || a.header.worldSize != b.header.worldSize)
    return "header";
  const TrainColumns &x = a.train, &y = b.train;
  if (x.step != y.step || x.tokens != y.tokens || !sameFloats(x.time, y.time)) return "train step/tokens/time";
  if (!sameFloats(x.loss, y.loss) || !sameFloats(x.lr, y.lr) || !sameFloats(x.gradNorm, y.gradNorm) ||
      !sameFloats(x.tokensPerSecond, y.tokensPerSecond) || !sameFloats(x.stepMs, y.stepMs) || !sameFloats(x.mfu, y.mfu))
    return "train values";
  if (a.eval.step != b.eval.step || a.eval.tokens != b.eval.tokens || !sameFloats(a.eval.valLoss, b.eval.valLoss) ||
      !sameFloats(a.eval.time, b.eval.time))
    return "eval";
  if (a.system.size() != b.system.size()) return "system count";
  for (std::size_t i = 0; i < a.system.size(); ++i) {
    const SystemPoint &p = a.system[i], &q = b.system[i];
    if (p.rank != q.rank || p.device != q.device || p.time != q.time || p.util != q.util || p.memUsed != q.memUsed ||
        p.memTotal != q.memTotal || p.powerW != q.powerW || p.tempC != q.tempC)
      return "system " + std::to_string(i);
  }
  if (a.events.size() != b.events.size()) return "event count";
  for (std::size_t i = 0; i < a.events.size(); ++i) {
    const EventPoint &p = a.events[i], &q = b.events[i];
    if (p.time != q.time || p.step != q.step || p.level != q.level || p.rank != q.rank || p.message != q.message)
      return "event " + std::to_string(i);
  }
  if (a.garbageLines != b.garbageLines) return "garbage count";
  return {};
}

inline QByteArray readFixture(const QString& name) {
  QFile f(QStringLiteral(TRAINDECK_APP_FIXTURES) + "/" + name);
  if (!f.open(QIODevice::ReadOnly)) return {};
  return f.readAll();
}

}  // namespace traindeck::test
