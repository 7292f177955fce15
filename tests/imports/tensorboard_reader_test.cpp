// TensorBoard event files made by the fixture writer: all three scalar encodings, a record cut
// short at the end (a writer at work), damaged CRCs, and Keras's train/ and validation/ merged.
#include <gtest/gtest.h>

#include <cmath>

#include "fixture_writers.h"
#include "imports/run_discovery.h"
#include "imports/tensorboard_reader.h"
#include "imports/tfevents_parser.h"

namespace traindeck {
namespace {

using namespace fixtures;

std::string fileVersionEvent() {
  return Proto().fixed64(1, 1718000000.0).bytes(3, "brain.Event:2").str();
}

TEST(TensorBoardReader, ReadsAllThreeScalarEncodingsAndLeavesACutRecord) {
  ScratchDir dir("tb");
  std::string bytes = tfRecord(fileVersionEvent());
  bytes += tfRecord(tfSimpleValue(1718000001.5, 1, "train/loss", 2.5f));                // simple_value
  bytes += tfRecord(tfFloatValTensor(1718000001.5, 1, "train/learning_rate", 0.001f));  // float_val
  bytes += tfRecord(tfContentTensor(1718000002.0, 1, "eval/loss", 3.25f));              // tensor_content
  bytes += tfRecord(tfDoubleValTensor(1718000003.0, 2, "accuracy", 0.875));             // double_val
  bytes += tfRecord(tfSimpleValue(1718000003.0, 2, "train/loss", 2.25f));
  // Not scalars: a two-element tensor and a string tensor, both skipped.
  const Proto pair =
      Proto().varint(1, 1).message(2, Proto().message(2, Proto().varint(1, 2))).bytes(5, packedFloats({1, 2}));
  bytes += tfRecord(tfEventWithValue(1718000003.0, 2, Proto().bytes(1, "weights").message(8, pair)));
  bytes += tfRecord(
      tfEventWithValue(1718000003.0, 2, Proto().bytes(1, "note").message(8, Proto().varint(1, 7).bytes(8, "hi"))));
  // A one-element float tensor of another plugin (hparams writes such markers): skipped.
  const Proto marker = Proto().varint(1, 1).bytes(5, packedFloats({0}));
  const Proto hparams = Proto().message(1, Proto().bytes(1, "hparams").bytes(2, "\x12\x00"));
  bytes += tfRecord(tfEventWithValue(
      1718000003.0, 2, Proto().bytes(1, "_hparams_/session_start_info").message(8, marker).message(9, hparams)));
  // The scalars plugin's own metadata (PyTorch and TF2 write it) is no obstacle.
  const Proto scalars = Proto().message(1, Proto().bytes(1, "scalars"));
  bytes += tfRecord(
      tfEventWithValue(1718000003.0, 2, Proto().bytes(1, "perplexity").message(8, marker).message(9, scalars)));
  const std::string cut = tfRecord(tfSimpleValue(1718000004.0, 3, "train/loss", 2.0f));
  bytes += cut.substr(0, cut.size() - 5);
  writeFile(dir.path() / "run1" / "events.out.tfevents.1718000000.host.1.0", bytes);

  const ImportedRun run = readTensorBoardRun(dir.path() / "run1", "run1");
  EXPECT_EQ(run.kind, SourceKind::TensorBoard);
  EXPECT_TRUE(run.problems.empty()) << run.problems.front();
  EXPECT_TRUE(run.partialTail);
  const TrainColumns& t = run.metrics.train;
  ASSERT_EQ(t.size(), 2u);
  EXPECT_EQ(t.step[0], 1);
  EXPECT_FLOAT_EQ(t.loss[0], 2.5f);
  EXPECT_FLOAT_EQ(t.lr[0], 0.001f);
  EXPECT_TRUE(std::isnan(t.gradNorm[0]));
  EXPECT_DOUBLE_EQ(t.time[0], 1718000001.5);
  EXPECT_EQ(t.step[1], 2);
  EXPECT_FLOAT_EQ(t.loss[1], 2.25f);
  EXPECT_TRUE(std::isnan(t.lr[1]));
  ASSERT_EQ(run.metrics.eval.size(), 1u);
  EXPECT_EQ(run.metrics.eval.step[0], 1);
  EXPECT_FLOAT_EQ(run.metrics.eval.valLoss[0], 3.25f);
  EXPECT_DOUBLE_EQ(run.metrics.eval.time[0], 1718000002.0);
  ASSERT_EQ(run.scalars.size(), 2u);
  ASSERT_NE(run.scalar("perplexity"), nullptr);
  EXPECT_EQ(run.scalar("perplexity")->value[0], 0.0);
  const ScalarSeries* accuracy = run.scalar("accuracy");
  ASSERT_NE(accuracy, nullptr);
  ASSERT_EQ(accuracy->size(), 1u);
  EXPECT_EQ(accuracy->step[0], 2);
  EXPECT_EQ(accuracy->value[0], 0.875);  // a double_val stays a double
  EXPECT_DOUBLE_EQ(accuracy->time[0], 1718000003.0);

  // The writer finishes the record: the next read has it, and nothing is left over.
  writeFile(dir.path() / "run1" / "events.out.tfevents.1718000000.host.1.0",
            bytes.substr(0, bytes.size() - (cut.size() - 5)) + cut);
  const ImportedRun grown = readTensorBoardRun(dir.path() / "run1", "run1");
  EXPECT_FALSE(grown.partialTail);
  ASSERT_EQ(grown.metrics.train.size(), 3u);
  EXPECT_EQ(grown.metrics.train.step[2], 3);
  EXPECT_FLOAT_EQ(grown.metrics.train.loss[2], 2.0f);
}

TEST(TensorBoardReader, ADataCrcMismatchNamesFileAndByteAndKeepsTheRecordsBefore) {
  ScratchDir dir("tb-crc");
  std::string bytes = tfRecord(tfSimpleValue(10, 1, "loss", 1.5f)) + tfRecord(tfSimpleValue(11, 2, "loss", 1.25f));
  const std::size_t damaged = bytes.size();
  std::string third = tfRecord(tfSimpleValue(12, 3, "loss", 1.0f));
  third[third.size() - 6] ^= 0x40;  // a bit of the data flipped
  bytes += third + tfRecord(tfSimpleValue(13, 4, "loss", 0.75f));
  const auto file = dir.path() / "r" / "events.out.tfevents.1.h";
  writeFile(file, bytes);

  const ImportedRun run = readTensorBoardRun(dir.path() / "r", "r");
  ASSERT_EQ(run.problems.size(), 1u);
  EXPECT_EQ(run.problems[0],
            file.string() + ": corrupt record at byte " + std::to_string(damaged) +
                " (data CRC mismatch); the 2 records before it are read, the rest of the file is skipped");
  ASSERT_EQ(run.metrics.train.size(), 2u);
  EXPECT_FLOAT_EQ(run.metrics.train.loss[0], 1.5f);
  EXPECT_FLOAT_EQ(run.metrics.train.loss[1], 1.25f);
  EXPECT_FALSE(run.partialTail);
}

TEST(TensorBoardReader, ALengthCrcMismatchIsDamageNotACut) {
  std::string bytes = tfRecord(tfSimpleValue(10, 1, "loss", 1.5f));
  std::string second = tfRecord(tfSimpleValue(11, 2, "loss", 1.25f));
  second[9] ^= 0x01;  // the length's CRC
  bytes += second;
  RunBuilder builder(SourceKind::TensorBoard, "r", "r");
  const FramedScan scan = readTfEventsBytes(bytes, "f", "", builder);
  EXPECT_EQ(scan.error,
            "corrupt record at byte " + std::to_string(bytes.size() - second.size()) + " (length CRC mismatch)");
  EXPECT_FALSE(scan.partialTail);
  EXPECT_EQ(scan.records, 1u);
  EXPECT_EQ(builder.run().metrics.train.size(), 1u);
}

TEST(TensorBoardReader, EveryCutOfAFileIsAPartialTailNeverAProblem) {
  const std::string first = tfRecord(tfSimpleValue(10, 1, "loss", 1.5f));
  const std::string bytes = first + tfRecord(tfContentTensor(11, 2, "loss", 1.25f));
  for (std::size_t n = 0; n < bytes.size(); ++n) {
    RunBuilder builder(SourceKind::TensorBoard, "r", "r");
    const FramedScan scan = readTfEventsBytes(bytes.substr(0, n), "f", "", builder);
    EXPECT_TRUE(scan.ok()) << n;
    EXPECT_EQ(scan.partialTail, n != 0 && n != first.size()) << n;
    EXPECT_EQ(scan.consumed, n < first.size() ? 0 : first.size()) << n;
    EXPECT_TRUE(builder.run().problems.empty()) << n;
  }
}

TEST(TensorBoardReader, KerasTrainAndValidationFoldersAreOneRun) {
  ScratchDir dir("tb-keras");
  const auto run = dir.path() / "logs" / "fit-1";
  writeFile(run / "train" / "events.out.tfevents.1.h.v2",
            tfRecord(tfContentTensor(100, 0, "epoch_loss", 1.5f)) +
                tfRecord(tfContentTensor(100, 0, "epoch_accuracy", 0.25f)) +
                tfRecord(tfContentTensor(200, 1, "epoch_loss", 1.25f)));
  writeFile(run / "validation" / "events.out.tfevents.1.h.v2",
            tfRecord(tfContentTensor(101, 0, "epoch_loss", 1.75f)) +
                tfRecord(tfContentTensor(101, 0, "epoch_accuracy", 0.5f)));

  const std::vector<RunSource> found = findRuns(dir.path());
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].kind, SourceKind::TensorBoard);
  EXPECT_EQ(found[0].name, "logs/fit-1");
  const ImportedRun read = readRun(found[0]);
  ASSERT_EQ(read.metrics.train.size(), 2u);
  EXPECT_FLOAT_EQ(read.metrics.train.loss[0], 1.5f);
  EXPECT_FLOAT_EQ(read.metrics.train.loss[1], 1.25f);
  ASSERT_EQ(read.metrics.eval.size(), 1u);
  EXPECT_FLOAT_EQ(read.metrics.eval.valLoss[0], 1.75f);
  ASSERT_NE(read.scalar("train/epoch_accuracy"), nullptr);
  EXPECT_FLOAT_EQ(static_cast<float>(read.scalar("train/epoch_accuracy")->value[0]), 0.25f);
  ASSERT_NE(read.scalar("validation/epoch_accuracy"), nullptr);
  EXPECT_FLOAT_EQ(static_cast<float>(read.scalar("validation/epoch_accuracy")->value[0]), 0.5f);
}

TEST(TensorBoardReader, MalformedEventsAreSkippedAndCounted) {
  const std::string bytes = tfRecord("\x0a\xff") + tfRecord(tfSimpleValue(10, 1, "loss", 1.5f));
  RunBuilder builder(SourceKind::TensorBoard, "r", "r");
  const FramedScan scan = readTfEventsBytes(bytes, "f", "", builder);
  EXPECT_TRUE(scan.ok());
  EXPECT_EQ(builder.run().metrics.train.size(), 1u);
  ASSERT_EQ(builder.run().problems.size(), 1u);
  EXPECT_EQ(builder.run().problems[0], "f: 1 record(s) from byte 0 are not Event messages; skipped");
}

}  // namespace
}  // namespace traindeck
