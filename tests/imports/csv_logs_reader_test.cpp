// Lightning's CSVLogger (sparse rows, hparams.yaml), Keras's CSVLogger and llm.c's main.log,
// written here as those loggers write them.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "fixture_writers.h"
#include "imports/csv_logs_reader.h"
#include "imports/csv_records.h"
#include "imports/llmc_log_reader.h"
#include "imports/run_discovery.h"

namespace traindeck {
namespace {

using namespace fixtures;

TEST(CsvLogsReader, LightningSparseRowsAndHparams) {
  ScratchDir dir("lightning");
  const auto version = dir.path() / "lightning_logs" / "version_0";
  writeFile(version / "metrics.csv",
            "epoch,step,train_loss,val_loss,lr-AdamW,\"odd,name\"\n"
            "0,9,2.5,,0.001,\n"
            "0,19,2.25,,,7\n"
            "0,19,,2.75,,\n"
            "1,29,2.0,,0.0005,\n"
            "1,x,1.0,,,\n");
  writeFile(version / "hparams.yaml", "lr: 0.001\nmodel:\n  n_layer: 2\n  dims: [64, 128]\n");

  const std::vector<RunSource> found = findRuns(dir.path());
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].kind, SourceKind::LightningCsv);
  EXPECT_EQ(found[0].name, "lightning_logs/version_0");
  const ImportedRun run = readRun(found[0]);
  const TrainColumns& t = run.metrics.train;
  ASSERT_EQ(t.size(), 3u);
  EXPECT_EQ(t.step[0], 9);
  EXPECT_FLOAT_EQ(t.loss[0], 2.5f);
  EXPECT_TRUE(std::isnan(t.time[0]));
  EXPECT_EQ(t.step[1], 19);
  EXPECT_FLOAT_EQ(t.loss[1], 2.25f);
  EXPECT_EQ(t.step[2], 29);
  EXPECT_FLOAT_EQ(t.loss[2], 2.0f);
  ASSERT_EQ(run.metrics.eval.size(), 1u);
  EXPECT_EQ(run.metrics.eval.step[0], 19);
  EXPECT_FLOAT_EQ(run.metrics.eval.valLoss[0], 2.75f);
  const ScalarSeries* lr = run.scalar("lr-AdamW");  // Lightning's LearningRateMonitor name: kept
  ASSERT_NE(lr, nullptr);
  ASSERT_EQ(lr->size(), 2u);
  EXPECT_EQ(lr->value[1], 0.0005);
  EXPECT_EQ(run.scalar("epoch")->size(), 4u);
  ASSERT_NE(run.scalar("odd,name"), nullptr);
  EXPECT_EQ(run.scalar("odd,name")->value[0], 7);
  EXPECT_EQ(*run.configValue("lr"), "0.001");
  EXPECT_EQ(*run.configValue("model.n_layer"), "2");
  EXPECT_EQ(*run.configValue("model.dims"), "[64, 128]");
  ASSERT_EQ(run.problems.size(), 1u);
  EXPECT_EQ(run.problems[0], (version / "metrics.csv").string() + ":6: no whole step; row skipped");
}

TEST(CsvLogsReader, KerasOneRowPerEpoch) {
  ScratchDir dir("keras-csv");
  writeFile(dir.path() / "training.log",
            "epoch,accuracy,loss,val_accuracy,val_loss\r\n0,0.5,1.25,0.55,1.5\r\n1,0.625,1.0,0.6,1.375\r\n2,0.7");
  const std::vector<RunSource> found = findRuns(dir.path());
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].kind, SourceKind::KerasCsv);
  EXPECT_EQ(found[0].name, "training.log");
  const ImportedRun run = readRun(found[0]);
  EXPECT_TRUE(run.partialTail);
  ASSERT_EQ(run.metrics.train.size(), 2u);
  EXPECT_EQ(run.metrics.train.step[1], 1);
  EXPECT_FLOAT_EQ(run.metrics.train.loss[0], 1.25f);
  EXPECT_FLOAT_EQ(run.metrics.train.loss[1], 1.0f);
  ASSERT_EQ(run.metrics.eval.size(), 2u);
  EXPECT_FLOAT_EQ(run.metrics.eval.valLoss[0], 1.5f);
  EXPECT_FLOAT_EQ(run.metrics.eval.valLoss[1], 1.375f);
  EXPECT_EQ(run.scalar("accuracy")->value[1], 0.625);
  EXPECT_EQ(run.scalar("val_accuracy")->value[0], 0.55);
  EXPECT_TRUE(run.problems.empty());
}

