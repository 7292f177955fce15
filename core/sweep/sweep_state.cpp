// The state's transitions that do not need a runner: merging a plan, crashes, rung results.
#include "sweep_state.h"

#include <algorithm>
#include <set>

namespace traindeck {

namespace {
constexpr std::pair<TrialState, const char*> kStateNames[] = {
    {TrialState::Queued, "queued"},     {TrialState::Running, "running"},   {TrialState::Pruned, "pruned"},
    {TrialState::Promoted, "promoted"}, {TrialState::Finished, "finished"}, {TrialState::Crashed, "crashed"},
    {TrialState::Failed, "failed"},     {TrialState::Deleted, "deleted"},
};
}  // namespace

int TrialRecord::lastRung() const {
  return rungs.empty() ? -1 : rungs.back().rung;
}

bool TrialRecord::awaitsDecision() const {
  return (state == TrialState::Running || state == TrialState::Promoted) && lastRung() > clearedRung;
}

const RungResult* TrialRecord::resultAt(int rung) const {
  for (const RungResult& result : rungs)
    if (result.rung == rung) return &result;
  return nullptr;
}

TrialRecord* SweepState::find(const std::string& id) {
  for (TrialRecord& trial : trials)
    if (trial.params.id == id) return &trial;
  return nullptr;
}

const TrialRecord* SweepState::find(const std::string& id) const {
  return const_cast<SweepState*>(this)->find(id);
}

const char* trialStateName(TrialState state) {
  for (const auto& [value, name] : kStateNames)
    if (value == state) return name;
  return "queued";
}

std::optional<TrialState> trialStateFromName(const std::string& name) {
  for (const auto& [value, text] : kStateNames)
    if (name == text) return value;
  return std::nullopt;
}

std::size_t mergePlan(SweepState& state, const std::vector<TrialParams>& plan) {
  std::set<std::string> held;
  for (const TrialRecord& trial : state.trials) held.insert(trial.params.id);
  std::size_t added = 0;
  for (const TrialParams& params : plan) {
    if (!held.insert(params.id).second) continue;
    TrialRecord record;
    record.params = params;
    state.trials.push_back(std::move(record));
    ++added;
  }
  return added;
}

void recordCrash(TrialRecord& trial) {
  if (trial.retries < kTrialRetries) {
    ++trial.retries;
    trial.state = TrialState::Crashed;
  } else {
    trial.state = TrialState::Failed;
  }
}

void recordRungResult(TrialRecord& trial, const RungResult& result) {
  auto& rungs = trial.rungs;
  rungs.erase(std::remove_if(rungs.begin(), rungs.end(), [&](const RungResult& r) { return r.rung == result.rung; }),
              rungs.end());
  rungs.insert(std::upper_bound(rungs.begin(), rungs.end(), result,
                                [](const RungResult& a, const RungResult& b) { return a.rung < b.rung; }),
               result);
}

void clearLastRung(TrialRecord& trial) {
  trial.clearedRung = std::max(trial.clearedRung, trial.lastRung());
}

void promoteTrial(TrialRecord& trial) {
  trial.state = TrialState::Promoted;
  clearLastRung(trial);
}

void requeueTrial(TrialRecord& trial) {
  trial.state = TrialState::Queued;
  trial.runFolder.clear();
  trial.rungs.clear();
  trial.clearedRung = -1;
  trial.retries = 0;
}

}  // namespace traindeck
