// The verdicts the app writes into run.json (core/runlog/run_verdict): "killed" only where no
// verdict is there yet, written once; "failed" whatever was there; a missing run.json gets the
// identity given; every other field stays as the run wrote it.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "runlog/run_verdict.h"

namespace traindeck {
namespace {

class RunVerdict : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (std::filesystem::temp_directory_path() / "run-verdict-XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    m_paths.root = pattern;
  }
  void TearDown() override { std::filesystem::remove_all(m_paths.root); }

  void write(RunStatus status, const std::string& reason = {}) {
    RunInfo info;
    info.id = "20261203-101500-demo";
    info.name = "我的第一个模型";
    info.host = "laptop";
    info.worldSize = 2;
    info.supervisorPid = 4242;
    info.step = 37;
    info.status = status;
    info.exitReason = reason;
    ASSERT_EQ(writeRunInfo(m_paths, info), "");
  }
  RunInfo read() const {
    const RunInfoReadResult r = readRunInfo(m_paths);
    EXPECT_TRUE(r.ok()) << r.error;
    return r.info;
  }

  RunPaths m_paths;
};

TEST_F(RunVerdict, ARunningRunFoundDeadIsKilledOnceAndKeepsItsFields) {
  write(RunStatus::Running);
  EXPECT_TRUE(markRunKilled(m_paths, "killed from TrainDeck"));
  RunInfo info = read();
  EXPECT_EQ(info.status, RunStatus::Killed);
  EXPECT_EQ(info.exitReason, "killed from TrainDeck");
  EXPECT_EQ(info.name, "我的第一个模型");
  EXPECT_EQ(info.step, 37);
  EXPECT_EQ(info.worldSize, 2);
  // Found dead again (another window, the command line): the first verdict stays.
  EXPECT_FALSE(markRunKilled(m_paths, "found dead later"));
  EXPECT_EQ(read().exitReason, "killed from TrainDeck");
}

TEST_F(RunVerdict, ARunThatSaidHowItEndedIsNotCalledKilled) {
  for (const RunStatus ended : {RunStatus::Finished, RunStatus::Stopped, RunStatus::Failed}) {
    write(ended, "its own words");
    EXPECT_FALSE(markRunKilled(m_paths, "killed"));
    EXPECT_EQ(read().status, ended);
    EXPECT_EQ(read().exitReason, "its own words");
  }
  write(RunStatus::Starting);
  EXPECT_TRUE(markRunKilled(m_paths, "killed while starting"));
  EXPECT_EQ(read().status, RunStatus::Killed);
}

// A "requeued" whose job never came back (a cancel read as a preemption) is not a final verdict:
// the killed one is written over it, with its cause; once killed, it stays.
TEST_F(RunVerdict, ARequeuedRunThatDidNotComeBackIsKilledWithItsCause) {
  write(RunStatus::Requeued, "Slurm preempted the job or its time ran out (SIGTERM)");
  EXPECT_TRUE(markRunKilled(m_paths, "cancelled through Slurm: job 17 was cancelled", {}, EndCause::Cancelled));
  EXPECT_EQ(read().status, RunStatus::Killed);
  EXPECT_EQ(read().endCause, EndCause::Cancelled);
  EXPECT_EQ(read().exitReason, "cancelled through Slurm: job 17 was cancelled");
  EXPECT_FALSE(markRunKilled(m_paths, "again", {}, EndCause::Asked));
  EXPECT_EQ(read().endCause, EndCause::Cancelled);
}

TEST_F(RunVerdict, AFailureIsWrittenWhateverWasThereAndNamesItsRank) {
  write(RunStatus::Failed, "rank 0: connection reset");
  ASSERT_EQ(markRunFailed(m_paths, "node 1 was killed", {}, 1), "");
  const RunInfo info = read();
  EXPECT_EQ(info.status, RunStatus::Failed);
  EXPECT_EQ(info.exitReason, "node 1 was killed");
  EXPECT_EQ(info.failedRank, 1);
  EXPECT_EQ(info.id, "20261203-101500-demo");  // the run's own, not the identity's
}

TEST_F(RunVerdict, ARunWithoutRunJsonGetsOneWithTheIdentityGiven) {
  ASSERT_EQ(markRunFailed(m_paths, "Runtime gone: the host restarted", {.id = "r1", .name = "n", .host = "vm"}), "");
  RunInfo info = read();
  EXPECT_EQ(info.id, "r1");
  EXPECT_EQ(info.name, "n");
  EXPECT_EQ(info.host, "vm");
  EXPECT_FALSE(info.created.empty());
  EXPECT_EQ(info.status, RunStatus::Failed);

  std::filesystem::remove(m_paths.runJson());
  std::ofstream(m_paths.runJson()) << "{\"status\":\"runn";  // cut short: no verdict in it
  EXPECT_TRUE(markRunKilled(m_paths, "killed", {.id = "r2", .name = {}, .host = {}}));
  info = read();
  EXPECT_EQ(info.status, RunStatus::Killed);
  EXPECT_EQ(info.id, "r2");
}

}  // namespace
}  // namespace traindeck
