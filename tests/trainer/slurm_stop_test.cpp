// A run as a Slurm job's step, without Slurm: `traindeck-train run` with SLURM_JOB_ID in its
// environment, stopped by the signals Slurm sends (SIGUSR2 before the time limit, SIGTERM on a
// preemption) ends "requeued" with exit code 3 and a complete checkpoint, and its next attempt
// (--resume, SLURM_RESTART_COUNT=1) says so in metrics.jsonl and trains on exactly as a run that
// never stopped. The user's stop (the stop-requested marker) and a run outside Slurm end "stopped".
#include <gtest/gtest.h>

#include <signal.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <string>
#include <vector>

#include "runlog/json_value.h"
#include "runlog/run_directory.h"
#include "train_processes.h"
#include "trainer/train/checkpointer.h"

namespace traindeck {
namespace {

using test_support::Child;
using test_support::finish;
using test_support::metricsRecords;
using test_support::processesMentioning;
using test_support::readFile;
using test_support::runJson;
using test_support::start;
using test_support::waitForTraining;

constexpr int kExitRequeuedCode = 3;  // docs/cli.md
// Enough steps that a signal sent once the first train record is there (after 1 s or at step 10,
// the first evaluation) always finds the run training; few enough that its rest takes seconds.
const std::vector<std::string> kSlurmJob = {"--set", "schedule.max_steps=300", "--set", "checkpoint.every=0",
                                            "--set", "eval.every=10"};
const std::vector<std::string> kTwoRanks = {"--set", "strategy.kind=ddp",     "--set", "strategy.nproc_per_node=2",
                                            "--set", "strategy.micro_batch=4"};

class SlurmStop : public test_support::TinyJobTest {
 protected:
  // Starts `run --config job.yaml --run-dir NAME` with `settings` and `environment`.
  Child startRun(const std::string& name, const std::vector<std::string>& settings,
                 const std::vector<std::pair<std::string, std::string>>& environment) {
    std::vector<std::string> args = {"run", "--config", "job.yaml", "--run-dir", name, "--no-progress"};
    args.insert(args.end(), settings.begin(), settings.end());
    return start(m_dir, args, name + ".out", environment);
  }

  // Starts a run, sends `signal` to its supervisor (and, as Slurm does, to its ranks when
  // `toEveryProcess`) once it trains, and returns its exit code.
  int signalledRun(const std::string& name, const std::vector<std::string>& settings,
                   const std::vector<std::pair<std::string, std::string>>& environment, int signal,
                   bool toEveryProcess = false) {
    const Child run = startRun(name, settings, environment);
    const std::vector<int> ranks = waitForTraining(m_dir / name, 60);
    EXPECT_FALSE(ranks.empty()) << readFile(m_dir / name / "run.json") << readFile(run.output);
    if (onTraining) onTraining();
    ::kill(run.pid, signal);
    if (toEveryProcess)
      for (const int pid : ranks) ::kill(pid, signal);
    const int code = finish(run);
    m_output = readFile(run.output);
    return code;
  }

  // The run ended with a complete checkpoint at the step run.json names, and no process left.
  std::int64_t expectCheckpointedAndGone(const std::string& name) {
    const std::int64_t step = runJson(m_dir / name).integerOr("step", 0);
    EXPECT_GT(step, 0);
    EXPECT_TRUE(std::filesystem::exists(m_dir / name / "checkpoints" / Checkpointer::folderName(step) / "COMPLETE"))
        << step;
    EXPECT_TRUE(processesMentioning((m_dir / name).string()).empty());
    return step;
  }

