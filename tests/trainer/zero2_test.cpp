// zero2 for real: `traindeck-train run` with ranks over Gloo on 127.0.0.1. Against ddp on the
// same ranks (accumulation, clipping by the global norm over shards, several padded buckets):
// the same losses and weights, and each rank holding only its shard of the optimizer state.
// Its checkpoints hold ddp's tensors under ddp's names, and one resumes as ddp on one rank.
// Every rank's system records carry its peak memory, and a killed rank ends the job as ddp's does.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "config/config_io.h"
#include "config/planner.h"
#include "train_processes.h"
#include "trainer/train/checkpointer.h"

namespace traindeck {
namespace {

namespace fs = std::filesystem;
using test_support::expectSameSteps;
using test_support::metricsRecords;
using test_support::optimizerBytesInLog;
using test_support::readFile;
using test_support::relativeDifference;
using test_support::runJson;
using test_support::shardingJob;
using test_support::trainSteps;

int zero2BucketsInLog(const fs::path& log) {
  std::smatch match;
  const std::string text = readFile(log);
  static const std::regex pattern("zero2, ([0-9]+) gradient buckets");
  return std::regex_search(text, match, pattern) ? std::stoi(match[1]) : -1;
}

class Zero2 : public test_support::TinyJobTest {
 protected:
  int train(const std::string& runName, const std::vector<std::string>& sets,
            const std::vector<std::string>& extra = {}) {
    return test_support::trainToEnd(m_dir, runName, sets, extra);
  }
};

TEST_F(Zero2, MatchesDdpWithAccumulationAndClippingAndShardsItsState) {
  ASSERT_EQ(train("ddp", shardingJob("ddp", 2)), 0);
  ASSERT_EQ(train("zero2", shardingJob("zero2", 2)), 0);
  const auto ddp = trainSteps(m_dir / "ddp");
  ASSERT_EQ(ddp.size(), 10u);
  for (const test_support::StepFigures& s : ddp) EXPECT_GT(s.gradNorm, 0.05) << "step " << s.step << " did not clip";
  expectSameSteps(trainSteps(m_dir / "zero2"), ddp, 1e-5);
  const double difference =
      relativeDifference(test_support::finalWeights(m_dir / "zero2"), test_support::finalWeights(m_dir / "ddp"));
  std::cout << "zero2 against ddp, 2 ranks x 2 micro-steps, after 10 steps: relative difference " << difference << "\n";
  EXPECT_LT(difference, 1e-5);

  // Each rank's moments cover its chunk of every bucket: together the whole, each about half,
  // off by at most the padding of each bucket.
  const std::int64_t whole = optimizerBytesInLog(m_dir / "ddp" / "logs" / "rank-0.log");
  const std::int64_t shard0 = optimizerBytesInLog(m_dir / "zero2" / "logs" / "rank-0.log");
  const std::int64_t shard1 = optimizerBytesInLog(m_dir / "zero2" / "logs" / "rank-1.log");
  const int buckets = zero2BucketsInLog(m_dir / "zero2" / "logs" / "rank-0.log");
  std::cout << "optimizer state bytes: ddp " << whole << " per rank; zero2 " << shard0 << " + " << shard1 << " in "
            << buckets << " buckets\n";
  ASSERT_GT(whole, 0);
  EXPECT_GT(buckets, 2);
  EXPECT_EQ(shard0 + shard1, whole);
  EXPECT_LE(std::abs(shard0 - whole / 2), 8 * buckets);

  const LoadedConfig job = loadConfigFile((m_dir / "zero2" / "config.yaml").string());
  const Plan plan = makePlan(job.config, thisMachineCpu());
  EXPECT_EQ(plan.memory.optimizer * 2, whole);
  EXPECT_LE(std::abs(plan.memory.gradients * 2 - whole / 2), 4);  // fp32 gradients: half the moments' bytes

  // Every rank reports its peak: on the CPU the resident high-water mark, never below the
  // resident size sampled with it.
  std::set<std::int64_t> ranksWithPeak;
  for (const JsonValue& record : metricsRecords(m_dir / "zero2", "system")) {
    const std::int64_t peak = record.integerOr("mem_peak", -1);
    EXPECT_GE(peak, record.integerOr("mem_used", 0)) << "rank " << record.integerOr("rank", -1);
    if (peak > 0) ranksWithPeak.insert(record.integerOr("rank", -1));
  }
  EXPECT_EQ(ranksWithPeak, (std::set<std::int64_t>{0, 1}));
}

// With activation checkpointing: the recomputed blocks' gradients reach the buckets as well.
TEST_F(Zero2, ThreeRanksMatchDdpThoughNothingDividesEvenly) {
  const auto job = [](const std::string& kind) {
    std::vector<std::string> sets = shardingJob(kind, 3, 1);
    sets.push_back("strategy.activation_checkpointing=true");
    return sets;
  };
  ASSERT_EQ(train("ddp", job("ddp")), 0);
  ASSERT_EQ(train("zero2", job("zero2")), 0);
  expectSameSteps(trainSteps(m_dir / "zero2"), trainSteps(m_dir / "ddp"), 1e-5);
  EXPECT_LT(relativeDifference(test_support::finalWeights(m_dir / "zero2"), test_support::finalWeights(m_dir / "ddp")),
            1e-5);
  std::int64_t shards = 0;
  for (int r = 0; r < 3; ++r)
    shards += optimizerBytesInLog(m_dir / "zero2" / "logs" / ("rank-" + std::to_string(r) + ".log"));
  EXPECT_EQ(shards, optimizerBytesInLog(m_dir / "ddp" / "logs" / "rank-0.log"));
}

// The tiny model as it is (one bucket) keeps the four runs short.
TEST_F(Zero2, CheckpointHoldsDdpsTensorsAndResumesAsDdpOnOneRank) {
  const auto job = [](const std::string& kind, int ranks, int microBatch) {
    return shardingJob(kind, ranks, 2, microBatch, /*wide=*/false);
  };
  ASSERT_EQ(train("straight", job("zero2", 2, 4)), 0);
  ASSERT_EQ(train("ddp", job("ddp", 2, 4), {"--stop-at", "4"}), 0);
  ASSERT_EQ(train("zero2", job("zero2", 2, 4), {"--stop-at", "4"}), 0);
  const auto folder = [&](const std::string& run) {
    return (m_dir / run / "checkpoints" / Checkpointer::folderName(4)).string();
  };
  test_support::expectSameCheckpointTensors(folder("zero2"), folder("ddp"));

  // The same global batch (1 rank x 8 instead of 2 x 4) carries on where zero2 stopped.
  ASSERT_EQ(train("zero2", job("ddp", 1, 8), {"--resume"}), 0);
  EXPECT_EQ(runJson(m_dir / "zero2").stringOr("status", ""), "finished");
  EXPECT_NE(readFile(m_dir / "zero2" / "logs" / "rank-0.log").find("resumed with 1 ranks from a checkpoint of 2"),
            std::string::npos);
  const auto straight = trainSteps(m_dir / "straight");
  const auto resumed = trainSteps(m_dir / "zero2");  // steps 1-4 from zero2, 5-10 from the resumed run
  expectSameSteps(resumed, straight, 1e-5);
  EXPECT_LT(
      relativeDifference(test_support::finalWeights(m_dir / "zero2"), test_support::finalWeights(m_dir / "straight")),
      1e-5);
}

TEST_F(Zero2, KilledRankTakesTheJobDownAndLeavesNoProcess) {
  test_support::expectKilledRankEndsTheJob(m_dir, shardingJob("zero2", 2));
}

}  // namespace
}  // namespace traindeck
