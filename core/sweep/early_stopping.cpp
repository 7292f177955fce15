// Both rules compare on a "cost": the metric where lower is better (negated for goal max),
// NaN as +infinity, so that a trial whose loss went NaN ranks last and is pruned first.
#include "early_stopping.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

namespace traindeck {

namespace {

double cost(double metric, MetricGoal goal) {
  if (std::isnan(metric)) return std::numeric_limits<double>::infinity();
  return goal == MetricGoal::Max ? -metric : metric;
}

struct Ranked {
  double cost;
  std::string id;
  bool operator<(const Ranked& other) const { return std::tie(cost, id) < std::tie(other.cost, other.id); }
};

// Every trial's result at `rung`, best first; computed once per rung.
class RungRanking {
 public:
  RungRanking(const std::vector<TrialRecord>& trials, MetricGoal goal) : m_trials(trials), m_goal(goal) {}

  const std::vector<Ranked>& at(int rung) {
    auto [it, added] = m_byRung.try_emplace(rung);
    if (added) {
      for (const TrialRecord& trial : m_trials)
        if (const RungResult* result = trial.resultAt(rung))
          it->second.push_back({cost(result->metric, m_goal), trial.params.id});
      std::sort(it->second.begin(), it->second.end());
    }
    return it->second;
  }

  std::size_t position(int rung, const std::string& id) {
    const auto& ranked = at(rung);
    return static_cast<std::size_t>(
        std::find_if(ranked.begin(), ranked.end(), [&](const Ranked& r) { return r.id == id; }) - ranked.begin());
  }

 private:
  const std::vector<TrialRecord>& m_trials;
  MetricGoal m_goal;
  std::map<int, std::vector<Ranked>> m_byRung;
};

bool isPrunedUndecided(const TrialRecord& trial) {
  return trial.state == TrialState::Pruned && trial.lastRung() > trial.clearedRung;
}

// Promotable trials from the highest rung first (ASHA promotes from the top down), then best.
void orderPromotable(EarlyStoppingDecisions& decisions, const std::vector<TrialRecord>& trials, MetricGoal goal) {
  auto key = [&](const std::string& id) {
    const auto trial = std::find_if(trials.begin(), trials.end(), [&](const auto& t) { return t.params.id == id; });
    return std::make_tuple(-trial->lastRung(), cost(trial->rungs.back().metric, goal), id);
  };
  std::sort(decisions.promotable.begin(), decisions.promotable.end(),
            [&](const std::string& a, const std::string& b) { return key(a) < key(b); });
}

double medianOf(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

}  // namespace

EarlyStoppingDecisions ashaDecisions(const std::vector<TrialRecord>& trials, double reductionFactor, MetricGoal goal,
                                     bool nothingLeftToStart) {
  EarlyStoppingDecisions decisions;
  RungRanking ranking(trials, goal);
  auto inTop = [&](const TrialRecord& trial) {
    const int rung = trial.lastRung();
    auto top = static_cast<std::size_t>(std::floor(static_cast<double>(ranking.at(rung).size()) / reductionFactor));
    if (nothingLeftToStart) top = std::max<std::size_t>(top, 1);
    return ranking.position(rung, trial.params.id) < top;
  };
  for (const TrialRecord& trial : trials) {
    if (trial.awaitsDecision())
      (inTop(trial) ? decisions.goOn : decisions.prune).push_back(trial.params.id);
    else if (isPrunedUndecided(trial) && inTop(trial))
      decisions.promotable.push_back(trial.params.id);
  }
  orderPromotable(decisions, trials, goal);
  return decisions;
}

EarlyStoppingDecisions medianDecisions(const std::vector<TrialRecord>& trials, int minTrials, MetricGoal goal) {
  EarlyStoppingDecisions decisions;
  // Worse than the median of the others at its last rung, with enough others to tell.
  auto worseThanMedian = [&](const TrialRecord& trial) {
    const int rung = trial.lastRung();
    std::vector<double> others;
    for (const TrialRecord& other : trials)
      if (other.params.id != trial.params.id)
        if (const RungResult* result = other.resultAt(rung)) others.push_back(cost(result->metric, goal));
    if (static_cast<int>(others.size()) < minTrials) return false;
    return cost(trial.rungs.back().metric, goal) > medianOf(std::move(others));
  };
  for (const TrialRecord& trial : trials) {
    if (trial.awaitsDecision())
      (worseThanMedian(trial) ? decisions.prune : decisions.goOn).push_back(trial.params.id);
    else if (isPrunedUndecided(trial) && !worseThanMedian(trial))
      decisions.promotable.push_back(trial.params.id);
  }
  orderPromotable(decisions, trials, goal);
  return decisions;
}

EarlyStoppingDecisions decideEarlyStopping(const EarlyStoppingSpec& spec, MetricGoal goal,
                                           const std::vector<TrialRecord>& trials, bool nothingLeftToStart) {
  switch (spec.method) {
    case EarlyStoppingMethod::Asha:
      return ashaDecisions(trials, spec.reductionFactor, goal, nothingLeftToStart);
    case EarlyStoppingMethod::Median:
      return medianDecisions(trials, spec.minTrials, goal);
    case EarlyStoppingMethod::None:
      break;
  }
  EarlyStoppingDecisions decisions;
  for (const TrialRecord& trial : trials)
    if (trial.awaitsDecision()) decisions.goOn.push_back(trial.params.id);
  return decisions;
}

}  // namespace traindeck
