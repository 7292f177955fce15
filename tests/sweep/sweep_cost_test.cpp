// A sweep's trial count and cost before it runs: configurations × seeds capped by budget.trials,
// every trial to its end on N slots, ASHA's expected share at known rungs, and the budget's
// limits, on runs whose numbers are worked out by hand here.
#include <gtest/gtest.h>

#include "config/config_io.h"
#include "sweep/sweep_cost.h"
#include "sweep/trial_plan.h"
#include "sweep_fixture.h"

namespace traindeck {
namespace {

using SweepCount = test_support::SweepFolder;

constexpr const char* kGrid =
    "base: job.yaml\nmethod: grid\nrepeats: {seeds: [1, 2]}\n"
    "parameters:\n  optimizer.lr: [1e-4, 3e-4]\n  model.n_embd: [32, 64, 96]\n";

TEST_F(SweepCount, AGridOfTwoByThreeWithTwoSeedsIsTwelveTrials) {
  const SweepSpec spec = loadSweep(kGrid);
  const SweepTrialCount count = countTrials(spec, static_cast<std::int64_t>(planTrials(spec).size()));
  EXPECT_EQ(count.configurations, 6);
  EXPECT_EQ(count.seeds, 2);
  EXPECT_EQ(count.planned, 12);
  EXPECT_EQ(count.trials, 12);
  EXPECT_FALSE(count.capped());
}

TEST_F(SweepCount, BudgetTrialsCapsTheCount) {
  const SweepSpec spec = loadSweep(std::string(kGrid) + "budget: {trials: 5}\n");
  const SweepTrialCount count = countTrials(spec, static_cast<std::int64_t>(planTrials(spec).size()));
  EXPECT_EQ(count.planned, 12);
  EXPECT_EQ(count.trials, 5);
  EXPECT_TRUE(count.capped());
}

TEST_F(SweepCount, ATrialsRunIsItsJobPlanned) {
  write("job.yaml",
        "model: {n_layer: 2, n_head: 2, n_embd: 32, n_positions: 64, block_size: 32, vocab_size: 257}\n"
        "data: {train: data, tokenizer: byte}\n"
        "strategy: {device: cuda, nproc_per_node: 2, micro_batch: 4, grad_accum: 2}\n"
        "schedule: {max_steps: 50}\n");
  const TrialRun run = trialRun(loadConfigFile(path("job.yaml")).config, *findDevice("H100"));
  EXPECT_EQ(run.steps, 50);
  EXPECT_EQ(run.tokensPerStep, 32 * 4 * 2 * 2);
  EXPECT_EQ(run.devices, 2);
  EXPECT_GT(run.stepSeconds, 0);
}

// 12 trials of 1000 steps, 1 s and 100 tokens a step, on one device each.
std::vector<TrialRun> twelveTrials() {
  return std::vector<TrialRun>(12, TrialRun{.steps = 1000, .tokensPerStep = 100, .stepSeconds = 1, .devices = 1});
}

SweepSpec ashaSpec(ProgressUnit unit, std::vector<std::int64_t> rungs) {
  SweepSpec spec;
  spec.earlyStopping = {
      .method = EarlyStoppingMethod::Asha, .unit = unit, .rungs = std::move(rungs), .reductionFactor = 3};
  return spec;
}

TEST(SweepCost, EveryTrialToItsEndAddsUp) {
  const std::vector<TrialRun> runs{{.steps = 60, .tokensPerStep = 10, .stepSeconds = 0.5, .devices = 2},
                                   {.steps = 40, .tokensPerStep = 10, .stepSeconds = 0.5, .devices = 2},
                                   {.steps = 40, .tokensPerStep = 10, .stepSeconds = 0.5, .devices = 2},
                                   {.steps = 20, .tokensPerStep = 10, .stepSeconds = 0.5, .devices = 2}};
  const SweepCost cost = sweepCost(SweepSpec{}, runs, 2);
  EXPECT_TRUE(cost.timed);
  EXPECT_DOUBLE_EQ(cost.atMost.seconds, 80);  // 30 + 20 + 20 + 10
  EXPECT_DOUBLE_EQ(cost.atMost.deviceSeconds, 160);
  EXPECT_DOUBLE_EQ(cost.atMost.tokens, 1600);
  // Longest first on the slot free soonest: 30 | 20, then 20 after the 20, 10 after the 30.
  EXPECT_DOUBLE_EQ(cost.atMost.wallSeconds, 40);
  EXPECT_FALSE(cost.expected) << "no early stopping, no expected share";
  EXPECT_DOUBLE_EQ(cost.budgeted.seconds, 80);
  EXPECT_EQ(cost.budgetStops, "");
  EXPECT_DOUBLE_EQ(sweepCost(SweepSpec{}, runs, 1).atMost.wallSeconds, 80);
}

TEST(SweepCost, AshaRunsAllTrialsToTheFirstRungAndAThirdOnEachTime) {
  // 12 trials to step 100, 4 on to 300, 1 on to the end: 1200 + 800 + 700 steps.
  const SweepCost cost = sweepCost(ashaSpec(ProgressUnit::Steps, {100, 300}), twelveTrials(), 4);
  EXPECT_DOUBLE_EQ(cost.atMost.seconds, 12000);
  EXPECT_DOUBLE_EQ(cost.atMost.wallSeconds, 3000);
  ASSERT_TRUE(cost.expected);
  EXPECT_NEAR(cost.expected->seconds, 2700, 1e-9);
  EXPECT_NEAR(cost.expected->tokens, 270000, 1e-6);
  // 2700 s over 4 slots is 675 s, but the trial that goes on runs all its 1000 s.
  EXPECT_NEAR(cost.expected->wallSeconds, 1000, 1e-9);
  EXPECT_NEAR(cost.budgeted.seconds, 2700, 1e-9) << "the budget is the expected work when nothing limits it";
  // Rungs in tokens land on the step that reaches them: 10,000 tokens is step 100.
  const SweepCost inTokens = sweepCost(ashaSpec(ProgressUnit::Tokens, {10000, 30000}), twelveTrials(), 1);
  ASSERT_TRUE(inTokens.expected);
  EXPECT_NEAR(inTokens.expected->seconds, 2700, 1e-9);
  EXPECT_NEAR(inTokens.expected->wallSeconds, 2700, 1e-9);
}

TEST(SweepCost, AshaKeepsAtLeastOneTrialAndNoRungPastTheEnd) {
  // 2 trials, rf 3: floor(2/3) is 0, but the best goes on; a rung past the last step adds nothing.
  const std::vector<TrialRun> two(2, TrialRun{.steps = 100, .tokensPerStep = 1, .stepSeconds = 1, .devices = 1});
  const SweepCost cost = sweepCost(ashaSpec(ProgressUnit::Steps, {10, 500}), two, 1);
  ASSERT_TRUE(cost.expected);
  EXPECT_NEAR(cost.expected->seconds, 2 * 10 + 1 * 90, 1e-9);
}

TEST(SweepCost, MedianStoppingHasNoExpectedShare) {
  SweepSpec spec = ashaSpec(ProgressUnit::Steps, {100});
  spec.earlyStopping.method = EarlyStoppingMethod::Median;
  const SweepCost cost = sweepCost(spec, twelveTrials(), 1);
  EXPECT_FALSE(cost.expected);
  EXPECT_DOUBLE_EQ(cost.budgeted.seconds, 12000);
}

TEST(SweepCost, TheBudgetsTokensAndWallTimeStopItEarly) {
  SweepSpec spec = ashaSpec(ProgressUnit::Steps, {100, 300});
  spec.budget.tokens = 135000;  // half of the expected 270,000
  SweepCost cost = sweepCost(spec, twelveTrials(), 1);
  EXPECT_EQ(cost.budgetStops, "tokens");
  EXPECT_NEAR(cost.budgeted.tokens, 135000, 1e-6);
  EXPECT_NEAR(cost.budgeted.seconds, 1350, 1e-9);
  spec.budget.wallTimeSeconds = 900;  // a third of 2700 s on one slot: stricter than the tokens
  cost = sweepCost(spec, twelveTrials(), 1);
  EXPECT_EQ(cost.budgetStops, "wall_time");
  EXPECT_NEAR(cost.budgeted.wallSeconds, 900, 1e-9);
  EXPECT_NEAR(cost.budgeted.seconds, 900, 1e-9);
  EXPECT_NEAR(cost.budgeted.tokens, 90000, 1e-6);
  // All 12,000 s to the end: the tokens allow 11.25% of it, the wall time 7.5%.
  std::string stops = "unchanged";
  const SweepWork atMost = withinBudget(spec.budget, cost.atMost, cost.timed, stops);
  EXPECT_EQ(stops, "wall_time");
  EXPECT_NEAR(atMost.seconds, 900, 1e-9);
  EXPECT_NEAR(atMost.tokens, 90000, 1e-6);
  withinBudget(BudgetSpec{}, cost.atMost, cost.timed, stops);
  EXPECT_EQ(stops, "") << "no limit, nothing stops it";
}

TEST(SweepCost, WithoutAStepTimeOnlyTokensAreKnown) {
  std::vector<TrialRun> runs = twelveTrials();
  runs[3].stepSeconds = 0;
  SweepSpec spec;
  spec.budget.wallTimeSeconds = 1;
  const SweepCost cost = sweepCost(spec, runs, 1);
  EXPECT_FALSE(cost.timed);
  EXPECT_DOUBLE_EQ(cost.atMost.tokens, 1200000);
  EXPECT_EQ(cost.budgetStops, "") << "a wall time limit cannot be applied to an unknown time";
}

}  // namespace
}  // namespace traindeck
