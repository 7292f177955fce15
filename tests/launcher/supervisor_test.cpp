// superviseRanks() with real processes: small /bin/sh workers that print their environment,
// append train records to metrics.jsonl, fail, die by a signal, or trap SIGTERM. Workers that
// must outlive a moment wait on a file another rank creates, never on a fixed sleep.
#include <gtest/gtest.h>

#include <netinet/in.h>
#include <sys/socket.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <thread>

#include "launcher/supervisor.h"
#include "launcher_test_util.h"
#include "runlog/json_value.h"

namespace traindeck {
namespace {

using testing::processGone;
using testing::readFile;
using testing::waitUntil;
using testing::writeFile;
using testing::writeScript;

// Appends `{"kind":"train","step":N,...}` to the run's metrics.jsonl.
std::string trainRecord(int step) {
  return "printf '{\"kind\":\"train\",\"time\":1.5,\"step\":" + std::to_string(step) +
         ",\"loss\":2.5}\\n' >> \"$TD_RUN/metrics.jsonl\"\n";
}

class Supervisor : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_FALSE(m_dir.path().empty());
    m_run = m_dir.path() + "/run";
    m_spec.paths.root = m_run;
    m_spec.info.id = "20240501-120000-test";
    m_spec.info.name = "test";
    m_spec.echoLog = false;
    m_spec.extraEnv = {{"TD_RUN", m_run}};
  }

  // A worker whose body depends on its rank: `case $RANK in ...`.
  void useWorker(const std::string& body) { m_spec.workerArgv = {writeScript(m_dir.path() + "/worker.sh", body)}; }

  JsonValue runJson() const {
    const JsonParseResult parsed = parseJson(readFile(m_spec.paths.runJson()));
    EXPECT_TRUE(parsed.ok()) << parsed.error;
    return parsed.value;
  }

  std::vector<int> runPids() const {
    std::vector<int> pids;
    const JsonValue info = runJson();
    if (const JsonValue* list = info.find("rank_pids")) {
      for (const JsonValue& p : list->items()) pids.push_back(static_cast<int>(p.integerOr(0)));
    }
    return pids;
  }

  void expectNoRankLeft() const {
    const std::vector<int> pids = runPids();
    EXPECT_FALSE(pids.empty());
    for (const int pid : pids) EXPECT_TRUE(processGone(pid)) << "pid " << pid << " is still there";
  }

  testing::TempDir m_dir;
  std::string m_run;
  LaunchSpec m_spec;
};

double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

TEST_F(Supervisor, EachRankGetsTorchrunEnvironmentAndItsOwnLog) {
  useWorker(
      "echo \"RANK=$RANK LOCAL_RANK=$LOCAL_RANK WORLD_SIZE=$WORLD_SIZE LOCAL_WORLD_SIZE=$LOCAL_WORLD_SIZE"
      " GROUP_RANK=$GROUP_RANK MASTER_ADDR=$MASTER_ADDR MASTER_PORT=$MASTER_PORT\"\n"
      "echo \"extra=$TD_EXTRA parent=$TD_FROM_PARENT\"\n"
      "echo \"stderr of $RANK\" >&2\n"
      "if read line; then echo \"stdin had: $line\"; else echo 'stdin is empty'; fi\n");
  m_spec.nprocPerNode = 2;
  m_spec.nnodes = 2;
  m_spec.nodeRank = 1;
  m_spec.masterAddr = "10.0.0.7";
  m_spec.masterPort = 29511;
  m_spec.extraEnv.push_back({"TD_EXTRA", "from extraEnv"});
  ::setenv("TD_FROM_PARENT", "yes", 1);

  const LaunchResult result = superviseRanks(m_spec);
  EXPECT_EQ(result.status, RunStatus::Finished) << result.reason;

  for (int local = 0; local < 2; ++local) {
    const int rank = 2 + local;
    const std::string log = readFile(m_spec.paths.rankLog(rank));
    EXPECT_NE(log.find("RANK=" + std::to_string(rank) + " LOCAL_RANK=" + std::to_string(local) +
                       " WORLD_SIZE=4 LOCAL_WORLD_SIZE=2 GROUP_RANK=1 MASTER_ADDR=10.0.0.7 MASTER_PORT=29511"),
              std::string::npos)
        << log;
    EXPECT_NE(log.find("extra=from extraEnv parent=yes"), std::string::npos) << log;
    EXPECT_NE(log.find("stderr of " + std::to_string(rank)), std::string::npos) << log;
    EXPECT_NE(log.find("stdin is empty"), std::string::npos) << log;
  }
  EXPECT_FALSE(std::filesystem::exists(m_spec.paths.rankLog(0)));
  EXPECT_EQ(runJson().integerOr("world_size", 0), 4);
}

