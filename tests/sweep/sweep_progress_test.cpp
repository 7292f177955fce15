// Where a trial's run segments stop (rungs in tokens and steps), the budget, durations in
// words, a trial's status line, and what a run's metrics.jsonl says at a rung.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "runlog/json_value.h"
#include "sweep/duration_text.h"
#include "sweep/sweep_progress.h"
#include "sweep/sweep_state_file.h"
#include "sweep/sweep_status.h"
#include "sweep/trial_metrics.h"

namespace traindeck {
namespace {

RunConfig tinyJob(std::int64_t maxSteps) {
  RunConfig config;
  config.model.block_size = 32;
  config.strategy.micro_batch = 4;  // 128 tokens a step
  config.schedule.max_steps = maxSteps;
  return config;
}

EarlyStoppingSpec asha(ProgressUnit unit, std::vector<std::int64_t> rungs) {
  EarlyStoppingSpec spec;
  spec.method = EarlyStoppingMethod::Asha;
  spec.unit = unit;
  spec.rungs = std::move(rungs);
  return spec;
}

TEST(SweepProgress, ARungInTokensStopsAtTheFirstStepThatReachesIt) {
  const RunConfig job = tinyJob(100);
  const EarlyStoppingSpec spec = asha(ProgressUnit::Tokens, {1000, 1280, 12800, 50000});
  EXPECT_EQ(rungStopStep(spec, job, 0), 8);             // 7 steps are 896 tokens, 8 are 1024
  EXPECT_EQ(rungStopStep(spec, job, 1), 10);            // exactly 10 steps
  EXPECT_EQ(rungStopStep(spec, job, 2), std::nullopt);  // the job's last step: it runs to the end
  EXPECT_EQ(rungStopStep(spec, job, 3), std::nullopt);  // past it
  EXPECT_EQ(rungStopStep(spec, job, 4), std::nullopt);  // no such rung
  EXPECT_EQ(progressAtStep(ProgressUnit::Tokens, job, 8), 1024);
}

TEST(SweepProgress, RungsInStepsAndNoEarlyStopping) {
  const RunConfig job = tinyJob(24);
  EXPECT_EQ(rungStopStep(asha(ProgressUnit::Steps, {4, 8, 16}), job, 1), 8);
  EXPECT_EQ(progressAtStep(ProgressUnit::Steps, job, 8), 8);
  EarlyStoppingSpec none = asha(ProgressUnit::Steps, {4});
  none.method = EarlyStoppingMethod::None;
  EXPECT_EQ(rungStopStep(none, job, 0), std::nullopt);
}

TEST(SweepProgress, TheBudgetLimitsNewTrialsThenEverything) {
  SweepState state;
  state.trials.resize(3);
  state.trials[0].runFolder = "a";
  state.trials[0].tokens = 600;
  state.trials[1].runFolder = "b";
  state.trials[1].tokens = 500;
  BudgetSpec budget;
  EXPECT_TRUE(mayStartTrial(budget, budgetUse(state)));
  EXPECT_EQ(budgetLimitWords(budget, budgetUse(state)), "");
  budget.trials = 2;
  EXPECT_FALSE(mayStartTrial(budget, budgetUse(state)));
  EXPECT_TRUE(mayContinueTrial(budget, budgetUse(state)));
  EXPECT_EQ(budgetLimitWords(budget, budgetUse(state)), "2 of 2 trials started");
  budget.tokens = 1100;
  EXPECT_FALSE(mayContinueTrial(budget, budgetUse(state)));
  EXPECT_EQ(budgetLimitWords(budget, budgetUse(state)), "its tokens are spent (1100 of 1100)");
  budget.tokens = 2000;
  budget.wallTimeSeconds = 3600;
  state.elapsedSeconds = 3700;
  EXPECT_TRUE(wallTimeSpent(budget, budgetUse(state)));
  EXPECT_FALSE(mayContinueTrial(budget, budgetUse(state)));
  EXPECT_EQ(budgetLimitWords(budget, budgetUse(state)), "its wall time is spent (1h1m of 1h)");
}

TEST(SweepProgress, DurationsInWords) {
  EXPECT_EQ(durationText(0), "0s");
  EXPECT_EQ(durationText(45), "45s");
  EXPECT_EQ(durationText(90), "1m30s");
  EXPECT_EQ(durationText(5400), "1h30m");
  EXPECT_EQ(durationText(7200), "2h");
  EXPECT_EQ(durationText(2 * 86400 + 3 * 3600 + 59), "2d3h");
  EXPECT_EQ(parseDuration(durationText(5400)), 5400);
}

TEST(SweepProgress, AStatusLineHasTheTrialsFields) {
  TrialRecord trial;
  trial.params = makeTrial({{"optimizer.lr", 3e-4}, {"model.n_embd", std::int64_t{256}}}, "seed", 2);
  trial.state = TrialState::Pruned;
  trial.rungs = {{0, 1000, 3.5}, {1, 3000, 3.1}};
  trial.metric = 3.1;
  trial.runFolder = "../../run-a";
  trial.note = "pruned at rung 1 (3000 tokens)";
  const JsonParseResult parsed = parseJson(trialStatusJson(trial));
  ASSERT_TRUE(parsed.ok()) << trialStatusJson(trial);
  const JsonValue& v = parsed.value;
  EXPECT_EQ(v.stringOr("trial", ""), trial.params.name);
  EXPECT_EQ(v.stringOr("state", ""), "pruned");
  EXPECT_EQ(v.integerOr("rung", -9), 1);
  EXPECT_DOUBLE_EQ(v.numberOr("metric", 0), 3.1);
  EXPECT_EQ(v.stringOr("run", ""), "../../run-a");
  ASSERT_NE(v.find("params"), nullptr);
  EXPECT_DOUBLE_EQ(v.find("params")->numberOr("optimizer.lr", 0), 3e-4);
  EXPECT_EQ(v.find("params")->integerOr("model.n_embd", 0), 256);
  EXPECT_EQ(v.find("params")->integerOr("seed", 0), 2);
  trial.metric.reset();
  EXPECT_EQ(parseJson(trialStatusJson(trial)).value.find("metric")->type(), JsonValue::Type::Null);
}

TEST(SweepProgress, NewRecordFieldsRoundTrip) {
  SweepState state;
  state.sweepFile = "/x/sweep.yaml";
  state.elapsedSeconds = 12.5;
  TrialRecord trial;
  trial.params = makeTrial({{"optimizer.lr", 1e-3}}, "", std::nullopt);
  trial.metric = 2.5;
  trial.tokens = 4096;
  trial.note = "crashed: rank 1 was killed";
  state.trials.push_back(trial);
  const SweepStateRead read = parseSweepState(sweepStateJson(state));
  ASSERT_TRUE(read.ok()) << read.error;
  EXPECT_EQ(read.state, state);
}

class RunMetrics : public ::testing::Test {
 protected:
  void SetUp() override {
    m_dir = std::filesystem::temp_directory_path() / ("trial-metrics-" + std::to_string(::getpid()));
    std::filesystem::create_directories(m_dir);
    // Steps 1-6, then a resume from step 4 (records of steps 5-6 again, other losses), an eval
    // at 4 and at 6, and a last line without its newline.
    std::ofstream(m_dir / "metrics.jsonl")
        << R"({"kind":"header","schema":1,"run_id":"r"})"
           "\n"
        << R"({"kind":"train","time":1,"step":4,"tokens":512,"loss":4.0,"lr":0.001})"
           "\n"
        << R"({"kind":"eval","time":1,"step":4,"tokens":512,"val_loss":4.5})"
           "\n"
        << R"({"kind":"train","time":2,"step":5,"tokens":640,"loss":3.9,"lr":0.001})"
           "\n"
        << R"({"kind":"train","time":3,"step":5,"tokens":640,"loss":3.7,"lr":0.001})"
           "\n"
        << R"({"kind":"eval","time":3,"step":6,"tokens":768,"val_loss":4.1})"
           "\n"
        << R"({"kind":"train","time":3,"step":6,"tokens":768,"loss":3.5,"lr":0.001})";
  }
  void TearDown() override { std::filesystem::remove_all(m_dir); }
  std::filesystem::path m_dir;
};

TEST_F(RunMetrics, TheNewestValueAtOrBeforeAStep) {
  const TrialMeasure last = measureRun(m_dir.string(), "loss");
  EXPECT_EQ(last.step, 6);
  EXPECT_EQ(last.tokens, 768);
  EXPECT_EQ(last.metricStep, 6);
  EXPECT_FLOAT_EQ(static_cast<float>(*last.metric), 3.5f);
  const TrialMeasure atFive = measureRun(m_dir.string(), "loss", 5);
  EXPECT_FLOAT_EQ(static_cast<float>(*atFive.metric), 3.7f);  // the resumed run's, written last
  const TrialMeasure val = measureRun(m_dir.string(), "val_loss", 5);
  EXPECT_EQ(val.metricStep, 4);
  EXPECT_FLOAT_EQ(static_cast<float>(*val.metric), 4.5f);
  EXPECT_FALSE(measureRun(m_dir.string(), "loss", 3).metric);
  EXPECT_FALSE(measureRun((m_dir / "nowhere").string(), "loss").metric);
  EXPECT_TRUE(isSweepMetric("val_loss"));
  EXPECT_FALSE(isSweepMetric("accuracy"));
}

}  // namespace
}  // namespace traindeck
