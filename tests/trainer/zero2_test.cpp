// zero2 for real: `traindeck-train run` with ranks over Gloo on 127.0.0.1. Against ddp on the
// same ranks (accumulation, clipping by the global norm over shards, several padded buckets):
// the same losses and weights, and each rank holding only its shard of the optimizer state.
// Its checkpoints hold ddp's tensors under ddp's names, and one resumes as ddp on one rank.
// Every rank's system records carry its peak memory, and a killed rank ends the job as ddp's does.
#include <gtest/gtest.h>

#include <signal.h>

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
using test_support::metricsRecords;
using test_support::optimizerBytesInLog;
using test_support::readFile;
using test_support::relativeDifference;
using test_support::runJson;

// The tiny model made wide enough (about 440,000 parameters) for the smallest buckets (0.25 MB)
// to be several, each padded under zero2, and a clip low enough that every step clips.
const std::vector<std::string> kZero2Model = {"model.n_embd=128", "strategy.bucket_mb=0.25"};

std::vector<std::string> zero2Job(const std::string& kind, int ranks, int accum = 2, int microBatch = 4,
                                  bool wide = true) {
  std::vector<std::string> sets = {"strategy.kind=" + kind, "strategy.nproc_per_node=" + std::to_string(ranks),
                                   "strategy.micro_batch=" + std::to_string(microBatch),
                                   "strategy.grad_accum=" + std::to_string(accum), "optimizer.grad_clip=0.05"};
  if (wide) sets.insert(sets.end(), kZero2Model.begin(), kZero2Model.end());
  return sets;
}

// (step, loss, grad_norm) of every train record.
struct Zero2StepFigures {
  std::int64_t step;
  double loss, gradNorm;
};

std::vector<Zero2StepFigures> zero2Steps(const fs::path& runDir) {
  std::vector<Zero2StepFigures> steps;
  for (const JsonValue& record : metricsRecords(runDir, "train"))
    steps.push_back({record.integerOr("step", -1), record.numberOr("loss", NAN), record.numberOr("grad_norm", NAN)});
  return steps;
}

int zero2BucketsInLog(const fs::path& log) {
  std::smatch match;
  const std::string text = readFile(log);
  static const std::regex pattern("zero2, ([0-9]+) gradient buckets");
  return std::regex_search(text, match, pattern) ? std::stoi(match[1]) : -1;
}

void expectSameSteps(const std::vector<Zero2StepFigures>& a, const std::vector<Zero2StepFigures>& b, double tolerance) {
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].step, b[i].step);
    EXPECT_NEAR(a[i].loss, b[i].loss, tolerance * b[i].loss) << "step " << b[i].step;
    EXPECT_NEAR(a[i].gradNorm, b[i].gradNorm, 10 * tolerance * b[i].gradNorm) << "step " << b[i].step;
  }
}

class Zero2 : public test_support::TinyJobTest {
 protected:
  int train(const std::string& runName, const std::vector<std::string>& sets,
            const std::vector<std::string>& extra = {}) {
    return test_support::trainToEnd(m_dir, runName, sets, extra);
  }
};

