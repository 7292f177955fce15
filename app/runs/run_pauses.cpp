// The median is of the newest kMedianGaps gaps, by selection: this runs on every redraw of a
// growing run.
#include "run_pauses.h"

#include <algorithm>
#include <cmath>

namespace traindeck {

namespace {
constexpr std::size_t kMedianGaps = 512;
}  // namespace

double pauseThreshold(const TrainColumns& train) {
  const std::size_t n = train.size();
  if (n < 3) return kMinPauseSeconds;
  std::vector<double> gaps;
  for (std::size_t i = n > kMedianGaps ? n - kMedianGaps : 1; i < n; ++i)
    gaps.push_back(train.time[i] - train.time[i - 1]);
  const auto middle = gaps.begin() + static_cast<std::ptrdiff_t>(gaps.size() / 2);
  std::nth_element(gaps.begin(), middle, gaps.end());
  return std::max(kMinPauseSeconds, 10 * *middle);
}

std::vector<Pause> runPauses(const TrainColumns& train, const EvalColumns& eval) {
  // Both are in time order: walked together, as one list, without copying them.
  const double threshold = pauseThreshold(train);
  std::vector<Pause> pauses;
  std::size_t i = 0, j = 0;
  double previous = 0;
  bool first = true;
  while (i < train.size() || j < eval.size()) {
    const bool fromTrain = j >= eval.size() || (i < train.size() && train.time[i] <= eval.time[j]);
    const double t = fromTrain ? train.time[i++] : eval.time[j++];
    if (!first && t - previous > threshold) pauses.push_back({previous, t});
    previous = t;
    first = false;
  }
  return pauses;
}

bool pauseBetween(const std::vector<Pause>& pauses, double a, double b) {
  // The middle of a pause, so that points of another kind (system records, every 5 s) that
  // straddle it count too. The pauses are in time order: the first whose middle is past `a`.
  const auto it = std::upper_bound(pauses.begin(), pauses.end(), a,
                                   [](double t, const Pause& p) { return t < (p.from + p.to) / 2; });
  return it != pauses.end() && (it->from + it->to) / 2 < b;
}

double activeSeconds(const TrainColumns& train, const EvalColumns& eval) {
  double first = INFINITY, last = -INFINITY;
  for (const auto* times : {&train.time, &eval.time})
    for (double t : *times) {
      first = std::min(first, t);
      last = std::max(last, t);
    }
  if (!(last > first)) return 0;
  double active = last - first;
  for (const Pause& p : runPauses(train, eval)) active -= p.to - p.from;
  return std::max(0.0, active);
}

std::size_t lastStretchStart(const TrainColumns& train, const EvalColumns& eval) {
  const std::vector<Pause> pauses = runPauses(train, eval);
  if (pauses.empty()) return 0;
  const double after = pauses.back().to;
  return static_cast<std::size_t>(std::lower_bound(train.time.begin(), train.time.end(), after) - train.time.begin());
}

}  // namespace traindeck
