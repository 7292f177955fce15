// One run's metrics as the GUI keeps them: MetricsBatch columns appended in arrival order, and
// for another tool's run its other scalars by name.
// Plain C++, owned and used by one thread (the GUI's). Steps that repeat after a resume
// replace what was stored: "the later record wins" (docs/design.md).
#pragma once

#include <cstddef>
#include <map>
#include <vector>

#include "imports/imported_run.h"
#include "runlog/metrics_batch.h"

namespace traindeck {

class MetricsStore {
 public:
  // A restart batch first drops everything stored, then its records are appended.
  void append(const MetricsBatch& batch);
  // The same, taking the batch's train and eval columns where they can go in whole (into an
  // empty store), not copying them.
  void append(MetricsBatch&& batch);
  void clear();
  // Another tool's scalars that are none of TrainDeck's columns (its whole run is read at once).
  void setScalars(std::vector<ScalarSeries> scalars) { m_scalars = std::move(scalars); }

  const TrainColumns& train() const { return m_train; }
  const EvalColumns& eval() const { return m_eval; }
  // System points per rank, in arrival order.
  const std::map<int, std::vector<SystemPoint>>& system() const { return m_system; }
  const std::vector<EventPoint>& events() const { return m_events; }
  const std::vector<ScalarSeries>& scalars() const { return m_scalars; }  // empty for TrainDeck's runs
  bool hasHeader() const { return m_hasHeader; }
  const RunHeader& header() const { return m_header; }
  int garbageLines() const { return m_garbageLines; }

  // Heap bytes the train columns hold (capacity, not size) and that per stored point.
  std::size_t trainBytes() const;
  double bytesPerTrainPoint() const;

 private:
  TrainColumns m_train;
  EvalColumns m_eval;
  std::map<int, std::vector<SystemPoint>> m_system;
  std::vector<EventPoint> m_events;
  std::vector<ScalarSeries> m_scalars;
  RunHeader m_header;
  bool m_hasHeader = false;
  int m_garbageLines = 0;
};

}  // namespace traindeck
