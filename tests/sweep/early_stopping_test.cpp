// ASHA and median stopping on a toy metric, loss = (log10(lr) + 3.2)^2 + 100 / tokens, over
// nine trials lr = 10^-1, 10^-1.5, ..., 10^-5 and rungs at 100, 300 and 900 tokens: which
// trials go on, which are pruned, and which pruned ones become promotable as results arrive.
// Trial i has lr = 10^-(1 + i/2); by loss the order is i = 4, 5, 3, 6, 2, 7, 1, 8, 0.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "sweep/early_stopping.h"

namespace traindeck {
namespace {

const std::vector<std::int64_t> kRungs{100, 300, 900};

class ToySweep {
 public:
  ToySweep() {
    for (int i = 0; i < 9; ++i) {
      TrialRecord trial;
      trial.params = makeTrial({{"optimizer.lr", std::pow(10.0, -1.0 - 0.5 * i)}}, "", std::nullopt);
      trial.state = TrialState::Running;
      m_trials.push_back(trial);
    }
  }

  // Trial i measures the toy metric at `rung`.
  void report(int i, int rung) {
    TrialRecord& trial = m_trials[static_cast<std::size_t>(i)];
    const double lr = std::get<double>(trial.params.settings.front().value);
    const std::int64_t tokens = kRungs[static_cast<std::size_t>(rung)];
    recordRungResult(trial, {rung, tokens, std::pow(std::log10(lr) + 3.2, 2) + 100.0 / static_cast<double>(tokens)});
  }

  // As the runner applies decisions: past the rung, or stopped at it.
  void apply(const EarlyStoppingDecisions& decisions) {
    for (TrialRecord& trial : m_trials) {
      if (contains(decisions.goOn, trial.params.id)) clearLastRung(trial);
      if (contains(decisions.prune, trial.params.id)) trial.state = TrialState::Pruned;
    }
  }

  // The trials' indices, in the ids' order.
  std::vector<int> indices(const std::vector<std::string>& ids) const {
    std::vector<int> out;
    for (const std::string& id : ids)
      for (std::size_t i = 0; i < m_trials.size(); ++i)
        if (m_trials[i].params.id == id) out.push_back(static_cast<int>(i));
    return out;
  }

  std::vector<int> inState(TrialState state) const {
    std::vector<int> out;
    for (std::size_t i = 0; i < m_trials.size(); ++i)
      if (m_trials[i].state == state) out.push_back(static_cast<int>(i));
    return out;
  }

  std::vector<TrialRecord>& trials() { return m_trials; }

