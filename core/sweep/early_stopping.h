// Early stopping as pure functions of the trials' rung results: which trials that are
// waiting at a rung go on and which stop there (pruned, keeping their checkpoint), and which
// pruned trials now rank well enough to be promoted (resumed from that checkpoint) when the
// budget allows. The runner applies them: clearLastRung, state pruned, promoteTrial.
//
// ASHA (Li et al., "A System for Massively Parallel Hyperparameter Tuning", 2020): at rung r,
// with n results there, the top floor(n / rf) by the metric may pass r; a trial outside it
// is pruned at r, and promoted later if enough worse results arrive to put it inside. While
// trials are still queued a rung with fewer than rf results lets none pass (a new trial
// starts instead); once nothing is left to start, each rung lets at least its best one pass,
// so the sweep cannot stall.
//
// Median stopping (Golovin et al., "Google Vizier", 2017, as a rung rule): a trial is pruned
// at rung r when its result there is worse than the median of the other trials' results at
// r, given at least minTrials of them; a pruned trial becomes promotable when it no longer is.
//
// Ties rank by trial id; a NaN metric ranks last. Results of every trial count, whatever its
// state now (a deleted run's results were measured all the same).
#pragma once

#include <string>
#include <vector>

#include "sweep_spec.h"
#include "sweep_state.h"

namespace traindeck {

struct EarlyStoppingDecisions {
  std::vector<std::string> goOn;        // awaiting a decision: may run past their last rung
  std::vector<std::string> prune;       // awaiting a decision: stop at their last rung
  std::vector<std::string> promotable;  // pruned: now good enough to resume, best first
  bool operator==(const EarlyStoppingDecisions&) const = default;
};

EarlyStoppingDecisions ashaDecisions(const std::vector<TrialRecord>& trials, double reductionFactor, MetricGoal goal,
                                     bool nothingLeftToStart);
EarlyStoppingDecisions medianDecisions(const std::vector<TrialRecord>& trials, int minTrials, MetricGoal goal);

// By the spec's method; with no early stopping every waiting trial goes on.
EarlyStoppingDecisions decideEarlyStopping(const EarlyStoppingSpec& spec, MetricGoal goal,
                                           const std::vector<TrialRecord>& trials, bool nothingLeftToStart);

}  // namespace traindeck
