// `traindeck-train run` started for real by the trainer's process tests (distributed training,
// Slurm's stops): a child with its output in a file and the environment a test gives it, what
// run.json and metrics.jsonl say, the newest checkpoint's weights, and the processes a run left.
#pragma once

#include <gtest/gtest.h>
#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <torch/torch.h>

#include "runlog/json_value.h"

namespace traindeck::test_support {

std::string readFile(const std::filesystem::path& path);
double secondsSince(std::chrono::steady_clock::time_point start);

// A started `traindeck-train` with its output (stdout and stderr) in a file.
struct Child {
  pid_t pid = -1;
  std::filesystem::path output;
};

// Starts `traindeck-train ARGS` in `dir`, its output in dir/outputName. Its environment is this
// process's without Slurm's variables (a test run inside a Slurm job still starts plain runs),
// plus `environment`.
Child start(const std::filesystem::path& dir, const std::vector<std::string>& args, const std::string& outputName,
            const std::vector<std::pair<std::string, std::string>>& environment = {});
// Waits for it; its exit code, or 128 + the signal that killed it.
int finish(const Child& child);

// Runs `run --config job.yaml --run-dir RUN --no-progress` in `dir` with `--set` overrides and
// `extra` arguments to the end; its exit code (a failure is reported with the run's output).
int trainToEnd(const std::filesystem::path& dir, const std::string& runName, const std::vector<std::string>& sets,
               const std::vector<std::string>& extra = {});
// The "optimizer state on this rank: N bytes" figure of a rank's log, or -1.
std::int64_t optimizerBytesInLog(const std::filesystem::path& log);

JsonValue runJson(const std::filesystem::path& runDir);
// The records of one kind in metrics.jsonl ("train", "event"), in file order.
std::vector<JsonValue> metricsRecords(const std::filesystem::path& runDir, const std::string& kind);
// The newest complete checkpoint's weights (none when there is none).
std::map<std::string, torch::Tensor> finalWeights(const std::filesystem::path& runDir);
// ‖a − b‖ / ‖b‖ over every weight.
double relativeDifference(const std::map<std::string, torch::Tensor>& a, const std::map<std::string, torch::Tensor>& b);
// Pids of live processes whose command line mentions `text`.
std::vector<int> processesMentioning(const std::string& text);
// Waits until the run has written a train record and run.json lists its ranks; their pids, or
// none after `timeoutSeconds`.
std::vector<int> waitForTraining(const std::filesystem::path& runDir, double timeoutSeconds);

// `--set`s of a job of `kind` on `ranks` ranks with a clip low enough (0.05) that every step of
// the tiny job clips; `wide` makes the model 128 wide (about 440,000 parameters) with 0.25 MB
// buckets, so that zero2 has several buckets and zero3 units that are not tiny.
std::vector<std::string> shardingJob(const std::string& kind, int ranks, int accum = 2, int microBatch = 4,
                                     bool wide = true);

// (step, loss, grad_norm, tokens_per_s) of every train record of a run, and two runs' records
// compared: the same steps, losses within `tolerance` (relative), grad norms within ten times it.
struct StepFigures {
  std::int64_t step;
  double loss, gradNorm, tokensPerSecond;
};
std::vector<StepFigures> trainSteps(const std::filesystem::path& runDir);
void expectSameSteps(const std::vector<StepFigures>& a, const std::vector<StepFigures>& b, double tolerance);
// Two checkpoint folders hold the same tensors under the same names and shapes, their files'
// headers (names, dtypes, shapes, offsets) byte-identical and their values within 1e-4 relative
// (random states only by name and shape).
void expectSameCheckpointTensors(const std::string& folder, const std::string& reference);
// Starts a long run of job.yaml with `sets` in `dir`, kills rank 1 once it trains, and expects
// the job to end (exit 1) with run.json's sentence naming the kill, leaving no process behind.
void expectKilledRankEndsTheJob(const std::filesystem::path& dir, const std::vector<std::string>& sets);

// Each test in its own folder under /tmp with a tiny job (job.yaml: 10 steps, a checkpoint
// every 10) and its prepared data; the folder is removed when the test passed, and any process
// of its runs is killed.
class TinyJobTest : public ::testing::Test {
 protected:
  void SetUp() override;
  void TearDown() override;
  std::filesystem::path m_dir;
};

}  // namespace traindeck::test_support