TEST_F(Supervisor, FinishedRunWritesRunJson) {
  useWorker(
      "echo \"port $MASTER_PORT\"\n"
      "if [ \"$RANK\" = 0 ]; then\n" +
      trainRecord(1) + trainRecord(2) + trainRecord(3) + "fi\n");
  m_spec.nprocPerNode = 2;

  const LaunchResult result = superviseRanks(m_spec);
  EXPECT_EQ(result.status, RunStatus::Finished);
  EXPECT_EQ(result.reason, "finished 3 steps");

  const JsonValue info = runJson();
  EXPECT_EQ(info.stringOr("id", ""), "20240501-120000-test");
  EXPECT_EQ(info.stringOr("name", ""), "test");
  EXPECT_EQ(info.stringOr("status", ""), "finished");
  EXPECT_EQ(info.stringOr("exit_reason", ""), "finished 3 steps");
  EXPECT_EQ(info.integerOr("step", -1), 3);
  EXPECT_EQ(info.integerOr("world_size", 0), 2);
  EXPECT_EQ(info.integerOr("supervisor_pid", 0), ::getpid());
  EXPECT_EQ(runPids().size(), 2u);
  expectNoRankLeft();

  // A free port was picked, and both ranks got the same one.
  const std::string log0 = readFile(m_spec.paths.rankLog(0));
  const std::string log1 = readFile(m_spec.paths.rankLog(1));
  EXPECT_EQ(log0, log1);
  EXPECT_EQ(log0.find("port 0\n"), std::string::npos) << log0;
}

TEST_F(Supervisor, RunJsonFollowsTheStepWhileRunning) {
  // The worker waits until run.json shows its step (rewritten at most every 2 s), then exits.
  useWorker(trainRecord(4) +
            "i=0\n"
            "until grep -q '\"status\":\"running\".*\"step\":4' \"$TD_RUN/run.json\"; do\n"
            "  i=$((i + 1)); [ $i -gt 1000 ] && exit 9\n"
            "  sleep 0.01\n"
            "done\n");
  const LaunchResult result = superviseRanks(m_spec);
  EXPECT_EQ(result.status, RunStatus::Finished) << result.reason;
  EXPECT_EQ(result.reason, "finished 4 steps");
}

TEST_F(Supervisor, RankKilledBySignalTakesTheOthersDownQuickly) {
  useWorker("if [ \"$RANK\" = 1 ]; then\n" + trainRecord(36) + trainRecord(37) +
            "  while [ ! -e \"$TD_RUN/ready-0\" ]; do sleep 0.01; done\n"
            "  kill -KILL $$\n"
            "fi\n"
            "touch \"$TD_RUN/ready-0\"\n"
            "exec sleep 30\n");
  m_spec.nprocPerNode = 2;

  const auto start = std::chrono::steady_clock::now();
  const LaunchResult result = superviseRanks(m_spec);
  EXPECT_LT(secondsSince(start), 5.0);
  EXPECT_EQ(result.status, RunStatus::Failed);
  EXPECT_EQ(result.reason, "rank 1 was killed by SIGKILL at step 37");
  EXPECT_EQ(runJson().stringOr("status", ""), "failed");
  EXPECT_EQ(runJson().stringOr("exit_reason", ""), result.reason);
  EXPECT_EQ(runJson().integerOr("step", -1), 37);
  expectNoRankLeft();
}

