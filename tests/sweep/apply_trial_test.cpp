// Trials applied to the base job: the settings and the repeat's seed land in the config, the
// result validates as a job does, and a value the job refuses is named with its trial.
#include <gtest/gtest.h>

#include "sweep/apply_trial.h"
#include "sweep/trial_plan.h"
#include "sweep_fixture.h"

namespace traindeck {
namespace {

using ApplyTrial = test_support::SweepFolder;

ValidationContext cpuMachine() {
  ValidationContext context;
  context.host = HostDevices{};
  return context;
}

TEST_F(ApplyTrial, SettingsAndSeedReachTheJob) {
  const SweepSpec spec = loadSweep(
      "base: job.yaml\nmethod: grid\nrepeats: {seeds: [7]}\n"
      "parameters: {optimizer.lr: [3e-4], model.n_embd: [64], schedule.decay: [linear]}\n");
  const auto trials = planTrials(spec);
  ASSERT_EQ(trials.size(), 1u);
  const TrialJob job = applyTrial(spec, trials[0], cpuMachine());
  for (const Diagnostic& d : job.problems) ADD_FAILURE() << d.format("trial");
  const RunConfig& config = job.loaded.config;
  EXPECT_DOUBLE_EQ(config.optimizer.lr, 3e-4);
  EXPECT_EQ(config.model.n_embd, 64);
  EXPECT_EQ(config.schedule.decay, Decay::Linear);
  EXPECT_EQ(config.seed, 7);
  EXPECT_EQ(config.model.n_layer, 2) << "what the sweep does not set is the base job's";
  EXPECT_EQ(config.name, "tiny");
  EXPECT_FALSE(job.loaded.places.count("optimizer.lr")) << "a swept value has no place in the base job";
  EXPECT_TRUE(job.loaded.places.count("model.n_layer"));
}

TEST_F(ApplyTrial, AValueTheJobRefusesNamesTheTrial) {
  // n_head 2 must divide n_embd: 48 passes, 33 does not; the rule is the validator's, not ours.
  const SweepSpec spec = loadSweep("base: job.yaml\nmethod: grid\nparameters:\n  model.n_embd: [48, 33]\n");
  const auto trials = planTrials(spec);
  ASSERT_EQ(trials.size(), 2u);
  EXPECT_FALSE(hasErrors(applyTrial(spec, trials[0], cpuMachine()).problems));
  const Diagnostics problems = applyTrial(spec, trials[1], cpuMachine()).problems;
  ASSERT_TRUE(hasErrors(problems));
  const Diagnostic& first = problems.front();
  EXPECT_EQ(first.message, "trial n_embd=33: n_embd (33) is not divisible by n_head (2)");
  // n_embd comes from the sweep and has no place in the base job; n_head has one there.
  EXPECT_EQ(first.path, "model.n_head");
  EXPECT_EQ(first.line, 2);
}

TEST_F(ApplyTrial, CheckingAPlanListsSharedProblemsOnce) {
  // max_steps 0 with max_tokens 0 never stops: every trial has that problem (the base job's),
  // and only the 33-wide one has the divisibility problem.
  write("job.yaml",
        "model: {n_layer: 2, n_head: 2, n_embd: 32, n_positions: 64, block_size: 32, vocab_size: 257}\n"
        "data: {train: data, tokenizer: byte}\nstrategy: {device: cpu}\nschedule: {max_steps: 0}\n");
  const SweepSpec spec =
      loadSweep("base: job.yaml\nmethod: grid\nrepeats: [1, 2]\nparameters:\n  model.n_embd: [48, 33]\n");
  const Diagnostics problems = checkTrials(spec, planTrials(spec), cpuMachine());
  std::vector<std::string> whos;
  for (const Diagnostic& d : problems)
    if (d.severity == Severity::Error) whos.push_back(d.message.substr(0, d.message.find(':')));
  EXPECT_EQ(whos, (std::vector<std::string>{"every trial", "trial n_embd=33 s1 and 1 more"}));
}

}  // namespace
}  // namespace traindeck
