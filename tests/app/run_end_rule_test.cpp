// The end rule (app/jobs/run_end_rule.h), the one function every place's follower asks: a final
// verdict ends the run once all of it is here and its processes are gone (or outlived it past the
// grace); gone processes are looked at twice before the app writes a verdict; a watched run is
// never given one; and a Slurm run that said "requeued" but whose job did not come back (a
// cancel: scancel's SIGTERM reads as a preemption to the trainer) is killed, saying who did it.
#include <QTest>

#include "run_end_rule.h"

using namespace traindeck;

namespace {

RunInfo runSaying(RunStatus status) {
  RunInfo info;
  info.status = status;
  return info;
}

RunSighting gone(RunStatus status) {
  return {.run = runSaying(status), .processesLive = false, .goneBefore = true};
}

}  // namespace

class RunEndRuleTest : public QObject {
  Q_OBJECT
 private slots:
  void aVerdictEndsTheRunWithItsExitCode() {
    const std::pair<RunStatus, int> cases[] = {
        {RunStatus::Finished, 0}, {RunStatus::Stopped, 0}, {RunStatus::Failed, 1}, {RunStatus::Killed, -1}};
    for (const auto& [status, code] : cases) {
      const RunEnd end = decideRunEnd({.run = runSaying(status), .processesLive = false});
      QCOMPARE(end.action, RunEnd::Action::End);
      QCOMPARE(end.exitCode, code);
    }
  }

  void aVerdictWaitsForTheRestAndForItsProcesses() {
    RunSighting seen{.run = runSaying(RunStatus::Finished), .processesLive = false, .caughtUp = false};
    QCOMPARE(decideRunEnd(seen).action, RunEnd::Action::Wait);  // bytes still on their way
    seen = {.run = runSaying(RunStatus::Finished), .processesLive = true, .endedForMs = 1000, .graceMs = 30000};
    QCOMPARE(decideRunEnd(seen).action, RunEnd::Action::Wait);  // the supervisor writes its last lines
    seen.endedForMs = 30001;
    QCOMPARE(decideRunEnd(seen).action, RunEnd::Action::End);  // past the grace, it ends anyway
    seen.graceMs = -1;  // a Slurm job that lives after its verdict is being requeued: no grace
    seen.endedForMs = 10'000'000;
    QCOMPARE(decideRunEnd(seen).action, RunEnd::Action::Wait);
  }

  void goneProcessesAreLookedAtTwice() {
    RunSighting seen = gone(RunStatus::Running);
    seen.goneBefore = false;
    QCOMPARE(decideRunEnd(seen).action, RunEnd::Action::Wait);
    seen.goneBefore = true;
    const RunEnd end = decideRunEnd(seen);
    QCOMPARE(end.action, RunEnd::Action::WriteVerdict);
    QCOMPARE(end.status, RunStatus::Killed);
    QCOMPARE(end.exitCode, -1);
    QCOMPARE(end.cause, EndCause::None);  // nobody here knows who
  }

  void liveProcessesOrMissingBytesNeverGetAVerdict() {
    RunSighting seen = gone(RunStatus::Running);
    seen.processesLive = true;
    QCOMPARE(decideRunEnd(seen).action, RunEnd::Action::Wait);
    seen = gone(RunStatus::Running);
    seen.caughtUp = false;
    QCOMPARE(decideRunEnd(seen).action, RunEnd::Action::Wait);
  }

  void goneBeforeAnyRunJsonIsAStartThatFailed() {
    const RunEnd end = decideRunEnd({.run = std::nullopt, .processesLive = false, .goneBefore = true});
    QCOMPARE(end.action, RunEnd::Action::NeverStarted);
    QCOMPARE(end.exitCode, 1);
  }

  void aWatchedRunEndsOnlyByItsOwnRunJson() {
    RunSighting seen = gone(RunStatus::Running);
    seen.mayJudgeDeath = false;
    QCOMPARE(decideRunEnd(seen).action, RunEnd::Action::Wait);
    seen.run = std::nullopt;
    QCOMPARE(decideRunEnd(seen).action, RunEnd::Action::Wait);
    seen = gone(RunStatus::Requeued);  // not ours: whatever it says is its word
    seen.mayJudgeDeath = false;
    QCOMPARE(decideRunEnd(seen).action, RunEnd::Action::End);
  }

  void aRequeuedRunWhoseJobLivesWaits() {
    RunSighting seen = gone(RunStatus::Requeued);
    seen.processesLive = true;  // pending again, or running its next attempt
    QCOMPARE(decideRunEnd(seen).action, RunEnd::Action::Wait);
  }

  void aRequeuedRunWhoseJobDidNotComeBackIsKilledSayingWho() {
    // Cancelled by someone else (scancel from a terminal, an administrator).
    RunEnd end = decideRunEnd(gone(RunStatus::Requeued), PlaceDeath::Cancelled);
    QCOMPARE(end.action, RunEnd::Action::WriteVerdict);
    QCOMPARE(end.status, RunStatus::Killed);
    QCOMPARE(end.cause, EndCause::Cancelled);
    // Killed from TrainDeck: the cancel was the user's, whatever Slurm calls it.
    RunSighting asked = gone(RunStatus::Requeued);
    asked.asked = RunAsked::Kill;
    end = decideRunEnd(asked, PlaceDeath::Cancelled);
    QCOMPARE(end.cause, EndCause::Asked);
    // A node that failed, a time limit reached before the checkpoint.
    QCOMPARE(decideRunEnd(gone(RunStatus::Running), PlaceDeath::NodeFailure).cause, EndCause::NodeFailure);
    QCOMPARE(decideRunEnd(gone(RunStatus::Running), PlaceDeath::TimeLimit).cause, EndCause::TimeLimit);
    // Looked at once only: not yet (the requeue may be on its way).
    RunSighting once = gone(RunStatus::Requeued);
    once.goneBefore = false;
    QCOMPARE(decideRunEnd(once, PlaceDeath::Cancelled).action, RunEnd::Action::Wait);
  }
};

QTEST_GUILESS_MAIN(RunEndRuleTest)
#include "run_end_rule_test.moc"
