// sweep.json: every trial of a sweep with its settings, state, rung results and run folder.
// The runner keeps it (one writer), replacing it whole and atomically after each change, so
// that whatever stops the app (a close, a lost link, a requeue, a reboot) leaves a file that
// says which trials ran, and planning again adds only trials whose id it does not hold.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "trial_params.h"

namespace traindeck {

//  queued    planned, not started (or asked to run again)
//  running   started; its run folder is set
//  pruned    stopped by early stopping at a rung, with a checkpoint there; may be promoted
//  promoted  a pruned trial resumed from its checkpoint towards the next rung
//  finished  ran to the end of its job
//  crashed   its run failed once; it runs again (from its newest checkpoint)
//  failed    its run failed again after the retry; left alone
//  deleted   its run folder was deleted by the user; never run again unless asked
enum class TrialState { Queued, Running, Pruned, Promoted, Finished, Crashed, Failed, Deleted };

// A crashed trial runs again this many times before it is failed.
inline constexpr int kTrialRetries = 1;

struct RungResult {
  int rung = 0;         // index into the spec's rungs
  std::int64_t at = 0;  // tokens or steps (the spec's unit) when measured
  double metric = 0;    // the spec's metric there
  bool operator==(const RungResult&) const = default;
};

struct TrialRecord {
  TrialParams params;
  TrialState state = TrialState::Queued;
  std::vector<RungResult> rungs;  // in rung order, at most one per rung
  int clearedRung = -1;           // the highest rung early stopping let it go past (or promoted it from)
  std::string runFolder;          // empty until started
  int retries = 0;                // runs again after a crash so far
  std::optional<double> metric;   // the sweep's metric as last measured (a rung, the end); NaN: not a number
  std::int64_t tokens = 0;        // trained so far (its run's last record)
  std::string note;               // why it crashed or failed, or another word for the user; empty: none
  bool operator==(const TrialRecord&) const = default;

  // The highest rung measured, or -1.
  int lastRung() const;
  // Running (or promoted) and measured at a rung not yet decided on.
  bool awaitsDecision() const;
  const RungResult* resultAt(int rung) const;
};

// Where the sweep was last told to run (the app's Sweep tab, `--slots`, `--on HOST=N`), so that
// a runner that takes it up again (the app's next start, `--attach`) runs it there too.
struct PlaceRecord {
  std::string name;          // for messages
  int slotCount = 1;         // trials at once
  std::string host;          // an SSH host ([user@]host[:port] or an alias); empty: the job's own target
  std::string identity;      // its key file, if one was given
  std::string proxyCommand;  // its ProxyCommand, if one was given
  int pack = 1;              // a Slurm cluster's trials to one allocation (`--pack`)
  bool operator==(const PlaceRecord&) const = default;
};

struct SweepState {
  static constexpr int kSchema = 1;
  std::string sweepFile;  // the sweep.yaml it belongs to, as given
  double elapsedSeconds = 0;  // the time a runner has spent on it, over all its sessions (budget.wall_time)
  std::vector<PlaceRecord> places;  // empty: never said (an older sweep.json): the job's target, one slot
  std::vector<TrialRecord> trials;
  bool operator==(const SweepState&) const = default;

  TrialRecord* find(const std::string& id);
  const TrialRecord* find(const std::string& id) const;
};

const char* trialStateName(TrialState state);
std::optional<TrialState> trialStateFromName(const std::string& name);

// Adds, as queued, the planned trials whose id the state does not hold, in plan order;
// returns how many. A deleted, failed or finished trial is never added again.
std::size_t mergePlan(SweepState& state, const std::vector<TrialParams>& plan);

// A crash: crashed (to be retried) while retries remain, else failed.
void recordCrash(TrialRecord& trial);

// A rung's result; replaces an earlier one at the same rung (a resumed run measures again).
void recordRungResult(TrialRecord& trial, const RungResult& result);

// Early stopping let it go on past its last rung.
void clearLastRung(TrialRecord& trial);
// A pruned trial resumes from its checkpoint at its last rung (the runner starts it).
void promoteTrial(TrialRecord& trial);

// Asked by the user: a deleted or failed trial (or any other) becomes queued again, its run
// folder, results and retries cleared.
void requeueTrial(TrialRecord& trial);

}  // namespace traindeck