 private:
  static bool contains(const std::vector<std::string>& ids, const std::string& id) {
    return std::find(ids.begin(), ids.end(), id) != ids.end();
  }
  std::vector<TrialRecord> m_trials;
};

using Indices = std::vector<int>;

TEST(Asha, AllAtOnceKeepsATopThirdAtEachOfThreeRungs) {
  ToySweep sweep;
  for (int i = 0; i < 9; ++i) sweep.report(i, 0);
  EarlyStoppingDecisions d = ashaDecisions(sweep.trials(), 3, MetricGoal::Min, true);
  EXPECT_EQ(sweep.indices(d.goOn), (Indices{3, 4, 5}));
  EXPECT_EQ(sweep.indices(d.prune), (Indices{0, 1, 2, 6, 7, 8}));
  EXPECT_TRUE(d.promotable.empty());
  sweep.apply(d);

  for (int i : {3, 4, 5}) sweep.report(i, 1);
  d = ashaDecisions(sweep.trials(), 3, MetricGoal::Min, true);
  EXPECT_EQ(sweep.indices(d.goOn), (Indices{4}));
  EXPECT_EQ(sweep.indices(d.prune), (Indices{3, 5}));
  EXPECT_TRUE(d.promotable.empty()) << "rung 0's top third all went on already";
  sweep.apply(d);

  sweep.report(4, 2);
  d = ashaDecisions(sweep.trials(), 3, MetricGoal::Min, true);
  EXPECT_EQ(sweep.indices(d.goOn), (Indices{4})) << "with nothing left to start, a rung's best goes on";
  sweep.apply(d);
  EXPECT_EQ(sweep.inState(TrialState::Running), (Indices{4}));
  EXPECT_EQ(sweep.trials()[4].clearedRung, 2);
}

TEST(Asha, OneAtATimePrunesThenPromotesWhenWorseResultsArrive) {
  ToySweep sweep;
  auto reportAndDecide = [&](int i) {
    sweep.report(i, 0);
    const EarlyStoppingDecisions d = ashaDecisions(sweep.trials(), 3, MetricGoal::Min, false);
    sweep.apply(d);
    return d;
  };
  // Fewer than 3 results at a rung: nobody passes while other trials wait to start.
  EXPECT_EQ(sweep.indices(reportAndDecide(8).prune), (Indices{8}));
  EXPECT_EQ(sweep.indices(reportAndDecide(0).prune), (Indices{0}));
  EXPECT_EQ(sweep.indices(reportAndDecide(4).goOn), (Indices{4}));  // 3 results: the best one passes
  EXPECT_EQ(sweep.indices(reportAndDecide(6).prune), (Indices{6}));
  EXPECT_EQ(sweep.indices(reportAndDecide(5).prune), (Indices{5}));  // second of 5: top is 1
  const EarlyStoppingDecisions sixth = reportAndDecide(3);           // 6 results: top 2
  EXPECT_EQ(sweep.indices(sixth.prune), (Indices{3}));
  EXPECT_EQ(sweep.indices(sixth.promotable), (Indices{5})) << "trial 5 is now second of six";

  promoteTrial(sweep.trials()[5]);
  EXPECT_EQ(sweep.trials()[5].state, TrialState::Promoted);
  const EarlyStoppingDecisions after = ashaDecisions(sweep.trials(), 3, MetricGoal::Min, false);
  EXPECT_TRUE(after.promotable.empty()) << "a promoted trial is not promotable again";
  EXPECT_TRUE(after.goOn.empty() && after.prune.empty()) << "nothing waits at a rung";
}

TEST(Asha, GoalMaxKeepsTheHighest) {
  std::vector<TrialRecord> trials;
  for (double accuracy : {0.5, 0.9, 0.7}) {
    TrialRecord trial;
    trial.params = makeTrial({{"model.dropout", accuracy / 10}}, "", std::nullopt);
    trial.state = TrialState::Running;
    recordRungResult(trial, {0, 100, accuracy});
    trials.push_back(trial);
  }
  const EarlyStoppingDecisions d = ashaDecisions(trials, 3, MetricGoal::Max, false);
  EXPECT_EQ(d.goOn, (std::vector<std::string>{trials[1].params.id}));
  EXPECT_EQ(d.prune.size(), 2u);
}

TEST(MedianStopping, PrunesBelowTheMedianAndPromotesWhenItMoves) {
  ToySweep sweep;
  auto reportAndDecide = [&](int i) {
    sweep.report(i, 0);
    const EarlyStoppingDecisions d = medianDecisions(sweep.trials(), 3, MetricGoal::Min);
    sweep.apply(d);
    return d;
  };
  for (int i : {4, 5, 3}) EXPECT_EQ(sweep.indices(reportAndDecide(i).goOn), (Indices{i})) << "fewer than 3 others";
  EXPECT_EQ(sweep.indices(reportAndDecide(6).prune), (Indices{6}));  // 1.64 against the others' median 1.09
  EXPECT_EQ(sweep.indices(reportAndDecide(0).prune), (Indices{0}));
  EXPECT_EQ(sweep.indices(reportAndDecide(8).prune), (Indices{8}));
  const EarlyStoppingDecisions last = reportAndDecide(1);
  EXPECT_EQ(sweep.indices(last.prune), (Indices{1}));
  // Trial 6's others are now 1.04, 1.09, 1.49, 3.89, 4.24, 5.84: median 2.69, above its 1.64.
  EXPECT_EQ(sweep.indices(last.promotable), (Indices{6}));
}

TEST(MedianStopping, ANanMetricIsWorstAndPruned) {
  ToySweep sweep;
  for (int i : {4, 5, 3}) sweep.report(i, 0);
  sweep.apply(medianDecisions(sweep.trials(), 3, MetricGoal::Min));
  recordRungResult(sweep.trials()[0], {0, 100, NAN});
  const EarlyStoppingDecisions d = medianDecisions(sweep.trials(), 3, MetricGoal::Min);
  EXPECT_EQ(sweep.indices(d.prune), (Indices{0}));
}

TEST(EarlyStopping, WithoutAMethodEveryWaitingTrialGoesOn) {
  ToySweep sweep;
  sweep.report(0, 0);
  sweep.report(1, 0);
  const EarlyStoppingDecisions d = decideEarlyStopping(EarlyStoppingSpec{}, MetricGoal::Min, sweep.trials(), false);
  EXPECT_EQ(sweep.indices(d.goOn), (Indices{0, 1}));
  EXPECT_TRUE(d.prune.empty());
  EarlyStoppingSpec asha;
  asha.method = EarlyStoppingMethod::Asha;
  EXPECT_EQ(decideEarlyStopping(asha, MetricGoal::Min, sweep.trials(), false),
            ashaDecisions(sweep.trials(), 3, MetricGoal::Min, false));
}

}  // namespace
}  // namespace traindeck
