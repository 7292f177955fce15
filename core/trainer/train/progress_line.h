// The trainer's terminal progress line: step, percent, loss, learning rate, tokens/s, ETA.
#pragma once

#include <cstdint>
#include <string>

namespace traindeck {

struct ProgressFigures {
  std::int64_t step = 0;  // steps done
  std::int64_t totalSteps = 0;
  double loss = 0;
  double lr = 0;
  double tokensPerSecond = 0;
  double secondsPerStep = 0;
};

// "step 120/300  40%  loss 2.3456  lr 1.00e-03  12,345 tok/s  ETA 1m23s"
std::string progressLine(const ProgressFigures& figures);
// "1m23s", "2h05m", "45s"
std::string formatDuration(double seconds);

}  // namespace traindeck
