// sweep.yaml: a full file read into a SweepSpec, and every kind of mistake reported at its
// line and column with a message that says what to do.
#include <gtest/gtest.h>

#include "sweep/config_key_values.h"
#include "sweep/duration_text.h"
#include "sweep/sweep_spec.h"
#include "sweep_fixture.h"

namespace traindeck {
namespace {

using test_support::SweepFolder;
using SweepSpecFile = SweepFolder;

// The problems as "line:column path: message", for comparing whole lists.
std::vector<std::string> placed(const Diagnostics& problems) {
  std::vector<std::string> out;
  for (const Diagnostic& d : problems)
    out.push_back(std::to_string(d.line) + ":" + std::to_string(d.column) + " " + d.path + ": " + d.message);
  return out;
}

const Diagnostic* problemAtLine(const Diagnostics& problems, int line) {
  for (const Diagnostic& d : problems)
    if (d.line == line) return &d;
  return nullptr;
}

TEST_F(SweepSpecFile, AFullFileReadsIntoTheSpec) {
  const SweepSpec spec = loadSweep(
      "base: job.yaml\n"
      "method: random\n"
      "seed: 7\n"
      "trials: 12\n"
      "repeats: {seeds: [1, 2]}\n"
      "parameters:\n"
      "  optimizer.lr: {min: 1e-4, max: 3e-3, log: true}\n"
      "  model.n_embd: [32, 64]\n"
      "  strategy.micro_batch: {min: 1, max: 16, log: true}\n"
      "  schedule.decay: {choices: [cosine, linear]}\n"
      "  schedule.min_lr: {values: [0, 1e-5], when: {schedule.decay: cosine}}\n"
      "metric: {name: val_loss, goal: min}\n"
      "budget: {trials: 20, tokens: 2e9, wall_time: 1h30m}\n"
      "early_stopping: {method: asha, unit: tokens, min: 1e6, max: 2.7e7, reduction_factor: 3}\n");
  EXPECT_EQ(spec.baseJobPath, path("job.yaml"));
  EXPECT_EQ(spec.method, SweepMethod::Random);
  EXPECT_EQ(spec.seed, 7u);
  EXPECT_EQ(spec.trials, 12);
  EXPECT_EQ(spec.repeats.key, "seed");
  EXPECT_EQ(spec.repeats.seeds, (std::vector<std::int64_t>{1, 2}));
  ASSERT_EQ(spec.parameters.size(), 5u);

  const ParameterSpec& lr = spec.parameters[0];
  EXPECT_TRUE(lr.isRange && lr.log && !lr.integer);
  EXPECT_DOUBLE_EQ(lr.min, 1e-4);
  EXPECT_DOUBLE_EQ(lr.max, 3e-3);
  EXPECT_EQ(lr.place.line, 7);
  EXPECT_EQ(lr.place.column, 3);
  EXPECT_EQ(spec.parameters[1].values, (std::vector<ParamValue>{std::int64_t{32}, std::int64_t{64}}));
  EXPECT_TRUE(spec.parameters[2].integer) << "a whole-number key samples whole numbers";
  EXPECT_EQ(spec.parameters[3].values, (std::vector<ParamValue>{std::string("cosine"), std::string("linear")}));
  // min_lr is a number key: 0 is read as 0.0, so its identity does not depend on how it was written.
  EXPECT_EQ(spec.parameters[4].values, (std::vector<ParamValue>{0.0, 1e-5}));
  ASSERT_EQ(spec.parameters[4].when.size(), 1u);
  EXPECT_EQ(spec.parameters[4].when[0].key, "schedule.decay");
  EXPECT_EQ(spec.parameters[4].when[0].anyOf, (std::vector<ParamValue>{std::string("cosine")}));

  EXPECT_EQ(spec.metric.name, "val_loss");
  EXPECT_EQ(spec.metric.goal, MetricGoal::Min);
  EXPECT_EQ(spec.budget.trials, 20);
  EXPECT_EQ(spec.budget.tokens, 2'000'000'000);
  ASSERT_TRUE(spec.budget.wallTimeSeconds);
  EXPECT_NEAR(*spec.budget.wallTimeSeconds, 5400, 1e-9);
  EXPECT_EQ(spec.earlyStopping.method, EarlyStoppingMethod::Asha);
  EXPECT_EQ(spec.earlyStopping.unit, ProgressUnit::Tokens);
  EXPECT_EQ(spec.earlyStopping.rungs, (std::vector<std::int64_t>{1'000'000, 3'000'000, 9'000'000, 27'000'000}));
}

// The example in docs/sweeps.md reads without a problem and plans what it says.
TEST_F(SweepSpecFile, TheDocumentedExampleReads) {
  const std::string example = test_support::sweepsDocExample("yaml");
  ASSERT_FALSE(example.empty());
  const SweepSpec spec = loadSweep(example);
  EXPECT_EQ(spec.method, SweepMethod::Random);
  EXPECT_EQ(spec.parameters.size(), 5u);
  EXPECT_EQ(spec.earlyStopping.rungs, (std::vector<std::int64_t>{10'000'000, 30'000'000, 90'000'000}));
}

TEST_F(SweepSpecFile, ShortFormsAndDefaults) {
  const SweepSpec spec = loadSweep(
      "base: job.yaml\nmethod: grid\nparameters:\n  model.n_layer: [1, 2]\nmetric: loss\n"
      "early_stopping: {method: median, unit: steps, rungs: [100, 200], min_trials: 4}\n");
  EXPECT_EQ(spec.method, SweepMethod::Grid);
  EXPECT_TRUE(spec.repeats.seeds.empty());
  EXPECT_EQ(spec.metric.name, "loss");
  EXPECT_EQ(spec.metric.goal, MetricGoal::Min);
  EXPECT_EQ(spec.earlyStopping.method, EarlyStoppingMethod::Median);
  EXPECT_EQ(spec.earlyStopping.unit, ProgressUnit::Steps);
  EXPECT_EQ(spec.earlyStopping.minTrials, 4);
  EXPECT_EQ(spec.earlyStopping.rungs, (std::vector<std::int64_t>{100, 200}));
}

TEST(SweepSpecText, EveryProblemIsAtItsLineWithWhatToDo) {
  const LoadedSweepSpec loaded = loadSweepSpecText(
      "base: job.yaml\n"                                                         // 1
      "method: grid\n"                                                           // 2
      "metirc: val_loss\n"                                                       // 3
      "parameters:\n"                                                            // 4
      "  optimizer.lrr: [1e-3]\n"                                                // 5
      "  optimizer.weight_decay: {min: 0, max: 0.1}\n"                           // 6
      "  model.n_embd: {values: [64, big]}\n"                                    // 7
      "  optimizer.eps: {values: [1e-8, -1]}\n"                                  // 8
      "  strategy.kind: {min: 1, max: 2}\n"                                      // 9
      "  model.dropout: {values: [0.0, 0.1], when: {schedule.decay: cosine}}\n"  // 10
      "  schedule.decay: [cosine, linear]\n"                                     // 11
      "  optimizer.betas: [[0.9, 0.95]]\n"                                       // 12
      "budget: {wall_time: soon}\n");                                            // 13
  EXPECT_EQ(placed(loaded.problems),
            (std::vector<std::string>{
                "3:1 metirc: is not a sweep setting",
                "5:3 optimizer.lrr: is not a config key",
                "6:3 optimizer.weight_decay: is a range, and a grid tries only listed values",
                "7:31 model.n_embd: must be a whole number, not 'big'",
                "8:34 optimizer.eps: must be greater than 0, not -1.0",
                "9:24 strategy.kind: takes one of single, ddp, zero1, zero2 or zero3, so it cannot be a range",
                "10:46 model.dropout.when: names schedule.decay, which is not a parameter above this one",
                "12:3 optimizer.betas: is a list setting (pair of numbers, each from 0 up to (not including) 1), "
                "which a sweep cannot vary",
                "13:21 budget.wall_time: must be a duration such as 2h, 90m or 1h30m, not 'soon'",
            }));
  EXPECT_EQ(problemAtLine(loaded.problems, 3)->hint, "did you mean metric?");
  EXPECT_EQ(problemAtLine(loaded.problems, 5)->hint, "did you mean optimizer.lr?");
  EXPECT_EQ(problemAtLine(loaded.problems, 6)->hint, "give values: [...], or choose method: random or sobol");
  EXPECT_EQ(problemAtLine(loaded.problems, 10)->hint,
            "a condition may name only parameters written above it: move this one down");
}

TEST(SweepSpecText, MethodsNeedWhatTheyUse) {
  auto messages = [](const std::string& text) {
    std::vector<std::string> out;
    for (const Diagnostic& d : loadSweepSpecText(text).problems) out.push_back(d.path + ": " + d.message);
    return out;
  };
  EXPECT_EQ(messages("base: j.yaml\nmethod: random\nparameters: {optimizer.lr: {min: 1e-4, max: 1e-3}}\n"),
            (std::vector<std::string>{"trials: random needs trials: (how many configurations to draw)"}));
  EXPECT_EQ(messages("base: j.yaml\nmethod: grid\ntrials: 3\nparameters: {model.n_layer: [1, 2]}\n"),
            (std::vector<std::string>{"trials: is for random and sobol; a grid runs every combination"}));
  EXPECT_EQ(messages("method: sobl\nparameters: {model.n_layer: [1]}\n"),
            (std::vector<std::string>{": needs base: the job file this sweep varies (e.g. base: job.yaml)",
                                      "method: must be grid, random or sobol, not 'sobl'"}));
  EXPECT_EQ(messages("base: j.yaml\nmethod: grid\nrepeats: [1, 2]\nparameters: {seed: [5, 6]}\n"),
            (std::vector<std::string>{"seed: is set by repeats:, so it cannot be a parameter too"}));
  EXPECT_EQ(
      messages("base: j.yaml\nmethod: random\ntrials: 2\n"
               "parameters: {optimizer.lr: {min: 1e-3, max: 1e-3}, model.dropout: {min: 0, max: 0.5, log: true}}\n"),
      (std::vector<std::string>{"optimizer.lr.max: must be above min",
                                "model.dropout.min: must be above 0 on a log scale"}));
}

TEST(SweepSpecText, NotYamlIsAProblemAtItsPlace) {
  const LoadedSweepSpec loaded = loadSweepSpecText("base: job.yaml\nparameters: [1, 2\n");
  ASSERT_EQ(loaded.problems.size(), 1u);
  EXPECT_NE(loaded.problems[0].message.find("is not valid YAML"), std::string::npos);
  EXPECT_GT(loaded.problems[0].line, 1);
}

TEST_F(SweepSpecFile, AMissingBaseJobIsReportedAtBase) {
  write("sweep.yaml", "method: grid\nbase: nowhere.yaml\nparameters: {model.n_layer: [1, 2]}\n");
  const LoadedSweepSpec loaded = loadSweepSpecFile(path("sweep.yaml"));
  ASSERT_EQ(loaded.problems.size(), 1u);
  EXPECT_EQ(loaded.problems[0].line, 2);
  EXPECT_EQ(loaded.problems[0].column, 7);
  EXPECT_NE(loaded.problems[0].message.find("nowhere.yaml is not a file"), std::string::npos);
}

TEST(ConfigKeyValues, EveryConfigKeyHasTheKindItsTypeSays) {
  std::vector<std::string> lists;
  for (const FieldInfo& field : configFieldInfos())
    if (configValueKind(field) == ConfigValueKind::List) lists.push_back(field.path);
  EXPECT_EQ(lists, (std::vector<std::string>{"optimizer.betas", "target.sbatch_args"}))
      << "a new type text in config_fields.cpp needs a kind in config_key_values.cpp";
  EXPECT_EQ(configValueKind(*findFieldInfo("model.n_layer")), ConfigValueKind::Whole);
  EXPECT_EQ(configValueKind(*findFieldInfo("optimizer.lr")), ConfigValueKind::Number);
  EXPECT_EQ(configValueKind(*findFieldInfo("checkpoint.resume")), ConfigValueKind::Flag);
  EXPECT_EQ(configValueKind(*findFieldInfo("strategy.kind")), ConfigValueKind::Name);
  EXPECT_EQ(configValueKind(*findFieldInfo("model.preset")), ConfigValueKind::Text);
  EXPECT_FALSE(configRefusal("optimizer.lr", 1e-3));
  EXPECT_EQ(configRefusal("optimizer.lr", 0.0)->message, "must be greater than 0, not 0.0");
}

TEST(DurationText, ReadsWhatPeopleWrite) {
  EXPECT_NEAR(*parseDuration("2h"), 7200, 1e-9);
  EXPECT_NEAR(*parseDuration("90m"), 5400, 1e-9);
  EXPECT_NEAR(*parseDuration("1h30m"), 5400, 1e-9);
  EXPECT_NEAR(*parseDuration("1.5h"), 5400, 1e-9);
  EXPECT_NEAR(*parseDuration("2d"), 172800, 1e-9);
  EXPECT_NEAR(*parseDuration("45"), 45, 1e-9);
  for (const char* bad : {"", "soon", "1h30", "30m1h", "-5m", "0s", "1x"}) EXPECT_FALSE(parseDuration(bad)) << bad;
}

}  // namespace
}  // namespace traindeck
