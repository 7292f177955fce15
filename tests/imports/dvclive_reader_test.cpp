// DVCLive's folder as its Live() writes it: plots/metrics/<name>.tsv (with and without the
// timestamp column, "\r\n" as on Windows), params.yaml and metrics.json.
#include <gtest/gtest.h>

#include "fixture_writers.h"
#include "imports/run_discovery.h"

namespace traindeck {
namespace {

using namespace fixtures;

TEST(DvcLiveReader, MetricsParamsAndSummary) {
  ScratchDir dir("dvclive");
  const auto live = dir.path() / "exp" / "dvclive";
  writeFile(live / "plots" / "metrics" / "train" / "loss.tsv",
            "timestamp\tstep\tloss\r\n1718000000000\t0\t2.5\r\n1718000001500\t1\t2.25\r\n");
  writeFile(live / "plots" / "metrics" / "val" / "loss.tsv", "step\tloss\n0\t2.75\n1\t2.5\n2\t2.");
  writeFile(live / "plots" / "metrics" / "acc.tsv", "step\tacc\n0\t0.5\nx\t0.6\n");
  writeFile(live / "params.yaml", "lr: 0.002\noptimizer: Adam\nepochs: 20\n");
  writeFile(live / "metrics.json", R"({"step": 1, "train": {"loss": 2.25}, "val": {"loss": 2.5}, "test_acc": 0.875})");
  writeFile(live / "report.html", "<html></html>");

  const std::vector<RunSource> found = findRuns(dir.path());
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].kind, SourceKind::DvcLive);
  EXPECT_EQ(found[0].name, "exp/dvclive");
  const ImportedRun run = readRun(found[0]);
  const TrainColumns& t = run.metrics.train;
  ASSERT_EQ(t.size(), 2u);  // "train/loss" is the loss
  EXPECT_FLOAT_EQ(t.loss[1], 2.25f);
  EXPECT_DOUBLE_EQ(t.time[1], 1718000001.5);
  ASSERT_EQ(run.metrics.eval.size(), 2u);  // "val/loss"; its cut last row is left for later
  EXPECT_FLOAT_EQ(run.metrics.eval.valLoss[1], 2.5f);
  EXPECT_TRUE(run.partialTail);
  ASSERT_NE(run.scalar("acc"), nullptr);
  EXPECT_EQ(run.scalar("acc")->value, (std::vector<double>{0.5}));
  ASSERT_NE(run.scalar("test_acc"), nullptr);  // only in metrics.json: at its step
  EXPECT_EQ(run.scalar("test_acc")->step, (std::vector<std::int64_t>{1}));
  EXPECT_EQ(run.scalar("test_acc")->value, (std::vector<double>{0.875}));
  EXPECT_EQ(*run.configValue("lr"), "0.002");
  EXPECT_EQ(*run.configValue("optimizer"), "Adam");
  ASSERT_EQ(run.problems.size(), 1u);
  EXPECT_EQ(run.problems[0],
            (live / "plots" / "metrics" / "acc.tsv").string() + ":3: not \"step<TAB>value\"; row skipped");
}

TEST(DvcLiveReader, AStepThatIsNoWholeInt64IsABadRow) {
  ScratchDir dir("dvclive-steps");
  const auto live = dir.path() / "dvclive";
  const auto tsv = live / "plots" / "metrics" / "acc.tsv";
  writeFile(tsv, "step\tacc\n0\t0.5\ninf\t0.6\n1e300\t0.7\nnan\t0.8\n2.5\t0.9\n-1e19\t0.95\n3\t1\n");
  const std::vector<RunSource> found = findRuns(dir.path());
  ASSERT_EQ(found.size(), 1u);
  const ImportedRun run = readRun(found[0]);
  ASSERT_NE(run.scalar("acc"), nullptr);
  EXPECT_EQ(run.scalar("acc")->step, (std::vector<std::int64_t>{0, 3}));
  EXPECT_EQ(run.scalar("acc")->value, (std::vector<double>{0.5, 1}));
  std::vector<std::string> expected;
  for (int line = 3; line <= 7; ++line)
    expected.push_back(tsv.string() + ":" + std::to_string(line) + ": not \"step<TAB>value\"; row skipped");
  EXPECT_EQ(run.problems, expected);
}

}  // namespace
}  // namespace traindeck