  std::function<void()> onTraining;  // runs once the run trains, before the signal
  std::string m_output;              // the last signalled run's stdout and stderr
};

std::vector<std::pair<std::int64_t, double>> lossesAfter(const std::filesystem::path& runDir, std::int64_t step) {
  std::vector<std::pair<std::int64_t, double>> losses;
  for (const JsonValue& r : metricsRecords(runDir, "train"))
    if (r.integerOr("step", 0) > step) losses.emplace_back(r.integerOr("step", 0), r.numberOr("loss", 0));
  return losses;
}

TEST_F(SlurmStop, TimeLimitSignalRequeuesAndTheNextAttemptContinuesExactly) {
  std::vector<std::string> settings = kSlurmJob;
  settings.insert(settings.end(), kTwoRanks.begin(), kTwoRanks.end());
  // Slurm's --signal=USR2@120 reaches every process of the step: the supervisor and its ranks.
  EXPECT_EQ(signalledRun("job", settings, {{"SLURM_JOB_ID", "4242"}}, SIGUSR2, true), kExitRequeuedCode) << m_output;
  const JsonValue info = runJson(m_dir / "job");
  EXPECT_EQ(info.stringOr("status", ""), "requeued");
  const std::int64_t step = expectCheckpointedAndGone("job");
  const std::string reason = info.stringOr("exit_reason", "");
  EXPECT_EQ(reason, "Slurm's time limit is near (SIGUSR2): every rank checkpointed at step " + std::to_string(step) +
                        "; Slurm starts it again from there");
  EXPECT_NE(m_output.find(reason), std::string::npos) << m_output;
  // Why, in run.json's own key and in every rank's log (not "on request": nobody asked).
  EXPECT_EQ(info.stringOr("end_cause", ""), "time_limit");
  for (const char* rank : {"rank-0.log", "rank-1.log"}) {
    const std::string log = readFile(m_dir / "job" / "logs" / rank);
    EXPECT_NE(log.find("at Slurm's time limit (SIGUSR2)"), std::string::npos) << rank << ":\n" << log;
    EXPECT_EQ(log.find("on request"), std::string::npos) << rank << ":\n" << log;
  }
  // The app's reader knows the status, and it is not a live one.
  const RunInfoReadResult read = readRunInfo(RunPaths{(m_dir / "job").string()});
  ASSERT_TRUE(read.ok()) << read.error;
  EXPECT_EQ(read.info.status, RunStatus::Requeued);
  EXPECT_FALSE(isLive(read.info.status));

  // The batch script's next attempt: the same command with --resume, SLURM_RESTART_COUNT set.
  const Child again = start(m_dir, {"run", "--run-dir", "job", "--resume", "--no-progress"}, "again.out",
                            {{"SLURM_JOB_ID", "4242"}, {"SLURM_RESTART_COUNT", "1"}});
  ASSERT_EQ(finish(again), 0) << readFile(again.output);
  EXPECT_EQ(runJson(m_dir / "job").stringOr("status", ""), "finished");
  bool said = false;
  for (const JsonValue& event : metricsRecords(m_dir / "job", "event"))
    said |= event.stringOr("msg", "") == "requeued by Slurm (restart 1): resumed from step " + std::to_string(step) &&
            event.integerOr("step", -1) == step;
  EXPECT_TRUE(said) << readFile(m_dir / "job" / "metrics.jsonl");

  // Exactly the losses of a run that never stopped (bitwise on this CPU, as every resume).
  const Child straight = startRun("straight", settings, {});
  ASSERT_EQ(finish(straight), 0) << readFile(straight.output);
  const auto resumed = lossesAfter(m_dir / "job", step);
  const auto expected = lossesAfter(m_dir / "straight", step);
  ASSERT_EQ(resumed.size(), expected.size());
  ASSERT_FALSE(resumed.empty());
  for (std::size_t i = 0; i < resumed.size(); ++i) {
    EXPECT_EQ(resumed[i].first, expected[i].first);
    EXPECT_EQ(resumed[i].second, expected[i].second) << "step " << resumed[i].first;
  }
  EXPECT_EQ(test_support::relativeDifference(test_support::finalWeights(m_dir / "job"),
                                             test_support::finalWeights(m_dir / "straight")),
            0.0);
  std::cout << "requeued at step " << step << "; the " << resumed.size()
            << " losses after the resume equal an uninterrupted run's\n";
}

TEST_F(SlurmStop, PreemptionRequeuesAndAStaleStopMarkerIsCleared) {
  // A marker left from an earlier attempt's stop must not make this one's preemption a user's stop.
  std::filesystem::create_directories(m_dir / "job");
  std::ofstream(m_dir / "job" / "stop-requested") << "";
  onTraining = [&] { EXPECT_FALSE(std::filesystem::exists(m_dir / "job" / "stop-requested")); };
  EXPECT_EQ(signalledRun("job", kSlurmJob, {{"SLURM_JOB_ID", "4242"}}, SIGTERM), kExitRequeuedCode) << m_output;
  const JsonValue info = runJson(m_dir / "job");
  EXPECT_EQ(info.stringOr("status", ""), "requeued");
  const std::int64_t step = expectCheckpointedAndGone("job");
  const std::string checkpointed = "every rank checkpointed at step " + std::to_string(step);
  EXPECT_EQ(info.stringOr("exit_reason", ""), "Slurm preempted the job or its time ran out (SIGTERM): " + checkpointed +
                                                  "; Slurm starts it again from there");
  EXPECT_EQ(info.stringOr("end_cause", ""), "preempted");
  const std::string log = readFile(m_dir / "job" / "logs" / "rank-0.log");
  EXPECT_NE(log.find("on Slurm's SIGTERM"), std::string::npos) << log;
}

TEST_F(SlurmStop, UsersStopUnderSlurmIsStopped) {
  // The app writes the marker, then signals.
  onTraining = [&] { std::ofstream(RunPaths{(m_dir / "job").string()}.stopRequest()) << ""; };
  EXPECT_EQ(signalledRun("job", kSlurmJob, {{"SLURM_JOB_ID", "4242"}}, SIGUSR2, true), 0) << m_output;
  const JsonValue info = runJson(m_dir / "job");
  EXPECT_EQ(info.stringOr("status", ""), "stopped");
  const std::int64_t step = expectCheckpointedAndGone("job");
  EXPECT_EQ(info.stringOr("exit_reason", ""),
            "stopped at step " + std::to_string(step) + " on request; --resume continues");
  EXPECT_EQ(info.stringOr("end_cause", ""), "asked");
  const std::string log = readFile(m_dir / "job" / "logs" / "rank-0.log");
  EXPECT_NE(log.find("on request"), std::string::npos) << log;
}

TEST_F(SlurmStop, OutsideSlurmTheSameSignalsStop) {
  for (const int signal : {SIGUSR2, SIGTERM}) {
    const std::string name = signal == SIGUSR2 ? "usr2" : "term";
    EXPECT_EQ(signalledRun(name, kSlurmJob, {}, signal), 0) << m_output;
    EXPECT_EQ(runJson(m_dir / name).stringOr("status", ""), "stopped") << name;
    expectCheckpointedAndGone(name);
  }
}

}  // namespace
}  // namespace traindeck
