// The rule, in the order it is asked: a final verdict that is all here ends the run; a watched
// run, live processes or bytes on their way wait; gone processes are looked at twice (run.json
// may have been replaced as they ended); then the verdict they could not write is written.
#include "run_end_rule.h"

#include "runlog/run_exit.h"

namespace traindeck {

namespace {

EndCause causeOf(RunAsked asked, PlaceDeath death) {
  if (asked == RunAsked::Kill) return EndCause::Asked;
  switch (death) {
    case PlaceDeath::Cancelled:
      return EndCause::Cancelled;
    case PlaceDeath::NodeFailure:
      return EndCause::NodeFailure;
    case PlaceDeath::TimeLimit:
      return EndCause::TimeLimit;
    case PlaceDeath::Unknown:
      break;
  }
  return EndCause::None;
}

}  // namespace

RunEnd decideRunEnd(const RunSighting& seen, PlaceDeath death) {
  const bool verdict = seen.run && !isLive(seen.run->status);
  // "requeued" is final only if the run is not ours to judge: the scheduler brings it back, or,
  // once its processes are gone for good, it did not (a cancel, its requeues spent elsewhere).
  const bool final = verdict && (seen.run->status != RunStatus::Requeued || !seen.mayJudgeDeath);
  const bool graceOver = seen.graceMs >= 0 && seen.endedForMs > seen.graceMs;
  if (final && seen.caughtUp && (!seen.processesLive || graceOver))
    return {.action = RunEnd::Action::End, .exitCode = jobExitCode(seen.run->status)};
  if (!seen.mayJudgeDeath || seen.processesLive || final || !seen.caughtUp) return {};
  if (!seen.goneBefore) return {};
  if (!seen.run) return {.action = RunEnd::Action::NeverStarted, .exitCode = 1};
  return {.action = RunEnd::Action::WriteVerdict,
          .exitCode = -1,
          .status = RunStatus::Killed,
          .cause = causeOf(seen.asked, death)};
}

}  // namespace traindeck
