// fork + execve with an environment built before the fork: the child only redirects its output,
// changes folder and execs, so it does nothing a forked copy of a threaded process must not.
#include "train_processes.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <regex>
#include <sstream>
#include <string_view>
#include <thread>

#include "trainer/train/checkpointer.h"

extern char** environ;

namespace traindeck::test_support {

namespace fs = std::filesystem;

std::string readFile(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

Child start(const fs::path& dir, const std::vector<std::string>& args, const std::string& outputName,
            const std::vector<std::pair<std::string, std::string>>& environment) {
  Child child;
  child.output = dir / outputName;
  std::vector<std::string> argv = {TRAINDECK_TRAIN_BIN};
  argv.insert(argv.end(), args.begin(), args.end());
  std::vector<std::string> env;
  for (char** e = environ; *e; ++e)
    if (std::string_view(*e).rfind("SLURM_", 0) != 0) env.emplace_back(*e);
  for (const auto& [name, value] : environment) env.push_back(name + "=" + value);
  std::vector<char*> rawArgv, rawEnv;
  for (auto& a : argv) rawArgv.push_back(a.data());
  rawArgv.push_back(nullptr);
  for (auto& e : env) rawEnv.push_back(e.data());
  rawEnv.push_back(nullptr);
  child.pid = ::fork();
  if (child.pid == 0) {
    const int fd = ::open(child.output.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ::dup2(fd, 1);
    ::dup2(fd, 2);
    if (::chdir(dir.c_str()) != 0) ::_exit(127);
    ::execve(rawArgv[0], rawArgv.data(), rawEnv.data());
    ::_exit(127);
  }
  return child;
}

int finish(const Child& child) {
  int status = 0;
  ::waitpid(child.pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

JsonValue runJson(const fs::path& runDir) {
  return parseJson(readFile(runDir / "run.json")).value;
}

int trainToEnd(const fs::path& dir, const std::string& runName, const std::vector<std::string>& sets,
               const std::vector<std::string>& extra) {
  std::vector<std::string> args = {"run", "--config", "job.yaml", "--run-dir", runName, "--no-progress"};
  for (const std::string& s : sets) args.insert(args.end(), {"--set", s});
  args.insert(args.end(), extra.begin(), extra.end());
  const Child child = start(dir, args, runName + ".out");
  const int code = finish(child);
  if (code != 0) ADD_FAILURE() << runName << " exited " << code << ":\n" << readFile(child.output);
  return code;
}

std::int64_t optimizerBytesInLog(const fs::path& log) {
  std::smatch match;
  const std::string text = readFile(log);
  static const std::regex pattern("optimizer state on this rank: ([0-9]+) bytes");
  return std::regex_search(text, match, pattern) ? std::stoll(match[1]) : -1;
}

std::vector<JsonValue> metricsRecords(const fs::path& runDir, const std::string& kind) {
  std::vector<JsonValue> records;
  std::istringstream lines(readFile(runDir / "metrics.jsonl"));
  for (std::string line; std::getline(lines, line);) {
    const JsonParseResult parsed = parseJson(line);
    if (parsed.ok() && parsed.value.stringOr("kind", "") == kind) records.push_back(parsed.value);
  }
  return records;
}

std::map<std::string, torch::Tensor> finalWeights(const fs::path& runDir) {
  const auto latest = Checkpointer((runDir / "checkpoints").string(), 1).latestComplete();
  if (!latest) return {};
  return readTensorFile(*latest + "/model.safetensors");
}

double relativeDifference(const std::map<std::string, torch::Tensor>& a,
                          const std::map<std::string, torch::Tensor>& b) {
  double diff = 0, norm = 0;
  for (const auto& [name, tb] : b) {
    const auto ta = a.at(name).to(torch::kDouble);
    diff += (ta - tb.to(torch::kDouble)).pow(2).sum().item<double>();
    norm += tb.to(torch::kDouble).pow(2).sum().item<double>();
  }
  return std::sqrt(diff) / std::sqrt(norm);
}

std::vector<int> processesMentioning(const std::string& text) {
  std::vector<int> found;
  for (const auto& entry : fs::directory_iterator("/proc")) {
    const std::string name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::string cmdline = readFile(entry.path() / "cmdline");
    std::replace(cmdline.begin(), cmdline.end(), '\0', ' ');
    if (cmdline.find(text) != std::string::npos && std::stoi(name) != ::getpid()) found.push_back(std::stoi(name));
  }
  return found;
}

std::vector<int> waitForTraining(const fs::path& runDir, double timeoutSeconds) {
  const auto started = std::chrono::steady_clock::now();
  while (secondsSince(started) < timeoutSeconds) {
    if (readFile(runDir / "metrics.jsonl").find("\"kind\":\"train\"") != std::string::npos) {
      std::vector<int> pids;
      const JsonValue info = runJson(runDir);
      if (const JsonValue* list = info.find("rank_pids"))
        for (const JsonValue& pid : list->items())
          if (pid.integerOr(0) > 0) pids.push_back(static_cast<int>(pid.integerOr(0)));
      if (!pids.empty()) return pids;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return {};
}

std::vector<std::string> shardingJob(const std::string& kind, int ranks, int accum, int microBatch, bool wide) {
  std::vector<std::string> sets = {"strategy.kind=" + kind, "strategy.nproc_per_node=" + std::to_string(ranks),
                                   "strategy.micro_batch=" + std::to_string(microBatch),
                                   "strategy.grad_accum=" + std::to_string(accum), "optimizer.grad_clip=0.05"};
  if (wide) sets.insert(sets.end(), {"model.n_embd=128", "strategy.bucket_mb=0.25"});
  return sets;
}

std::vector<StepFigures> trainSteps(const fs::path& runDir) {
  std::vector<StepFigures> steps;
  for (const JsonValue& record : metricsRecords(runDir, "train"))
    steps.push_back({record.integerOr("step", -1), record.numberOr("loss", NAN), record.numberOr("grad_norm", NAN),
                     record.numberOr("tokens_per_s", NAN)});
  return steps;
}

void expectSameSteps(const std::vector<StepFigures>& a, const std::vector<StepFigures>& b, double tolerance) {
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].step, b[i].step);
    EXPECT_NEAR(a[i].loss, b[i].loss, tolerance * b[i].loss) << "step " << b[i].step;
    EXPECT_NEAR(a[i].gradNorm, b[i].gradNorm, 10 * tolerance * b[i].gradNorm) << "step " << b[i].step;
  }
}

namespace {

// A safetensors file's header: its length field and the JSON (names, dtypes, shapes, offsets).
std::string safetensorsHeader(const fs::path& file) {
  const std::string bytes = readFile(file);
  if (bytes.size() < 8) return bytes;
  std::uint64_t length = 0;
  std::memcpy(&length, bytes.data(), sizeof length);
  return bytes.substr(0, 8 + std::min<std::uint64_t>(length, bytes.size() - 8));
}

}  // namespace

void expectSameCheckpointTensors(const std::string& folder, const std::string& reference) {
  for (const char* file : {"model.safetensors", "optim.safetensors"})  // the same layout, byte for byte
    EXPECT_EQ(safetensorsHeader(fs::path(folder) / file), safetensorsHeader(fs::path(reference) / file)) << file;
  const LoadedCheckpoint checked = Checkpointer::load(folder);
  const LoadedCheckpoint expected = Checkpointer::load(reference);
  using Tensors = std::map<std::string, torch::Tensor>;
  for (Tensors LoadedCheckpoint::*part : {&LoadedCheckpoint::model, &LoadedCheckpoint::optimizer}) {
    const Tensors& tensors = checked.*part;
    ASSERT_EQ(tensors.size(), (expected.*part).size()) << folder;
    for (const auto& [name, tensor] : expected.*part) {
      const auto it = tensors.find(name);
      ASSERT_NE(it, tensors.end()) << name << " is missing from " << folder;
      EXPECT_EQ(it->second.sizes(), tensor.sizes()) << name;
      if (name.rfind("rng/", 0) == 0) continue;  // random states: the same, but not float
      const double norm = tensor.to(torch::kDouble).norm().item().toDouble();
      const double off = (it->second.to(torch::kDouble) - tensor.to(torch::kDouble)).norm().item().toDouble();
      EXPECT_LE(off, 1e-4 * norm + 1e-9) << name;
    }
  }
}

void expectKilledRankEndsTheJob(const fs::path& dir, const std::vector<std::string>& sets) {
  std::vector<std::string> args = {"run", "--config", "job.yaml", "--run-dir", "killed"};
  for (const std::string& s : sets) args.insert(args.end(), {"--set", s});
  args.insert(args.end(), {"--set", "schedule.max_steps=100000", "--set", "checkpoint.every=0"});
  const Child run = start(dir, args, "killed.out");
  const std::vector<int> ranks = waitForTraining(dir / "killed", 30);
  ASSERT_EQ(ranks.size(), 2u) << readFile(dir / "killed" / "run.json");
  ::kill(ranks[1], SIGKILL);
  EXPECT_EQ(finish(run), 1) << readFile(run.output);
  const std::string reason = runJson(dir / "killed").stringOr("exit_reason", "");
  EXPECT_NE(reason.find("rank 1 was killed by SIGKILL at step "), std::string::npos) << reason;
  EXPECT_TRUE(processesMentioning((dir / "killed").string()).empty());
}

void TinyJobTest::SetUp() {
  m_dir = fs::temp_directory_path() / ("traindeck-dist-" + std::to_string(::getpid()) + "-" +
                                       ::testing::UnitTest::GetInstance()->current_test_info()->name());
  fs::remove_all(m_dir);
  fs::create_directories(m_dir);
  const std::string make = std::string("MAX_STEPS=10 CHECKPOINT_EVERY=10 sh ") + TRAINDECK_TEST_DATA_DIR +
                           "/cli/make_tiny_job.sh " + TRAINDECK_TRAIN_BIN + " " + m_dir.string();
  ASSERT_EQ(std::system(make.c_str()), 0);
}

void TinyJobTest::TearDown() {
  for (int pid : processesMentioning(m_dir.string())) ::kill(pid, SIGKILL);  // a failed test's runs
  if (!HasFailure()) fs::remove_all(m_dir);
}

}  // namespace traindeck::test_support