TEST_F(Supervisor, RankExitingWithAnErrorQuotesItsLog) {
  useWorker("if [ \"$RANK\" = 0 ]; then\n" + trainRecord(12) +
            "  while [ ! -e \"$TD_RUN/ready-1\" ]; do sleep 0.01; done\n"
            "  echo '2024-05-01T12:00:00Z info: step 12'\n"
            "  echo '2024-05-01T12:00:01Z error: CUDA out of memory on cuda:0'\n"
            "  echo '2024-05-01T12:00:01Z info: shutting down'\n"
            "  exit 1\n"
            "fi\n"
            "touch \"$TD_RUN/ready-1\"\n"
            "exec sleep 30\n");
  m_spec.nprocPerNode = 2;

  const auto start = std::chrono::steady_clock::now();
  const LaunchResult result = superviseRanks(m_spec);
  EXPECT_LT(secondsSince(start), 5.0);
  EXPECT_EQ(result.status, RunStatus::Failed);
  EXPECT_EQ(result.reason, "rank 0 exited with code 1 at step 12: error: CUDA out of memory on cuda:0");
  expectNoRankLeft();
}

TEST_F(Supervisor, FailureBeforeTheFirstStepSaysSo) {
  std::filesystem::create_directories(m_spec.paths.logs());
  writeFile(m_spec.paths.rankLog(0), "2024-01-01T00:00:00Z error: from an earlier attempt\n");
  useWorker("echo 'loading'\nexit 3\n");

  const LaunchResult result = superviseRanks(m_spec);
  EXPECT_EQ(result.status, RunStatus::Failed);
  // The earlier attempt's error line is not this run's.
  EXPECT_EQ(result.reason, "rank 0 exited with code 3 before the first step; see logs/rank-0.log");
}

TEST_F(Supervisor, StopRequestEndsTheRunAsStopped) {
  useWorker(
      "sleep 30 & child=$!\n"
      "trap 'kill $child; echo saved checkpoint; exit 75' TERM\n"
      "if [ \"$RANK\" = 0 ]; then\n" +
      trainRecord(5) +
      "fi\n"
      "echo ready\n"
      "wait $child\n"
      "exit 0\n");
  m_spec.nprocPerNode = 2;
  volatile std::sig_atomic_t stop = 0;
  m_spec.stopRequested = &stop;

  std::thread requester([&] {
    waitUntil([&] {
      return readFile(m_spec.paths.rankLog(0)).find("ready") != std::string::npos &&
             readFile(m_spec.paths.rankLog(1)).find("ready") != std::string::npos;
    });
    stop = 1;  // as a SIGINT handler would
  });
  const LaunchResult result = superviseRanks(m_spec);
  requester.join();

  EXPECT_EQ(result.status, RunStatus::Stopped) << result.reason;
  EXPECT_EQ(result.reason, "stopped at step 5 on request; --resume continues");
  EXPECT_EQ(runJson().stringOr("status", ""), "stopped");
  for (int rank = 0; rank < 2; ++rank) {
    EXPECT_NE(readFile(m_spec.paths.rankLog(rank)).find("saved checkpoint"), std::string::npos);
  }
  expectNoRankLeft();
}

// A run packed with others in one Slurm job: no signal comes, its markers do. The stop marker
// stops it like the user's signal (every rank checkpoints; stopped on request, not requeued);
// the kill marker ends its ranks as scancel would (killed from TrainDeck).
class PackedSupervisor : public Supervisor, public ::testing::WithParamInterface<bool> {};

