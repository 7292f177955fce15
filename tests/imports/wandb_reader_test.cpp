// .wandb files made by the fixture writer as W&B's datastore.py frames them: a record larger than
// a block (FIRST/LAST chunks across two 32 KiB blocks), a block ending in zero padding, a record
// cut short, damaged CRCs and a foreign header.
#include <gtest/gtest.h>

#include <cmath>

#include "fixture_writers.h"
#include "imports/leveldb_log.h"
#include "imports/run_discovery.h"
#include "imports/wandb_reader.h"
#include "imports/wandb_records.h"

namespace traindeck {
namespace {

using namespace fixtures;

// A history record of exactly `size` bytes (its padding item's length found by trying).
std::string historyOfSize(std::int64_t step, std::size_t size) {
  for (std::size_t pad = size > 48 ? size - 32 : size; pad-- > 0;) {
    std::string record = wandbHistory(step, {{"filler", "\"" + std::string(pad, 'x') + "\""}, {"loss", "1"}});
    if (record.size() == size) return record;
  }
  return {};
}

struct WandbFixture {
  ScratchDir dir{"wandb"};
  std::filesystem::path runFolder = dir.path() / "wandb" / "offline-run-20240611_120000-abc123";
  std::filesystem::path file = runFolder / "run-abc123.wandb";
  WandbLog log;
  std::vector<std::size_t> starts;  // where each record begins

  void build() {
    starts.push_back(log.add(wandbRun("abc123", "demo", "lucky-fox-1")));
    starts.push_back(
        log.add(wandbConfig({{"lr", "0.001"}, {"batch", R"({"desc": null, "value": 32})"}, {"_wandb", "{}"}})));
    starts.push_back(log.add(wandbHistory(0, {{"loss", "2.5"},
                                              {"train/lr", "0.001"},
                                              {"_timestamp", "1718000000.5"},
                                              {"_runtime", "3"},
                                              {"sample", R"({"_type": "image-file"})"}})));
    // 40 000 bytes: a FIRST chunk to the end of block 0, the LAST in block 1.
    starts.push_back(
        log.add(wandbHistory(1, {{"text", "\"" + std::string(40000, 'y') + "\""}, {"grad_norm", "0.75"}})));
    // A record that leaves 3 bytes of block 1, which the writer pads with zeros.
    const std::size_t left = WandbLog::kBlock - log.bytes().size() % WandbLog::kBlock;
    starts.push_back(log.add(historyOfSize(2, left - WandbLog::kHeader - 3)));
    starts.push_back(log.add(wandbHistory(3, {{"eval/loss", "2.75"}, {"accuracy", "NaN"}})));
  }
  void write() { writeFile(file, log.bytes()); }
};

TEST(WandbReader, ReadsRecordsAcrossTwoBlocksAndPadding) {
  WandbFixture f;
  f.build();
  ASSERT_GT(f.log.bytes().size(), WandbLog::kBlock);
  ASSERT_LT(f.starts[3], WandbLog::kBlock);       // the big record starts in block 0 ...
  ASSERT_EQ(f.starts[5] % WandbLog::kBlock, 0u);  // ... and padding put the last at block 2's start
  f.write();

  const std::vector<RunSource> found = findRuns(f.dir.path());
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].kind, SourceKind::Wandb);
  EXPECT_EQ(found[0].name, "wandb/offline-run-20240611_120000-abc123");
  const ImportedRun run = readRun(found[0]);
  EXPECT_TRUE(run.problems.empty()) << run.problems.front();
  EXPECT_FALSE(run.partialTail);
  EXPECT_EQ(run.name, "lucky-fox-1");
  ASSERT_NE(run.configValue("lr"), nullptr);
  EXPECT_EQ(*run.configValue("lr"), "0.001");
  ASSERT_NE(run.configValue("batch"), nullptr);
  EXPECT_EQ(*run.configValue("batch"), "32");
  EXPECT_EQ(run.configValue("_wandb"), nullptr);
  EXPECT_EQ(*run.configValue("wandb.project"), "demo");

  const TrainColumns& t = run.metrics.train;
  ASSERT_EQ(t.size(), 3u);
  EXPECT_EQ(t.step[0], 0);
  EXPECT_FLOAT_EQ(t.loss[0], 2.5f);
  EXPECT_DOUBLE_EQ(t.time[0], 1718000000.5);
  EXPECT_EQ(t.step[1], 1);
  EXPECT_FLOAT_EQ(t.gradNorm[1], 0.75f);
  EXPECT_TRUE(std::isnan(t.time[1]));
  EXPECT_EQ(t.step[2], 2);  // the padded record's loss
  EXPECT_FLOAT_EQ(t.loss[2], 1.0f);
  ASSERT_EQ(run.metrics.eval.size(), 1u);
  EXPECT_EQ(run.metrics.eval.step[0], 3);
  EXPECT_FLOAT_EQ(run.metrics.eval.valLoss[0], 2.75f);
  ASSERT_NE(run.scalar("train/lr"), nullptr);  // not a known name: kept as it is
  EXPECT_EQ(run.scalar("train/lr")->value[0], 0.001);
  ASSERT_NE(run.scalar("accuracy"), nullptr);
  EXPECT_TRUE(std::isnan(run.scalar("accuracy")->value[0]));
  EXPECT_EQ(run.scalar("_runtime"), nullptr);
  EXPECT_EQ(run.scalar("text"), nullptr);
  EXPECT_EQ(run.scalar("sample"), nullptr);
}

