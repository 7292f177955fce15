// CSV and TSV files as loggers write them on Windows: Keras' CSVLogger through a text-mode file
// ("\r\r\n"), Lightning's metrics.csv with "\r\n", a byte order mark, quoted fields holding commas,
// quotes and line ends, and DVCLive's .tsv with os.linesep. Every value is checked.
#include <gtest/gtest.h>

#include <cmath>

#include "fixture_writers.h"
#include "imports/csv_logs_reader.h"
#include "imports/csv_records.h"
#include "imports/run_discovery.h"

namespace traindeck {
namespace {

using namespace fixtures;

// The same rows with `end` after each line.
std::string kerasLog(std::string_view end) {
  std::string text = "epoch,accuracy,loss,val_accuracy,val_loss";
  text += end;
  for (int epoch = 0; epoch < 30; ++epoch) {
    text += std::to_string(epoch) + "," + std::to_string(0.5 + epoch / 100.0) + "," +
            std::to_string(2.0 - epoch / 20.0) + "," + std::to_string(0.45 + epoch / 100.0) + "," +
            std::to_string(2.5 - epoch / 25.0);
    text += end;
  }
  return text;
}

TEST(WindowsCsv, KerasLogKeepsValLossWithEveryLineEnd) {
  for (const std::string_view end : {"\n", "\r\n", "\r\r\n"}) {
    ScratchDir dir("keras-crlf");
    writeFile(dir.path() / "training.log", kerasLog(end));
    const std::vector<RunSource> found = findRuns(dir.path());
    ASSERT_EQ(found.size(), 1u) << "line end of " << end.size() << " bytes";
    EXPECT_EQ(found[0].kind, SourceKind::KerasCsv);
    const ImportedRun run = readRun(found[0]);
    EXPECT_TRUE(run.problems.empty()) << run.problems.front();
    EXPECT_FALSE(run.partialTail);
    ASSERT_EQ(run.metrics.eval.size(), 30u) << "val_loss lost with a line end of " << end.size() << " bytes";
    ASSERT_EQ(run.metrics.train.size(), 30u);
    for (int epoch = 0; epoch < 30; ++epoch) {
      EXPECT_EQ(run.metrics.eval.step[epoch], epoch);
      EXPECT_FLOAT_EQ(run.metrics.eval.valLoss[epoch], static_cast<float>(2.5 - epoch / 25.0));
      EXPECT_FLOAT_EQ(run.metrics.train.loss[epoch], static_cast<float>(2.0 - epoch / 20.0));
    }
    const ScalarSeries* valAccuracy = run.scalar("val_accuracy");
    ASSERT_NE(valAccuracy, nullptr);
    ASSERT_EQ(valAccuracy->size(), 30u);
    EXPECT_DOUBLE_EQ(valAccuracy->value[29], 0.45 + 29 / 100.0);
  }
}

TEST(WindowsCsv, LightningMetricsCsvKeepsItsLastColumnWithCrlfAndABom) {
  ScratchDir dir("lightning-crlf");
  const auto version = dir.path() / "lightning_logs" / "version_3";
  writeFile(version / "metrics.csv",
            "\xEF\xBB\xBF"
            "epoch,step,train_loss,val_loss\r\n"
            "0,49,2.5,\r\n"
            "0,49,,2.75\r\n"
            "1,99,2.25,\r\n"
            "1,99,,2.5\r\n");
  const std::vector<RunSource> found = findRuns(dir.path());
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].kind, SourceKind::LightningCsv);
  const ImportedRun run = readRun(found[0]);
  EXPECT_TRUE(run.problems.empty()) << run.problems.front();
  ASSERT_EQ(run.metrics.eval.size(), 2u);
  EXPECT_EQ(run.metrics.eval.step[0], 49);
  EXPECT_FLOAT_EQ(run.metrics.eval.valLoss[0], 2.75f);
  EXPECT_EQ(run.metrics.eval.step[1], 99);
  EXPECT_FLOAT_EQ(run.metrics.eval.valLoss[1], 2.5f);
  ASSERT_EQ(run.metrics.train.size(), 2u);
  EXPECT_FLOAT_EQ(run.metrics.train.loss[1], 2.25f);
  ASSERT_NE(run.scalar("epoch"), nullptr);  // the BOM is not part of the first column's name
  EXPECT_EQ(run.scalar("epoch")->value[2], 1);
}

TEST(WindowsCsv, QuotedFieldsHoldCommasQuotesAndLineEnds) {
  std::vector<std::vector<std::string>> records;
  std::vector<std::size_t> lines;
  const bool partial = forEachCsvRecord("a,\"b,c\",\"say \"\"hi\"\"\"\r\n\r\n1,\"two\r\nlines\",3\r\r\n4,5,6", ',',
                                        [&](std::vector<std::string>& cells, std::size_t line) {
                                          records.push_back(cells);
                                          lines.push_back(line);
                                          return true;
                                        });
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[0], (std::vector<std::string>{"a", "b,c", "say \"hi\""}));
  EXPECT_EQ(records[1], (std::vector<std::string>{"1", "two\r\nlines", "3"}));
  EXPECT_EQ(lines, (std::vector<std::size_t>{1, 3}));
  EXPECT_TRUE(partial);  // "4,5,6" has no line end yet

  ScratchDir dir("keras-quoted");
  writeFile(dir.path() / "log.csv", "\"epoch\",\"loss\",\"val,loss\"\r\n0,1.5,\"2.5\"\r\n1,1.25,2.25\r\n1");
  const std::vector<RunSource> found = findRuns(dir.path());
  ASSERT_EQ(found.size(), 1u);
  const ImportedRun run = readRun(found[0]);
  EXPECT_TRUE(run.partialTail);
  ASSERT_NE(run.scalar("val,loss"), nullptr);
  EXPECT_EQ(run.scalar("val,loss")->value, (std::vector<double>{2.5, 2.25}));
  EXPECT_EQ(run.metrics.train.loss.size(), 2u);
}

TEST(WindowsCsv, CsvHeaderNeedsItsLineEnd) {
  ScratchDir dir("csv-header");
  writeFile(dir.path() / "a.csv", "epoch,loss");
  EXPECT_TRUE(csvHeader(dir.path() / "a.csv").empty());
  writeFile(dir.path() / "a.csv", "epoch,loss\r");
  EXPECT_TRUE(csvHeader(dir.path() / "a.csv").empty());  // "\r\n" may be on its way
  writeFile(dir.path() / "a.csv", "epoch,loss\r\r\n");
  EXPECT_EQ(csvHeader(dir.path() / "a.csv"), (std::vector<std::string>{"epoch", "loss"}));
}

}  // namespace
}  // namespace traindeck