TEST_F(Zero2, MatchesDdpWithAccumulationAndClippingAndShardsItsState) {
  ASSERT_EQ(train("ddp", zero2Job("ddp", 2)), 0);
  ASSERT_EQ(train("zero2", zero2Job("zero2", 2)), 0);
  const auto ddp = zero2Steps(m_dir / "ddp");
  ASSERT_EQ(ddp.size(), 10u);
  for (const Zero2StepFigures& s : ddp) EXPECT_GT(s.gradNorm, 0.05) << "step " << s.step << " did not clip";
  expectSameSteps(zero2Steps(m_dir / "zero2"), ddp, 1e-5);
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
    std::vector<std::string> sets = zero2Job(kind, 3, 1);
    sets.push_back("strategy.activation_checkpointing=true");
    return sets;
  };
  ASSERT_EQ(train("ddp", job("ddp")), 0);
  ASSERT_EQ(train("zero2", job("zero2")), 0);
  expectSameSteps(zero2Steps(m_dir / "zero2"), zero2Steps(m_dir / "ddp"), 1e-5);
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
    return zero2Job(kind, ranks, 2, microBatch, /*wide=*/false);
  };
  ASSERT_EQ(train("straight", job("zero2", 2, 4)), 0);
  ASSERT_EQ(train("ddp", job("ddp", 2, 4), {"--stop-at", "4"}), 0);
  ASSERT_EQ(train("zero2", job("zero2", 2, 4), {"--stop-at", "4"}), 0);
  const auto folder = [&](const std::string& run) {
    return (m_dir / run / "checkpoints" / Checkpointer::folderName(4)).string();
  };
  const LoadedCheckpoint fromDdp = Checkpointer::load(folder("ddp"));
  const LoadedCheckpoint fromZero2 = Checkpointer::load(folder("zero2"));
  using Tensors = std::map<std::string, torch::Tensor>;
  for (Tensors LoadedCheckpoint::*part : {&LoadedCheckpoint::model, &LoadedCheckpoint::optimizer}) {
    const Tensors& ddpTensors = fromDdp.*part;
    const Tensors& zero2Tensors = fromZero2.*part;
    ASSERT_EQ(zero2Tensors.size(), ddpTensors.size());
    for (const auto& [name, tensor] : ddpTensors) {
      const auto it = zero2Tensors.find(name);
      ASSERT_NE(it, zero2Tensors.end()) << name << " is missing from zero2's checkpoint";
      EXPECT_EQ(it->second.sizes(), tensor.sizes()) << name;
      if (name.rfind("rng/", 0) == 0) continue;  // random states: the same, but not float
      const double norm = tensor.to(torch::kDouble).norm().item().toDouble();
      const double off = (it->second.to(torch::kDouble) - tensor.to(torch::kDouble)).norm().item().toDouble();
      EXPECT_LE(off, 1e-4 * norm + 1e-9) << name;
    }
  }

  // The same global batch (1 rank x 8 instead of 2 x 4) carries on where zero2 stopped.
  ASSERT_EQ(train("zero2", job("ddp", 1, 8), {"--resume"}), 0);
  EXPECT_EQ(runJson(m_dir / "zero2").stringOr("status", ""), "finished");
  EXPECT_NE(readFile(m_dir / "zero2" / "logs" / "rank-0.log").find("resumed with 1 ranks from a checkpoint of 2"),
            std::string::npos);
  const auto straight = zero2Steps(m_dir / "straight");
  const auto resumed = zero2Steps(m_dir / "zero2");  // steps 1-4 from zero2, 5-10 from the resumed run
  expectSameSteps(resumed, straight, 1e-5);
  EXPECT_LT(
      relativeDifference(test_support::finalWeights(m_dir / "zero2"), test_support::finalWeights(m_dir / "straight")),
      1e-5);
}

TEST_F(Zero2, KilledRankTakesTheJobDownAndLeavesNoProcess) {
  std::vector<std::string> args = {"run", "--config", "job.yaml", "--run-dir", "killed"};
  for (const std::string& s : zero2Job("zero2", 2)) args.insert(args.end(), {"--set", s});
  args.insert(args.end(), {"--set", "schedule.max_steps=100000", "--set", "checkpoint.every=0"});
  const test_support::Child run = test_support::start(m_dir, args, "killed.out");
  const std::vector<int> ranks = test_support::waitForTraining(m_dir / "killed", 30);
  ASSERT_EQ(ranks.size(), 2u) << readFile(m_dir / "killed" / "run.json");
  ::kill(ranks[1], SIGKILL);
  EXPECT_EQ(test_support::finish(run), 1) << readFile(run.output);
  const std::string reason = runJson(m_dir / "killed").stringOr("exit_reason", "");
  EXPECT_NE(reason.find("rank 1 was killed by SIGKILL at step "), std::string::npos) << reason;
  EXPECT_TRUE(test_support::processesMentioning((m_dir / "killed").string()).empty());
}

}  // namespace
}  // namespace traindeck
