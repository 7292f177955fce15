// The one rule for a run's checkpoint folders, for everyone who looks for them: the trainer's
// resume and rotation, the app's mirror, and the helper on a host (packaging/remote/
// traindeck-remote.sh keeps the same rule in sh; tests/remote/checkpoint_rule_test checks that
// they agree). A checkpoint is checkpoints/step-<N>, N in decimal digits (the trainer writes 8,
// zero-padded; any count is read), complete once COMPLETE is in it. Ordered by N, never by text;
// no other name counts (step-N.tmp-PID being written, step-N.partial being copied).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace traindeck {

// N of "step-<N>", or -1 for any other name.
std::int64_t checkpointStep(std::string_view name);
// "step-00000042".
std::string checkpointName(std::int64_t step);
// The complete checkpoints in `checkpointsDir` (a run's checkpoints/), oldest first; none when
// the folder is not there.
std::vector<std::string> completeCheckpoints(const std::string& checkpointsDir);
// The newest of them, or "".
std::string newestCompleteCheckpoint(const std::string& checkpointsDir);

}  // namespace traindeck
