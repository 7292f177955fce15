// Data-parallel training for real: `traindeck-train run` supervising worker processes that talk
// over Gloo on 127.0.0.1. Equivalence (2 ranks x B against 1 rank x 2B, zero1 against ddp),
// zero1's sharded state, resume, two nodes, and the failures the supervisor must handle.
#include <gtest/gtest.h>

#include <signal.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <thread>

#include "config/config_io.h"
#include "config/planner.h"
#include "launcher/supervisor.h"
#include "runlog/json_value.h"
#include "runlog/run_directory.h"
#include "train_processes.h"
#include "trainer/train/checkpointer.h"

namespace traindeck {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

using test_support::Child;
using test_support::finalWeights;
using test_support::finish;
using test_support::optimizerBytesInLog;
using test_support::processesMentioning;
using test_support::readFile;
using test_support::relativeDifference;
using test_support::runJson;
using test_support::secondsSince;
using test_support::start;
using test_support::waitForTraining;

class Distributed : public test_support::TinyJobTest {
 protected:
  // Runs `run --config job.yaml --run-dir NAME` with overrides to the end; returns the exit code.
  int train(const std::string& runName, const std::vector<std::string>& sets,
            const std::vector<std::string>& extra = {}) {
    return test_support::trainToEnd(m_dir, runName, sets, extra);
  }
};

const std::vector<std::string> kDdp2 = {"strategy.kind=ddp", "strategy.nproc_per_node=2", "strategy.micro_batch=4"};
const std::vector<std::string> kZero2 = {"strategy.kind=zero1", "strategy.nproc_per_node=2", "strategy.micro_batch=4"};

TEST_F(Distributed, TwoRanksMatchOneRankWithTheWholeBatch) {
  ASSERT_EQ(train("one", {"strategy.micro_batch=8"}), 0);
  ASSERT_EQ(train("two", kDdp2), 0);
  const double difference = relativeDifference(finalWeights(m_dir / "two"), finalWeights(m_dir / "one"));
  std::cout << "ddp 2x4 against single 1x8 after 10 steps: relative difference " << difference << "\n";
  EXPECT_LT(difference, 1e-5);
  // The logged loss is the mean over both ranks' batches: the one-rank run's loss.
  const auto lastLoss = [&](const std::string& run) {
    double loss = 0;
    std::istringstream lines(readFile(m_dir / run / "metrics.jsonl"));
    for (std::string line; std::getline(lines, line);)
      if (line.find("\"kind\":\"train\"") != std::string::npos) loss = parseJson(line).value.numberOr("loss", 0);
    return loss;
  };
  EXPECT_NEAR(lastLoss("two"), lastLoss("one"), 1e-4 * lastLoss("one"));
}

TEST_F(Distributed, GradientAccumulationAcrossRanksMatchesToo) {
  ASSERT_EQ(train("one", {"strategy.micro_batch=4", "strategy.grad_accum=4"}), 0);
  ASSERT_EQ(train("two", {"strategy.kind=ddp", "strategy.nproc_per_node=2", "strategy.micro_batch=4",
                          "strategy.grad_accum=2", "strategy.bucket_mb=0.25"}),
            0);
  const double difference = relativeDifference(finalWeights(m_dir / "two"), finalWeights(m_dir / "one"));
  std::cout << "ddp 2 ranks x 2 micro-steps against 1 rank x 4 micro-steps: relative difference " << difference << "\n";
  EXPECT_LT(difference, 1e-5);
}

TEST_F(Distributed, Zero1MatchesDdpAndShardsTheOptimizerState) {
  ASSERT_EQ(train("ddp", kDdp2), 0);
  ASSERT_EQ(train("zero1", kZero2), 0);
  const double difference = relativeDifference(finalWeights(m_dir / "zero1"), finalWeights(m_dir / "ddp"));
  std::cout << "zero1 against ddp, 2 ranks, after 10 steps: relative difference " << difference << "\n";
  EXPECT_LT(difference, 1e-5);
  const auto final = [&](const std::string& run) {
    return (m_dir / run / "checkpoints" / Checkpointer::folderName(10)).string();
  };
  test_support::expectSameCheckpointTensors(final("zero1"), final("ddp"));

  const std::int64_t whole = optimizerBytesInLog(m_dir / "ddp" / "logs" / "rank-0.log");
  const std::int64_t shard0 = optimizerBytesInLog(m_dir / "zero1" / "logs" / "rank-0.log");
  const std::int64_t shard1 = optimizerBytesInLog(m_dir / "zero1" / "logs" / "rank-1.log");
  std::cout << "optimizer state bytes: ddp " << whole << " per rank; zero1 " << shard0 << " + " << shard1 << "\n";
  ASSERT_GT(whole, 0);
  EXPECT_EQ(shard0 + shard1, whole);
  EXPECT_LE(std::abs(shard0 - whole / 2), 8);
  // The planner's zero1 figure is what a rank allocates.
  const LoadedConfig job = loadConfigFile((m_dir / "zero1" / "config.yaml").string());
  const Plan plan = makePlan(job.config, thisMachineCpu());
  EXPECT_EQ(plan.memory.optimizer * 2, whole);
  EXPECT_LE(std::abs(std::max(shard0, shard1) - plan.memory.optimizer), 8);
}

TEST_F(Distributed, ResumeIsExactAndZero1ResumesOnAnotherWorldSize) {
  ASSERT_EQ(train("straight", kDdp2), 0);
  ASSERT_EQ(train("resumed", kDdp2, {"--stop-at", "4"}), 0);
  EXPECT_EQ(runJson(m_dir / "resumed").stringOr("status", ""), "stopped");
  ASSERT_EQ(train("resumed", kDdp2, {"--resume"}), 0);
  EXPECT_EQ(relativeDifference(finalWeights(m_dir / "resumed"), finalWeights(m_dir / "straight")), 0.0);

  ASSERT_EQ(train("zero1", kZero2, {"--stop-at", "4"}), 0);
  ASSERT_EQ(
      train("zero1", {"strategy.kind=zero1", "strategy.nproc_per_node=3", "strategy.micro_batch=4"}, {"--resume"}), 0);
  EXPECT_EQ(runJson(m_dir / "zero1").stringOr("status", ""), "finished");
  EXPECT_NE(readFile(m_dir / "zero1" / "logs" / "rank-0.log").find("resumed with 3 ranks from a checkpoint of 2"),
            std::string::npos);
  EXPECT_NE(readFile(m_dir / "zero1" / "logs" / "rank-2.log").find("resumed from"), std::string::npos);
}

TEST_F(Distributed, TwoNodesTrainOneJob) {
  ASSERT_EQ(train("onenode", kDdp2), 0);
  const int port = pickFreePort("127.0.0.1");
  ASSERT_GT(port, 0);
  std::vector<Child> nodes;
  for (int node = 0; node < 2; ++node)
    nodes.push_back(start(m_dir,
                          {"run", "--config", "job.yaml", "--run-dir", "node" + std::to_string(node), "--set",
                           "strategy.kind=ddp", "--set", "strategy.micro_batch=4", "--nnodes", "2", "--node-rank",
                           std::to_string(node), "--master-addr", "127.0.0.1", "--master-port", std::to_string(port)},
                          "node" + std::to_string(node) + ".out"));
  for (const Child& node : nodes) EXPECT_EQ(finish(node), 0) << readFile(node.output);
  EXPECT_EQ(runJson(m_dir / "node0").integerOr("world_size", 0), 2);
  EXPECT_TRUE(fs::exists(m_dir / "node1" / "logs" / "rank-1.log"));
  EXPECT_FALSE(fs::exists(m_dir / "node1" / "metrics.jsonl"));  // rank 0 alone writes metrics
  // One job over two nodes trains as two ranks on one node (not bitwise: a rank alone on its
  // node computes with both cores, which sums in another order).
  EXPECT_LT(relativeDifference(finalWeights(m_dir / "node0"), finalWeights(m_dir / "onenode")), 1e-6);
}

TEST_F(Distributed, MissingRankFailsTheRendezvousNamingIt) {
  const int port = pickFreePort("127.0.0.1");
  const auto started = Clock::now();
  const Child node0 = start(
      m_dir,
      {"run", "--config", "job.yaml", "--run-dir", "alone", "--set", "strategy.kind=ddp", "--set",
       "strategy.rendezvous_timeout_s=10", "--nnodes", "2", "--node-rank", "0", "--master-port", std::to_string(port)},
      "alone.out");
  EXPECT_EQ(finish(node0), 1);
  EXPECT_LT(secondsSince(started), 25.0);
  const std::string reason = runJson(m_dir / "alone").stringOr("exit_reason", "");
  EXPECT_NE(reason.find("rendezvous timed out after 10 s: rank 1 never arrived"), std::string::npos) << reason;
  EXPECT_EQ(runJson(m_dir / "alone").stringOr("status", ""), "failed");
}

TEST_F(Distributed, HungRankFailsTheJobAtTheCollectiveTimeout) {
  const Child run = start(m_dir,
                          {"run", "--config", "job.yaml", "--run-dir", "hung", "--set", "strategy.kind=ddp", "--set",
                           "strategy.nproc_per_node=2", "--set", "strategy.collective_timeout_s=3", "--set",
                           "schedule.max_steps=100000", "--set", "checkpoint.every=0"},
                          "hung.out");
  const std::vector<int> ranks = waitForTraining(m_dir / "hung", 30);
  ASSERT_EQ(ranks.size(), 2u) << readFile(m_dir / "hung" / "run.json");
  ::kill(ranks[1], SIGSTOP);
  const auto stopped = Clock::now();
  EXPECT_EQ(finish(run), 1);
  EXPECT_LT(secondsSince(stopped), 15.0);
  const std::string reason = runJson(m_dir / "hung").stringOr("exit_reason", "");
  EXPECT_NE(reason.find("rank 1 was stopped"), std::string::npos) << reason;
  EXPECT_TRUE(processesMentioning((m_dir / "hung").string()).empty());
}

TEST_F(Distributed, StopSignalCheckpointsEveryRankAndResumeContinues) {
  const Child run =
      start(m_dir,
            {"run", "--config", "job.yaml", "--run-dir", "stop", "--set", "strategy.kind=zero1", "--set",
             "strategy.nproc_per_node=2", "--set", "schedule.max_steps=100000", "--set", "checkpoint.every=0"},
            "stop.out");
  ASSERT_EQ(waitForTraining(m_dir / "stop", 30).size(), 2u) << readFile(m_dir / "stop" / "run.json");
  ::kill(run.pid, SIGTERM);
  EXPECT_EQ(finish(run), 0) << readFile(run.output);
  const JsonValue info = runJson(m_dir / "stop");
  EXPECT_EQ(info.stringOr("status", ""), "stopped");
  const std::int64_t step = info.integerOr("step", 0);
  EXPECT_TRUE(fs::exists(m_dir / "stop" / "checkpoints" / Checkpointer::folderName(step) / "COMPLETE")) << step;
  EXPECT_TRUE(processesMentioning((m_dir / "stop").string()).empty());

  const Child resumed =
      start(m_dir, {"run", "--run-dir", "stop", "--resume", "--stop-at", std::to_string(step + 3)}, "resume.out");
  EXPECT_EQ(finish(resumed), 0) << readFile(resumed.output);
  EXPECT_EQ(runJson(m_dir / "stop").integerOr("step", 0), step + 3);
}

TEST_F(Distributed, KilledRankTakesTheJobDownAndLeavesNoProcess) {
  std::mt19937 random(11);
  for (int round = 0; round < 10; ++round) {
    const std::string name = "kill" + std::to_string(round);
    const Child run =
        start(m_dir,
              {"run", "--config", "job.yaml", "--run-dir", name, "--set", "strategy.kind=ddp", "--set",
               "strategy.nproc_per_node=2", "--set", "schedule.max_steps=100000", "--set", "checkpoint.every=3"},
              name + ".out");
    const std::vector<int> ranks = waitForTraining(m_dir / name, 30);
    ASSERT_EQ(ranks.size(), 2u) << readFile(m_dir / name / "run.json");
    std::this_thread::sleep_for(std::chrono::milliseconds(random() % 1500));
    const int victim = static_cast<int>(random() % 2);
    ::kill(ranks[static_cast<std::size_t>(victim)], SIGKILL);
    const auto killed = Clock::now();
    EXPECT_EQ(finish(run), 1) << readFile(run.output);
    EXPECT_LT(secondsSince(killed), 5.0);
    const std::string reason = runJson(m_dir / name).stringOr("exit_reason", "");
    EXPECT_NE(reason.find("rank " + std::to_string(victim) + " was killed by SIGKILL at step "), std::string::npos)
        << reason;
    // The app reads run.json through core/runlog's reader: the failed rank is a field.
    const RunInfoReadResult read = readRunInfo(RunPaths{(m_dir / name).string()});
    ASSERT_TRUE(read.ok()) << read.error;
    EXPECT_EQ(read.info.status, RunStatus::Failed);
    EXPECT_EQ(read.info.failedRank, victim);
    EXPECT_EQ(read.info.exitReason, reason);
    for (int pid : ranks) EXPECT_FALSE(fs::exists("/proc/" + std::to_string(pid))) << "rank pid " << pid << " left";
    EXPECT_TRUE(processesMentioning((m_dir / name).string()).empty());
  }
}

}  // namespace
}  // namespace traindeck