TEST_P(PackedSupervisor, AMarkerIsItsStopOrKill) {
  const bool kill = GetParam();
  useWorker(
      "sleep 30 & child=$!\n"
      "trap 'kill $child; echo saved checkpoint; exit 75' TERM\n"
      "if [ \"$RANK\" = 0 ]; then\n" +
      trainRecord(7) +
      "fi\n"
      "echo ready\n"
      "wait $child\n"
      "exit 0\n");
  m_spec.nprocPerNode = 2;
  volatile std::sig_atomic_t stop = 0;  // never set: no signal reaches a packed run
  m_spec.stopRequested = &stop;
  m_spec.underSlurm = true;
  m_spec.requeuesLeft = 3;
  m_spec.watchMarkers = true;
  const std::string marker = kill ? m_spec.paths.killRequest() : m_spec.paths.stopRequest();
  std::thread requester([&] {
    waitUntil([&] {
      return readFile(m_spec.paths.rankLog(0)).find("ready") != std::string::npos &&
             readFile(m_spec.paths.rankLog(1)).find("ready") != std::string::npos;
    });
    writeFile(marker, "");
  });
  const auto start = std::chrono::steady_clock::now();
  const LaunchResult result = superviseRanks(m_spec);
  requester.join();
  EXPECT_LT(secondsSince(start), 10.0);  // not the workers' 30 s
  if (kill) {
    EXPECT_EQ(result.status, RunStatus::Killed) << result.reason;
    EXPECT_NE(result.reason.find("killed from TrainDeck at step 7"), std::string::npos) << result.reason;
  } else {
    EXPECT_EQ(result.status, RunStatus::Stopped) << result.reason;
    EXPECT_EQ(result.reason, "stopped at step 7 on request; --resume continues");
    EXPECT_NE(readFile(m_spec.paths.rankLog(1)).find("saved checkpoint"), std::string::npos);
  }
  expectNoRankLeft();
}

INSTANTIATE_TEST_SUITE_P(StopOrKill, PackedSupervisor, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& info) { return info.param ? "Kill" : "Stop"; });

// Without watchMarkers (a run of its own), a marker alone does nothing: an earlier attempt's is
// removed at the start, and the run ends as its ranks do.
TEST_F(Supervisor, AMarkerAloneDoesNothingToARunOfItsOwn) {
  useWorker(trainRecord(3));
  std::filesystem::create_directories(m_run);
  writeFile(m_spec.paths.stopRequest(), "");
  m_spec.underSlurm = true;
  const LaunchResult result = superviseRanks(m_spec);
  EXPECT_EQ(result.status, RunStatus::Finished) << result.reason;
}

TEST_F(Supervisor, WorkerStoppedWithoutARequestIsStopped) {
  useWorker("if [ \"$RANK\" = 1 ]; then\n" + trainRecord(8) + "  exit 75\nfi\n");
  m_spec.nprocPerNode = 2;

  const LaunchResult result = superviseRanks(m_spec);
  EXPECT_EQ(result.status, RunStatus::Stopped);
  EXPECT_EQ(result.reason, "stopped at step 8; --resume continues");
}

TEST_F(Supervisor, RankIgnoringSigtermIsKilledAfterTheGracePeriod) {
  useWorker(
      "if [ \"$RANK\" = 1 ]; then\n"
      "  while [ ! -e \"$TD_RUN/ready-0\" ]; do sleep 0.01; done\n"
      "  echo 'error: bad batch' >&2\n"
      "  exit 2\n"
      "fi\n"
      "trap '' TERM\n"
      "touch \"$TD_RUN/ready-0\"\n"
      "exec sleep 30\n");
  m_spec.nprocPerNode = 2;
  m_spec.graceSeconds = 0.5;

  const auto start = std::chrono::steady_clock::now();
  const LaunchResult result = superviseRanks(m_spec);
  const double took = secondsSince(start);
  EXPECT_GE(took, 0.5);  // SIGTERM alone did not end rank 0
  EXPECT_LT(took, 5.0);
  EXPECT_EQ(result.status, RunStatus::Failed);
  EXPECT_EQ(result.reason, "rank 1 exited with code 2 before the first step: error: bad batch");
  expectNoRankLeft();
}