TEST(WandbReader, ARecordCutShortIsLeftForTheNextRead) {
  WandbFixture f;
  f.build();
  for (const std::size_t cut : {f.starts[3] + 100, WandbLog::kBlock + 10, f.log.bytes().size() - 1}) {
    RunBuilder builder(SourceKind::Wandb, "r", "r");
    const FramedScan scan = readWandbBytes(std::string_view(f.log.bytes()).substr(0, cut), "f", builder);
    EXPECT_TRUE(scan.ok()) << cut << ": " << scan.error;
    EXPECT_TRUE(scan.partialTail) << cut;
    EXPECT_TRUE(builder.run().problems.empty()) << cut;
    EXPECT_EQ(builder.run().name, "lucky-fox-1");
  }
  RunBuilder builder(SourceKind::Wandb, "r", "r");
  const FramedScan scan =
      readWandbBytes(std::string_view(f.log.bytes()).substr(0, WandbLog::kBlock + 10), "f", builder);
  EXPECT_EQ(scan.consumed, f.starts[3]);  // the split record is not whole yet
  EXPECT_EQ(builder.run().metrics.train.size(), 1u);
}

TEST(WandbReader, ACrcMismatchNamesFileAndByteAndKeepsTheRecordsBefore) {
  WandbFixture f;
  f.build();
  f.log.bytes()[f.starts[4] + 20] ^= 0x10;
  f.write();
  const ImportedRun run = readWandbRun(f.runFolder, "r");
  ASSERT_EQ(run.problems.size(), 1u);
  EXPECT_EQ(run.problems[0], f.file.string() + ": corrupt chunk at byte " + std::to_string(f.starts[4]) +
                                 " (CRC mismatch); the 4 records before it are read, the rest of the file is skipped");
  EXPECT_EQ(run.metrics.train.size(), 2u);
  EXPECT_EQ(run.metrics.eval.size(), 0u);
}

TEST(WandbReader, ADamagedChunkInsideASplitRecordIsNamedByItsOwnByte) {
  WandbFixture f;
  f.build();
  f.log.bytes()[WandbLog::kBlock + 100] ^= 0x01;  // inside the LAST chunk, which starts the block
  RunBuilder builder(SourceKind::Wandb, "r", "r");
  const FramedScan scan = readWandbBytes(f.log.bytes(), "f", builder);
  EXPECT_EQ(scan.error, "corrupt chunk at byte " + std::to_string(WandbLog::kBlock) + " (CRC mismatch)");
  EXPECT_EQ(scan.records, 3u);
}

TEST(WandbReader, AForeignHeaderIsAProblem) {
  WandbFixture f;
  f.build();
  f.log.bytes()[4] = 0;  // the magic
  RunBuilder builder(SourceKind::Wandb, "r", "r");
  const FramedScan scan = readWandbBytes(f.log.bytes(), "f", builder);
  EXPECT_EQ(scan.error, "no W&B header (\":W&B\", 0xBEE1, version 0 or 1) at byte 0");
  EXPECT_EQ(builder.run().metrics.train.size(), 0u);
}

TEST(WandbReader, HistoryWithoutAStepCountsOnFromTheLast) {
  WandbLog log;
  log.add(Proto().message(2, Proto().message(1, Proto().bytes(1, "loss").bytes(16, "3"))).str());
  log.add(Proto()
              .message(2, Proto()
                              .message(1, Proto().bytes(1, "loss").bytes(16, "2"))
                              .message(1, Proto().bytes(1, "_step").bytes(16, "7")))
              .str());
  log.add(Proto().message(2, Proto().message(1, Proto().bytes(1, "loss").bytes(16, "1"))).str());
  RunBuilder builder(SourceKind::Wandb, "r", "r");
  readWandbBytes(log.bytes(), "f", builder);
  const TrainColumns& t = builder.run().metrics.train;
  ASSERT_EQ(t.size(), 3u);
  EXPECT_EQ(t.step[0], 0);
  EXPECT_EQ(t.step[1], 7);
  EXPECT_EQ(t.step[2], 8);
}

TEST(WandbReader, VersionOneAutoStepsCountOnFromTheRunsStartingStep) {
  WandbLog log(1);  // version 1: an auto-step row has neither a HistoryStep nor _step
  log.add(Proto().message(17, Proto().bytes(1, "r1").varint(14, 100)).str());
  log.add(Proto().message(2, Proto().message(1, Proto().bytes(1, "loss").bytes(16, "3"))).str());
  log.add(Proto().message(2, Proto().message(1, Proto().bytes(1, "loss").bytes(16, "2"))).str());
  RunBuilder builder(SourceKind::Wandb, "r", "r");
  const FramedScan scan = readWandbBytes(log.bytes(), "f", builder);
  EXPECT_TRUE(scan.ok()) << scan.error;
  const TrainColumns& t = builder.run().metrics.train;
  ASSERT_EQ(t.size(), 2u);
  EXPECT_EQ(t.step[0], 100);
  EXPECT_EQ(t.step[1], 101);
  EXPECT_FLOAT_EQ(t.loss[1], 2.0f);
}

}  // namespace
}  // namespace traindeck
