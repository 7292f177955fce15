// Follows metrics.jsonl and remembers the step of the last "train" record, for run.json and
// for exit reasons ("at step 37"). Records are read by the app's metrics parser: what it counts
// as garbage or another kind is skipped here too.
#pragma once

#include <cstdint>
#include <string>

#include "line_tail.h"

namespace traindeck {

class StepFollower {
 public:
  explicit StepFollower(std::string metricsPath) : m_tail(std::move(metricsPath)) {}

  // Reads the records written since the last call; true when the step changed.
  bool update();
  bool sawTrainRecord() const { return m_seen; }
  std::int64_t lastStep() const { return m_step; }

 private:
  LineTail m_tail;
  bool m_seen = false;
  std::int64_t m_step = 0;
};

}  // namespace traindeck