TEST_F(Supervisor, DefaultGraceTearsDownWithinFiveSeconds) {
  useWorker(
      "if [ \"$RANK\" = 0 ]; then\n"
      "  while [ ! -e \"$TD_RUN/ready-1\" ] || [ ! -e \"$TD_RUN/ready-2\" ]; do sleep 0.01; done\n"
      "  kill -SEGV $$\n"
      "fi\n"
      "trap '' TERM\n"
      "touch \"$TD_RUN/ready-$RANK\"\n"
      "exec sleep 30\n");
  m_spec.nprocPerNode = 3;

  const auto start = std::chrono::steady_clock::now();
  const LaunchResult result = superviseRanks(m_spec);
  EXPECT_LT(secondsSince(start), 5.0);
  EXPECT_EQ(result.reason, "rank 0 was killed by SIGSEGV before the first step");
  expectNoRankLeft();
}

TEST_F(Supervisor, EchoesNewLinesOfTheFirstLocalRank) {
  std::filesystem::create_directories(m_spec.paths.logs());
  writeFile(m_spec.paths.rankLog(0), "old line\n");
  useWorker("echo \"hello from $RANK\"\nprintf 'no newline at the end'\n");
  m_spec.nprocPerNode = 2;
  m_spec.echoLog = true;

  ::testing::internal::CaptureStderr();
  const LaunchResult result = superviseRanks(m_spec);
  const std::string echoed = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(result.status, RunStatus::Finished);
  EXPECT_EQ(echoed, "hello from 0\nno newline at the end\n");
  EXPECT_EQ(readFile(m_spec.paths.rankLog(0)), "old line\nhello from 0\nno newline at the end");
}

TEST_F(Supervisor, ProgramThatCannotStartIsAFailure) {
  m_spec.workerArgv = {m_dir.path() + "/no-such-worker"};
  const LaunchResult result = superviseRanks(m_spec);
  EXPECT_EQ(result.status, RunStatus::Failed);
  EXPECT_NE(result.reason.find("could not start " + m_dir.path() + "/no-such-worker: No such file or directory"),
            std::string::npos)
      << result.reason;
  EXPECT_EQ(runJson().stringOr("status", ""), "failed");
}

TEST_F(Supervisor, UnwritableRunDirectoryIsAFailure) {
  useWorker("exit 0\n");
  m_spec.paths.root = "/proc/traindeck-no-such-dir/run";
  const LaunchResult result = superviseRanks(m_spec);
  EXPECT_EQ(result.status, RunStatus::Failed);
  EXPECT_NE(result.reason.find("check that the run directory is writable"), std::string::npos) << result.reason;
}

TEST_F(Supervisor, SeveralNodesNeedAMasterPort) {
  useWorker("exit 0\n");
  m_spec.nnodes = 2;
  const LaunchResult result = superviseRanks(m_spec);
  EXPECT_EQ(result.status, RunStatus::Failed);
  EXPECT_NE(result.reason.find("master port"), std::string::npos) << result.reason;
  EXPECT_FALSE(std::filesystem::exists(m_spec.paths.rankLog(0)));
}

TEST(PickFreePort, ReturnsAPortThatCanBeBound) {
  const int port = pickFreePort("127.0.0.1");
  ASSERT_GT(port, 0);
  ASSERT_LT(port, 65536);
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  ASSERT_GE(fd, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<std::uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  EXPECT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address), 0) << std::strerror(errno);
  ::close(fd);
}

TEST(PickFreePort, AnAddressOfNoLocalInterfaceGivesZero) {
  EXPECT_EQ(pickFreePort("192.0.2.1"), 0);  // TEST-NET-1: never a local address
}

}  // namespace
}  // namespace traindeck
