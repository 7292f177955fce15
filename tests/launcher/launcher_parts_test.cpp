// The launcher's parts on their own: following a growing file line by line, the train step
// from metrics.jsonl, the error line of a log, exit reasons, signal names, and environments.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <fstream>

#include "launcher/error_line.h"
#include "launcher/line_tail.h"
#include "launcher/rank_environment.h"
#include "launcher/rank_exit.h"
#include "launcher/signal_names.h"
#include "launcher/step_follower.h"
#include "launcher/supervisor.h"
#include "launcher_test_util.h"
#include "runlog/metrics_jsonl_parser.h"
#include "runlog/run_directory.h"
#include "runlog/utf8.h"

namespace traindeck {
namespace {

using testing::writeFile;

void append(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary | std::ios::app) << text;
}

// Wait statuses as waitpid() reports them (the encoding Linux uses).
int exitedWith(int code) {
  return code << 8;
}
int killedBy(int signal) {
  return signal;
}

TEST(LineTail, HandsOutCompleteLinesAndHoldsThePartialOne) {
  testing::TempDir dir;
  const std::string path = dir.path() + "/log";
  LineTail tail(path);
  EXPECT_TRUE(tail.readNewLines().empty());  // not there yet

  writeFile(path, "one\ntw");
  EXPECT_EQ(tail.readNewLines(), std::vector<std::string>{"one"});
  EXPECT_TRUE(tail.readNewLines().empty());
  append(path, "o\n\nthree");
  EXPECT_EQ(tail.readNewLines(), (std::vector<std::string>{"two", ""}));
  EXPECT_EQ(tail.takePartialLine(), "three");
}

TEST(LineTail, StartsAtItsOffsetAndRestartsWhenTheFileShrinks) {
  testing::TempDir dir;
  const std::string path = dir.path() + "/log";
  writeFile(path, "old\n");
  LineTail tail(path, 4);
  append(path, "new\n");
  EXPECT_EQ(tail.readNewLines(), std::vector<std::string>{"new"});
  writeFile(path, "x\n");
  EXPECT_EQ(tail.readNewLines(), std::vector<std::string>{"x"});
}

TEST(StepFollower, KeepsTheStepOfTheLastTrainRecord) {
  testing::TempDir dir;
  const std::string path = dir.path() + "/metrics.jsonl";
  StepFollower steps(path);
  EXPECT_FALSE(steps.update());
  EXPECT_FALSE(steps.sawTrainRecord());

  const std::string records[] = {
      R"({"kind":"header","schema":1,"start_step":0})",
      R"({"kind":"train","time":1,"step":10,"loss":3})",
      "garbage {",
      R"({"kind":"eval","time":2,"step":99,"val_loss":3})",
  };
  for (const std::string& r : records) append(path, r + "\n");
  append(path, R"({"kind":"train","time":3,"step":20)");  // partial: not read yet
  EXPECT_TRUE(steps.update());
  EXPECT_EQ(steps.lastStep(), 10);
  append(path, ",\"loss\":2.5}\n");
  EXPECT_TRUE(steps.update());
  EXPECT_EQ(steps.lastStep(), 20);
  EXPECT_FALSE(steps.update());
}

// The supervisor's step (run.json, "at step N") is the one the app's charts end at.
TEST(StepFollower, ReadsTheRecordsTheMetricsParserReads) {
  testing::TempDir dir;
  const std::string path = dir.path() + "/metrics.jsonl";
  const std::string text = R"({"kind":"train","time":1,"step":10,"loss":3}
{ "kind" : "train" , "time" : 2 , "step" : 12 , "loss" : 2.9 }
{"kind":"train","time":3,"step":"13","loss":2.8}
{"kind":"event","time":4,"step":40,"level":"info","rank":0,"msg":"train"}
)";
  append(path, text);
  StepFollower steps(path);
  EXPECT_TRUE(steps.update());
  const MetricsBatch parsed = MetricsJsonlParser().feed(text);
  ASSERT_GT(parsed.train.size(), 0u);
  EXPECT_EQ(steps.lastStep(), parsed.train.step.back());
  EXPECT_EQ(steps.lastStep(), 12);  // spaced JSON counts; a step in quotes and other kinds do not
}

TEST(ErrorLine, FindsTheLastErrorLineOfThisRun) {
  testing::TempDir dir;
  const std::string path = dir.path() + "/rank-0.log";
  const std::string earlier = "2024-05-01T11:00:00Z error: earlier attempt\n";
  writeFile(path, earlier +
                      "2024-05-01T12:00:00Z info: step 1\n"
                      "2024-05-01T12:00:01Z error: first\n"
                      "RuntimeError: second\n"
                      "2024-05-01T12:00:02Z info: bye\n");
  EXPECT_EQ(lastErrorLine(path, static_cast<std::int64_t>(earlier.size())), "RuntimeError: second");
  writeFile(path, earlier);
  EXPECT_EQ(lastErrorLine(path, static_cast<std::int64_t>(earlier.size())), "");
  EXPECT_EQ(lastErrorLine(path, 0), "error: earlier attempt");
  EXPECT_EQ(lastErrorLine(dir.path() + "/missing.log", 0), "");
}

