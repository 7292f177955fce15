// A Hugging Face Trainer output folder: trainer_state.json in two checkpoints (the one with the
// highest global_step wins, whatever the names' order), config.json, and a training_args.bin
// that must not matter.
#include <gtest/gtest.h>

#include "fixture_writers.h"
#include "imports/hf_trainer_reader.h"
#include "imports/import_error.h"
#include "imports/run_discovery.h"

namespace traindeck {
namespace {

using namespace fixtures;

constexpr const char* kEarlyState = R"({"global_step": 5, "max_steps": 20, "log_history": [
  {"epoch": 0.25, "grad_norm": 3.5, "learning_rate": 5e-05, "loss": 4.0, "step": 5}]})";

constexpr const char* kLateState = R"({
  "best_metric": null, "epoch": 1.0, "global_step": 20, "max_steps": 20, "logging_steps": 5,
  "log_history": [
    {"epoch": 0.25, "grad_norm": 3.5, "learning_rate": 5e-05, "loss": 4.0, "step": 5},
    {"epoch": 0.5, "grad_norm": 2.25, "learning_rate": 4e-05, "loss": 3.5, "step": 10},
    {"epoch": 0.5, "eval_loss": 3.75, "eval_runtime": 1.5, "eval_samples_per_second": 64.0, "step": 10},
    {"epoch": 1.0, "grad_norm": 1.75, "learning_rate": 1e-05, "loss": 3.0, "step": 20},
    {"epoch": 1.0, "step": 20, "total_flos": 1000.0, "train_loss": 3.5, "train_runtime": 12.5},
    {"note": "no step here"}
  ]})";

TEST(HfTrainerReader, TheCheckpointWithTheHighestGlobalStepWins) {
  ScratchDir dir("hf");
  const auto out = dir.path() / "out";
  writeFile(out / "checkpoint-5" / "trainer_state.json", kEarlyState);  // sorts after checkpoint-20
  writeFile(out / "checkpoint-20" / "trainer_state.json", kLateState);
  writeFile(out / "checkpoint-20" / "config.json", R"({"model_type": "gpt2", "n_layer": 2, "n_embd": 64})");
  writeFile(out / "config.json", R"({"model_type": "gpt2", "n_layer": 99})");
  writeFile(out / "training_args.bin", std::string("\x80\x04\x95garbage", 11));

  EXPECT_EQ(newestTrainerState(out), out / "checkpoint-20" / "trainer_state.json");
  const std::vector<RunSource> found = findRuns(dir.path());
  ASSERT_EQ(found.size(), 1u);  // the checkpoints are not runs of their own
  EXPECT_EQ(found[0].kind, SourceKind::HfTrainer);
  EXPECT_EQ(found[0].name, "out");
  const ImportedRun run = readRun(found[0]);

  const TrainColumns& t = run.metrics.train;
  ASSERT_EQ(t.size(), 3u);
  EXPECT_EQ(t.step[0], 5);
  EXPECT_FLOAT_EQ(t.loss[0], 4.0f);
  EXPECT_FLOAT_EQ(t.lr[0], 5e-05f);
  EXPECT_FLOAT_EQ(t.gradNorm[0], 3.5f);
  EXPECT_EQ(t.step[1], 10);
  EXPECT_FLOAT_EQ(t.loss[1], 3.5f);
  EXPECT_FLOAT_EQ(t.gradNorm[1], 2.25f);
  EXPECT_EQ(t.step[2], 20);
  EXPECT_FLOAT_EQ(t.loss[2], 3.0f);  // the summary's train_loss (3.5) is not a loss point
  ASSERT_EQ(run.metrics.eval.size(), 1u);
  EXPECT_EQ(run.metrics.eval.step[0], 10);
  EXPECT_FLOAT_EQ(run.metrics.eval.valLoss[0], 3.75f);

  const ScalarSeries* epoch = run.scalar("epoch");
  ASSERT_NE(epoch, nullptr);
  ASSERT_EQ(epoch->size(), 5u);
  EXPECT_EQ(epoch->value[1], 0.5);
  EXPECT_EQ(run.scalar("eval_runtime")->value[0], 1.5);
  EXPECT_EQ(run.scalar("train_loss")->value[0], 3.5);
  EXPECT_EQ(run.scalar("train_loss")->step[0], 20);
  EXPECT_EQ(run.scalar("train_runtime")->value[0], 12.5);

  EXPECT_EQ(*run.configValue("model.n_layer"), "2");  // the winning checkpoint's config.json
  EXPECT_EQ(*run.configValue("model.model_type"), "gpt2");
  EXPECT_EQ(*run.configValue("trainer.max_steps"), "20");
  ASSERT_EQ(run.problems.size(), 1u);
  EXPECT_NE(run.problems[0].find("log_history entry 6 has no step"), std::string::npos) << run.problems[0];
}

TEST(HfTrainerReader, AStateThatIsNotJsonIsAnError) {
  ScratchDir dir("hf-bad");
  writeFile(dir.path() / "trainer_state.json", "{\"log_history\": [");
  EXPECT_TRUE(isHfTrainerRun(dir.path()));
  EXPECT_THROW(readHfTrainerRun(dir.path(), "x"), ImportError);
}

}  // namespace
}  // namespace traindeck