TEST(CsvLogsReader, AStepThatIsNoWholeInt64IsABadRow) {
  ScratchDir dir("csv-steps");
  const auto version = dir.path() / "lightning_logs" / "version_0";
  writeFile(version / "metrics.csv",
            "step,train_loss\n0,2.5\ninf,2.4\n-inf,2.3\nnan,2.2\n1e300,2.1\n9223372036854775808,2.0\n1.5,1.9\n"
            "-9223372036854775808,1.8\n1e3,1.7\n");
  const std::vector<RunSource> found = findRuns(dir.path());
  ASSERT_EQ(found.size(), 1u);
  const ImportedRun run = readRun(found[0]);
  EXPECT_EQ(run.metrics.train.step, (std::vector<std::int64_t>{0, std::numeric_limits<std::int64_t>::min(), 1000}));
  const std::string file = (version / "metrics.csv").string();
  std::vector<std::string> expected;
  for (int line = 3; line <= 8; ++line)
    expected.push_back(file + ":" + std::to_string(line) + ": no whole step; row skipped");
  EXPECT_EQ(run.problems, expected);
}

TEST(CsvLogsReader, WholeStepTakesOnlyFiniteWholeInt64s) {
  EXPECT_EQ(wholeStep(0.0), 0);
  EXPECT_EQ(wholeStep(-3.0), -3);
  EXPECT_EQ(wholeStep(9007199254740992.0), 9007199254740992);
  EXPECT_EQ(wholeStep(-9223372036854775808.0), std::numeric_limits<std::int64_t>::min());
  EXPECT_EQ(wholeStep(9223372036854775808.0), std::nullopt);  // 2^63: one past the largest
  EXPECT_EQ(wholeStep(1e300), std::nullopt);
  EXPECT_EQ(wholeStep(-1e300), std::nullopt);
  EXPECT_EQ(wholeStep(1.5), std::nullopt);
  EXPECT_EQ(wholeStep(std::numeric_limits<double>::infinity()), std::nullopt);
  EXPECT_EQ(wholeStep(std::numeric_limits<double>::quiet_NaN()), std::nullopt);
}

TEST(LlmcLogReader, TrainAndValLinesWithLrAndNorm) {
  ScratchDir dir("llmc");
  writeFile(dir.path() / "log124M" / "main.log",
            "s:0 tel:10.9863\n"
            "s:0 trl:10.9504 lr:0.000006 norm:15.2500\n"
            "s:1 trl:10.5000 lr:0.000012 norm:9.5000\n"
            "garbage\n"
            "s:250 tel:6.1250\n"
            "s:250 eval:0.2875\n"
            "s:251 trl:6.0");
  const std::vector<RunSource> found = findRuns(dir.path());
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].kind, SourceKind::LlmC);
  EXPECT_EQ(found[0].name, "log124M/main.log");
  const ImportedRun run = readRun(found[0]);
  const TrainColumns& t = run.metrics.train;
  ASSERT_EQ(t.size(), 2u);
  EXPECT_EQ(t.step[0], 0);
  EXPECT_FLOAT_EQ(t.loss[0], 10.9504f);
  EXPECT_FLOAT_EQ(t.lr[0], 0.000006f);
  EXPECT_FLOAT_EQ(t.gradNorm[0], 15.25f);
  EXPECT_EQ(t.step[1], 1);
  EXPECT_FLOAT_EQ(t.loss[1], 10.5f);
  EXPECT_FLOAT_EQ(t.lr[1], 0.000012f);
  EXPECT_FLOAT_EQ(t.gradNorm[1], 9.5f);
  ASSERT_EQ(run.metrics.eval.size(), 2u);
  EXPECT_FLOAT_EQ(run.metrics.eval.valLoss[0], 10.9863f);
  EXPECT_EQ(run.metrics.eval.step[1], 250);
  EXPECT_FLOAT_EQ(run.metrics.eval.valLoss[1], 6.125f);
  EXPECT_EQ(run.scalar("eval")->value[0], 0.2875);
  EXPECT_TRUE(run.partialTail);
  ASSERT_EQ(run.problems.size(), 1u);
  EXPECT_EQ(run.problems[0], (dir.path() / "log124M" / "main.log").string() + ":4: no \"s:<step>\"; skipped");
}

}  // namespace
}  // namespace traindeck
