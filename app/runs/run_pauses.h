// Where a run stood still: a stopped run that was resumed later has records minutes or days apart
// in one metrics.jsonl. A pause is a gap between consecutive records (train and eval together,
// in time order) longer than pauseThreshold(); time-axis charts break their lines there, the
// wall time leaves it out and the ETA paces only the records since the last one.
#pragma once

#include <cstddef>
#include <vector>

#include "runlog/metrics_batch.h"

namespace traindeck {

// Train records come about once a second: a gap of at least kMinPauseSeconds, and ten times the
// run's median gap (a slow model's records come further apart), is a pause.
inline constexpr double kMinPauseSeconds = 30;
double pauseThreshold(const TrainColumns& train);

struct Pause {
  double from = 0, to = 0;  // unix seconds: the records on either side
};
std::vector<Pause> runPauses(const TrainColumns& train, const EvalColumns& eval);
// Whether a pause lies between two points' times (the middle of one): a chart's line must not
// join them.
bool pauseBetween(const std::vector<Pause>& pauses, double a, double b);
// First to last record without the pauses.
double activeSeconds(const TrainColumns& train, const EvalColumns& eval);
// The first train record after the last pause (0 when there was none).
std::size_t lastStretchStart(const TrainColumns& train, const EvalColumns& eval);

}  // namespace traindeck