// A long error line in Chinese is cut at 300 bytes between characters, never inside one, and
// the failed run's run.json, which carries it as the reason, reads back with status and reason.
TEST(ErrorLine, CutsALongLineBetweenCharactersAndRunJsonReadsBack) {
  testing::TempDir dir;
  const std::string path = dir.path() + "/rank-0.log";
  const std::string shu = "\xE6\x95\xB0";  // 数, three bytes
  const std::string head = "FileNotFoundError: /data/";
  std::string line = head;
  while (line.size() < 400) line += shu;
  ASSERT_NE((300 - head.size()) % shu.size(), 0u) << "byte 300 must fall inside a character";
  writeFile(path, "2024-05-01T12:00:00Z info: step 1\n2024-05-01T12:00:01Z " + line + "\n");

  const std::string reason = lastErrorLine(path, 0);
  const std::size_t kept = head.size() + (300 - head.size()) / shu.size() * shu.size();
  EXPECT_EQ(reason, line.substr(0, kept) + "...");
  EXPECT_TRUE(isValidUtf8(reason));

  RunInfo info;
  info.name = "\xE4\xB8\xAD\xE6\x96\x87";  // 中文
  info.status = RunStatus::Failed;
  info.exitReason = "rank 0 exited with code 1: " + reason;
  info.failedRank = 0;
  const RunPaths paths{dir.path()};
  ASSERT_EQ(writeRunInfo(paths, info), "");
  const RunInfoReadResult read = readRunInfo(paths);
  ASSERT_TRUE(read.ok()) << read.error;
  EXPECT_EQ(read.info.status, RunStatus::Failed);
  EXPECT_EQ(read.info.exitReason, info.exitReason);
  EXPECT_EQ(read.info.name, info.name);
  EXPECT_EQ(read.info.failedRank, 0);
}

TEST(ErrorLine, RemovesOnlyATimestampPrefix) {
  EXPECT_EQ(withoutTimestamp("2024-05-01T12:00:01Z error: x"), "error: x");
  EXPECT_EQ(withoutTimestamp("2024-05-01T12:00:01.123+02:00 warn: y"), "warn: y");
  EXPECT_EQ(withoutTimestamp("error: 2024-05-01T12:00:01Z"), "error: 2024-05-01T12:00:01Z");
  EXPECT_EQ(withoutTimestamp("short"), "short");
}

TEST(RankExit, ClassifiesExitCodesAndSignals) {
  EXPECT_EQ(classifyRankExit(exitedWith(0), false), RankOutcome::Finished);
  EXPECT_EQ(classifyRankExit(exitedWith(kWorkerStopped), false), RankOutcome::Stopped);
  EXPECT_EQ(classifyRankExit(exitedWith(1), true), RankOutcome::Failed);
  EXPECT_EQ(classifyRankExit(killedBy(SIGTERM), false), RankOutcome::Failed);
  EXPECT_EQ(classifyRankExit(killedBy(SIGTERM), true), RankOutcome::Stopped);
  EXPECT_EQ(classifyRankExit(killedBy(SIGKILL), true), RankOutcome::Failed);
}

TEST(RankExit, DescribesAFailureInOneSentence) {
  EXPECT_EQ(describeRankFailure(1, killedBy(SIGKILL), "at step 37", "", "logs/rank-1.log"),
            "rank 1 was killed by SIGKILL at step 37");
  EXPECT_EQ(describeRankFailure(0, exitedWith(1), "at step 12", "error: oom", "logs/rank-0.log"),
            "rank 0 exited with code 1 at step 12: error: oom");
  EXPECT_EQ(describeRankFailure(2, exitedWith(3), "before the first step", "", "logs/rank-2.log"),
            "rank 2 exited with code 3 before the first step; see logs/rank-2.log");
}

TEST(SignalNames, NamesCommonSignalsAndFallsBackToTheNumber) {
  EXPECT_EQ(signalName(SIGKILL), "SIGKILL");
  EXPECT_EQ(signalName(SIGSEGV), "SIGSEGV");
  EXPECT_EQ(signalName(SIGABRT), "SIGABRT");
  EXPECT_EQ(signalName(SIGTERM), "SIGTERM");
  EXPECT_EQ(signalName(SIGRTMIN + 3), "signal " + std::to_string(SIGRTMIN + 3));
}

TEST(RankEnvironment, AddsTorchrunVariablesAndReplacesExistingOnes) {
  RankIdentity id;
  id.rank = 5;
  id.localRank = 1;
  id.worldSize = 8;
  id.localWorldSize = 4;
  id.groupRank = 1;
  id.masterAddr = "10.0.0.1";
  id.masterPort = 29500;
  const char* base[] = {"PATH=/bin", "RANK=99", "NOVALUE", nullptr};
  const std::vector<std::string> env = mergeEnvironment(base, rankVariables(id, {{"X", "1"}, {"X", "2"}}));
  const std::vector<std::string> expected = {
      "PATH=/bin",
      "NOVALUE",
      "RANK=5",
      "LOCAL_RANK=1",
      "WORLD_SIZE=8",
      "LOCAL_WORLD_SIZE=4",
      "GROUP_RANK=1",
      "MASTER_ADDR=10.0.0.1",
      "MASTER_PORT=29500",
      "X=2",
  };
  EXPECT_EQ(env, expected);
}

}  // namespace
}  // namespace traindeck
