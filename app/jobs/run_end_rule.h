// The end rule: the one function from what a follower saw of a run at one look (run.json as it is
// here, whether its processes live, what the app asked of it) to what happens next: wait, end
// with run.json's own verdict, or write the verdict the run could not write itself. Every place
// (this machine, an SSH host, a Slurm job, a watched folder) is judged by it; what differs is only
// how "alive" is known and the words for a death. No I/O: tests/app/run_end_rule_test.cpp.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "runlog/run_directory.h"

namespace traindeck {

// What the app asked of the run, if anything (a verdict then says it was you).
enum class RunAsked { Nothing, Stop, Kill };

struct RunSighting {
  std::optional<RunInfo> run;  // run.json as it is here; nullopt: none readable yet
  bool processesLive = true;   // the supervisor (or Slurm job) may still write
  bool caughtUp = true;        // everything written there is here
  bool goneBefore = false;     // the previous look also found the processes gone
  // Since when run.json says the run ended (-1: it does not): a supervisor that outlives its
  // verdict by more than graceMs (-1: no grace, wait for it) ends the run all the same.
  std::int64_t endedForMs = -1;
  std::int64_t graceMs = -1;
  bool mayJudgeDeath = true;  // false for a watched run: not ours to give a verdict
  RunAsked asked = RunAsked::Nothing;
};

struct RunEnd {
  enum class Action {
    Wait,          // nothing decided yet
    End,           // run.json's own verdict stands: end with exitCode
    WriteVerdict,  // the processes are gone without a final verdict: write `status` with `cause`
    NeverStarted,  // gone before any run.json: the start failed
  };
  Action action = Action::Wait;
  int exitCode = -1;
  RunStatus status = RunStatus::Killed;  // WriteVerdict
  EndCause cause = EndCause::None;       // WriteVerdict
};

// The death the place saw, for WriteVerdict's cause: killed because asked (RunAsked::Kill),
// cancelled by the scheduler, a node failure, or not known.
enum class PlaceDeath { Unknown, Cancelled, NodeFailure, TimeLimit };

RunEnd decideRunEnd(const RunSighting& seen, PlaceDeath death = PlaceDeath::Unknown);

}  // namespace traindeck
