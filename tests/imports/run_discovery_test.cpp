// One folder holding runs of every kind: findRuns lists each once, with its kind and name, and
// does not enter a run's own folders; a native run reads through core/runlog's parser.
#include <gtest/gtest.h>

#include "fixture_writers.h"
#include "imports/import_error.h"
#include "imports/metric_names.h"
#include "imports/run_discovery.h"

namespace traindeck {
namespace {

using namespace fixtures;

TEST(RunDiscovery, FindsEveryKindOnceInPathOrder) {
  ScratchDir dir("discovery");
  const auto& root = dir.path();
  writeFile(root / "native" / "metrics.jsonl",
            "{\"kind\":\"header\",\"schema\":1,\"run_id\":\"r\"}\n"
            "{\"kind\":\"train\",\"time\":1718000000.5,\"step\":1,\"tokens\":4096,\"loss\":3.5,\"lr\":0.0006,\"grad_"
            "norm\":1.25,"
            "\"tokens_per_s\":1000,\"step_ms\":40}\n"
            "{\"kind\":\"eval\",\"time\":1718000001,\"step\":1,\"tokens\":4096,\"val_loss\":3.75}\n");
  writeFile(root / "native" / "logs" / "rank-0.log", "s:1 trl:9\n");  // inside a run: not a run of its own
  writeFile(root / "hf" / "checkpoint-2" / "trainer_state.json",
            R"({"global_step":2,"log_history":[{"loss":1,"step":2}]})");
  writeFile(root / "hf" / "runs" / "x" / "events.out.tfevents.1.h", tfRecord(tfSimpleValue(1, 1, "train/loss", 1)));
  writeFile(root / "tb" / "a" / "events.out.tfevents.1.h", tfRecord(tfSimpleValue(1, 1, "loss", 1)));
  writeFile(root / "tb" / "b" / "events.out.tfevents.1.h", tfRecord(tfSimpleValue(1, 1, "loss", 2)));
  writeFile(root / "llmc" / "main.log", "s:0 trl:1\n");
  writeFile(root / "notes.log", "just text\n");
  writeFile(root / "other.csv", "a,b\n1,2\n");
  writeFile(root / ".hidden" / "events.out.tfevents.1.h", tfRecord(tfSimpleValue(1, 1, "loss", 1)));
  std::filesystem::create_directory_symlink(root / "tb" / "a", root / "latest-run");

  const std::vector<RunSource> found = findRuns(root);
  std::vector<std::pair<SourceKind, std::string>> got;
  for (const RunSource& s : found) got.emplace_back(s.kind, s.name);
  const std::vector<std::pair<SourceKind, std::string>> expected = {
      {SourceKind::HfTrainer, "hf"},     {SourceKind::LlmC, "llmc/main.log"}, {SourceKind::TrainDeck, "native"},
      {SourceKind::TensorBoard, "tb/a"}, {SourceKind::TensorBoard, "tb/b"},
  };
  EXPECT_EQ(got, expected);

  const ImportedRun native = readRun(found[2]);
  EXPECT_EQ(native.kind, SourceKind::TrainDeck);
  ASSERT_EQ(native.metrics.train.size(), 1u);
  EXPECT_EQ(native.metrics.train.tokens[0], 4096);
  EXPECT_FLOAT_EQ(native.metrics.train.stepMs[0], 40.0f);
  EXPECT_FLOAT_EQ(native.metrics.eval.valLoss[0], 3.75f);
  EXPECT_TRUE(native.metrics.hasHeader);

  // A run's own file, or a folder run given by one of its files.
  const std::vector<RunSource> one = findRuns(root / "llmc" / "main.log");
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(one[0].kind, SourceKind::LlmC);
  const std::vector<RunSource> byFile = findRuns(root / "tb" / "b" / "events.out.tfevents.1.h");
  ASSERT_EQ(byFile.size(), 1u);
  EXPECT_EQ(byFile[0].name, "b");
  EXPECT_TRUE(findRuns(root / "nothing-here").empty());
}

TEST(RunDiscovery, AVanishedRunIsAnImportError) {
  const RunSource gone{
      .kind = SourceKind::LlmC, .name = "x", .path = "/nonexistent/main.log", .key = {}, .displayName = {}, .id = {}};
  EXPECT_THROW(readRun(gone), ImportError);
}

TEST(MetricNames, OnlyClearNamesAreMapped) {
  EXPECT_EQ(knownMetric("train/loss"), KnownMetric::Loss);
  EXPECT_EQ(knownMetric("loss"), KnownMetric::Loss);
  EXPECT_EQ(knownMetric("trl"), KnownMetric::Loss);
  EXPECT_EQ(knownMetric("eval_loss"), KnownMetric::ValLoss);
  EXPECT_EQ(knownMetric("val/loss"), KnownMetric::ValLoss);
  EXPECT_EQ(knownMetric("tel"), KnownMetric::ValLoss);
  EXPECT_EQ(knownMetric("learning_rate"), KnownMetric::Lr);
  EXPECT_EQ(knownMetric("grad_norm"), KnownMetric::GradNorm);
  EXPECT_EQ(knownMetric("norm"), KnownMetric::GradNorm);
  EXPECT_EQ(knownMetric("Loss/train"), KnownMetric::None);
  EXPECT_EQ(knownMetric("val_acc"), KnownMetric::None);
  EXPECT_EQ(knownMetric("LOSS"), KnownMetric::None);
}

}  // namespace
}  // namespace traindeck
