// What each kind costs on a CPU, measured: real `traindeck-train run` jobs (a GPT-2 of 30.6M
// parameters, 6 steps, Gloo over 127.0.0.1) as single, and as ddp, zero1, zero2 and zero3 on 2
// and 4 ranks, twice each. Per kind: the ranks' peak memory (each rank's largest mem_peak in the
// system records; the median and the largest over the ranks) beside the planner's per-rank
// figure, and tokens/s (the train records after the first step, which pays for warming up).
// Then zero3 with prefetching on and off (TRAINDECK_ZERO3_PREFETCH=0), alternated: how long the
// all-gathers ran (the trainer's gather_ms) and how long the gathers waited for them
// (gather_wait_ms), so the share of the wait that prefetching hides. The machine may be shared:
// every figure comes with the share of the cores that other work took meanwhile. About 7
// minutes on 2 cores. Prints figures.
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "config/config_io.h"
#include "config/devices.h"
#include "config/planner.h"
#include "runlog/json_value.h"

namespace fs = std::filesystem;
using namespace traindeck;

namespace {

constexpr int kRepeats = 2;          // runs of each kind and rank count in the table
constexpr int kPrefetchRepeats = 3;  // zero3 runs with prefetching off, and on
constexpr int kSteps = 6;
constexpr int kMicroBatch = 4;  // a step of a second or more, so that most train records hold one step
const std::vector<std::string> kKinds = {"ddp", "zero1", "zero2", "zero3"};
// 11·(12·480² + 13·480) + 257·480 + 64·480 + 2·480 = 30,636,480 parameters with the job's byte
// vocabulary (257) and 64 positions: large enough that model state stands far above a rank's
// runtime, small enough that 4 ranks of it train a few steps in seconds on 2 cores.
const std::vector<std::string> kModel = {"model.n_embd=480",
                                         "model.n_layer=11",
                                         "model.n_head=8",
                                         "strategy.micro_batch=" + std::to_string(kMicroBatch),
                                         "schedule.max_steps=" + std::to_string(kSteps),
                                         "eval.every=0",
                                         "checkpoint.every=0"};

const unsigned kCores = std::max(1u, std::thread::hardware_concurrency());

std::string readFile(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::vector<JsonValue> records(const fs::path& runDir, const std::string& kind) {
  std::vector<JsonValue> out;
  std::istringstream lines(readFile(runDir / "metrics.jsonl"));
  for (std::string line; std::getline(lines, line);) {
    JsonParseResult parsed = parseJson(line);
    if (parsed.ok() && parsed.value.stringOr("kind", "") == kind) out.push_back(std::move(parsed.value));
  }
  return out;
}

double median(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const std::size_t half = values.size() / 2;
  return values.size() % 2 ? values[half] : (values[half - 1] + values[half]) / 2;
}

double mean(const std::vector<double>& values) {
  double sum = 0;
  for (double v : values) sum += v;
  return values.empty() ? 0 : sum / static_cast<double>(values.size());
}

// A train record field at the steps after the first.
std::vector<double> afterFirstStep(const fs::path& runDir, const std::string& field) {
  std::vector<double> values;
  for (const JsonValue& r : records(runDir, "train"))
    if (r.integerOr("step", 0) > 1) values.push_back(r.numberOr(field, 0));
  return values;
}

std::string quoted(const std::string& s) {
  return "'" + s + "'";
}

bool run(const fs::path& dir, const std::string& name, const std::string& kind, int ranks, bool prefetch = true) {
  std::string command = "cd " + quoted(dir.string()) + " && " + (prefetch ? "" : "TRAINDECK_ZERO3_PREFETCH=0 ") +
                        quoted(TRAINDECK_TRAIN_BIN) + " run --config job.yaml --no-progress --run-dir " + name;
  std::vector<std::string> sets = kModel;
  sets.insert(sets.end(), {"strategy.kind=" + kind, "strategy.nproc_per_node=" + std::to_string(ranks)});
  for (const std::string& s : sets) command += " --set " + s;
  command += " > " + name + ".out 2>&1";
  const bool ok = std::system(command.c_str()) == 0;
  if (!ok) std::fprintf(stderr, "%s failed:\n%s\n", name.c_str(), readFile(dir / (name + ".out")).c_str());
  fs::remove_all(dir / name / "checkpoints");  // the final checkpoint: 370 MB a run
  return ok;
}

RunConfig configOf(const fs::path& runDir) {
  return loadConfigFile((runDir / "config.yaml").string()).config;
}

std::string loadAverages() {
  double load[3] = {0, 0, 0};
  if (::getloadavg(load, 3) != 3) return "unknown";
  char text[64];
  std::snprintf(text, sizeof text, "%.2f %.2f %.2f", load[0], load[1], load[2]);
  return text;
}

const char* oversubscribed(int ranks) {
  return ranks > static_cast<int>(kCores) ? "   (oversubscribed)" : "";
}

// How much of the machine other work took since construction: the cores' busy time
// (/proc/stat) less the CPU time of this bench's runs (each run's processes are waited for, so
// RUSAGE_CHILDREN counts them all).
class OthersShare {
 public:
  OthersShare() : m_start(sample()) {}

  double percentOfCores() const {
    const Sample now = sample();
    const double wall = now.wall - m_start.wall;
    const double others = (now.busy - m_start.busy) - (now.children - m_start.children);
    return wall > 0 ? 100 * std::max(0.0, others) / (wall * kCores) : 0;
  }

 private:
  struct Sample {
    double wall, busy, children;  // seconds
  };

  static Sample sample() {
    std::ifstream stat("/proc/stat");
    std::string cpu;
    double ticks[8] = {};  // user nice system idle iowait irq softirq steal
    stat >> cpu;
    for (double& t : ticks) stat >> t;
    const double busy = ticks[0] + ticks[1] + ticks[2] + ticks[5] + ticks[6] + ticks[7];
    rusage children{};
    ::getrusage(RUSAGE_CHILDREN, &children);
    const auto seconds = [](const timeval& t) {
      return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6;
    };
    return {std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(),
            busy / static_cast<double>(::sysconf(_SC_CLK_TCK)),
            seconds(children.ru_utime) + seconds(children.ru_stime)};
  }

  Sample m_start;
};

// One row of the table: `kind` on `ranks` over kRepeats runs.
bool measureKind(const fs::path& dir, const DeviceSpec& cpu, const std::string& kind, int ranks) {
  const OthersShare others;
  std::map<int, std::vector<double>> runPeaksMb;  // per rank, its largest mem_peak in each run
  std::vector<double> tokensPerSecond;
  for (int repeat = 0; repeat < kRepeats; ++repeat) {
    const std::string name = kind + "-" + std::to_string(ranks) + "-" + std::to_string(repeat);
    if (!fs::exists(dir / name / "metrics.jsonl") && !run(dir, name, kind, ranks)) return false;
    std::map<int, std::int64_t> peaks;
    for (const JsonValue& r : records(dir / name, "system")) {
      const int rank = static_cast<int>(r.integerOr("rank", -1));
      peaks[rank] = std::max(peaks[rank], r.integerOr("mem_peak", 0));
    }
    for (const auto& [rank, peak] : peaks) runPeaksMb[rank].push_back(static_cast<double>(peak) / 1e6);
    const std::vector<double> rates = afterFirstStep(dir / name, "tokens_per_s");
    tokensPerSecond.insert(tokensPerSecond.end(), rates.begin(), rates.end());
  }
  std::vector<double> peaks;
  double largest = 0;
  int largestRank = -1;
  for (const auto& [rank, runs] : runPeaksMb) {
    peaks.push_back(mean(runs));
    if (peaks.back() > largest) {
      largest = peaks.back();
      largestRank = rank;
    }
  }
  const double middle = median(peaks);
  const RunConfig config = configOf(dir / (kind + "-" + std::to_string(ranks) + "-0"));
  const double planned = static_cast<double>(makePlan(config, cpu).memory.total()) / 1e6;
  std::printf("%-6s %5d %11.1f %11.1f %4d %11.1f %8.3f %8.3f %9.0f %6.0f%%%s\n", kind.c_str(), ranks, middle, largest,
              largestRank, planned, middle / planned, largest / planned, median(tokensPerSecond),
              others.percentOfCores(), oversubscribed(ranks));
  std::fflush(stdout);
  return true;
}

struct PrefetchFigures {  // rank 0's medians over a run's steps after the first
  double stepMs = 0, gatherMs = 0, waitMs = 0;
};

// zero3 on `ranks` with prefetching off and on, alternated (the load on a shared machine drifts);
// prints each way's mean of the runs' figures, then what prefetching changed.
bool comparePrefetch(const fs::path& dir, int ranks) {
  const OthersShare others;
  std::map<bool, std::vector<PrefetchFigures>> runs;
  for (int repeat = 0; repeat < kPrefetchRepeats; ++repeat) {
    for (const bool prefetch : {false, true}) {
      const std::string name =
          "zero3-" + std::to_string(ranks) + (prefetch ? "-on-" : "-off-") + std::to_string(repeat);
      if (!run(dir, name, "zero3", ranks, prefetch)) return false;
      const bool saysOff = readFile(dir / name / "logs" / "rank-0.log").find("prefetches nothing") != std::string::npos;
      if (saysOff == prefetch) {
        std::fprintf(stderr, "%s: TRAINDECK_ZERO3_PREFETCH did not reach the ranks\n", name.c_str());
        return false;
      }
      runs[prefetch].push_back({median(afterFirstStep(dir / name, "step_ms")),
                                median(afterFirstStep(dir / name, "gather_ms")),
                                median(afterFirstStep(dir / name, "gather_wait_ms"))});
    }
  }
  std::map<bool, PrefetchFigures> typical;
  for (const bool prefetch : {false, true}) {
    std::vector<double> step, gather, wait;
    for (const PrefetchFigures& f : runs[prefetch]) {
      step.push_back(f.stepMs);
      gather.push_back(f.gatherMs);
      wait.push_back(f.waitMs);
    }
    const PrefetchFigures t{mean(step), mean(gather), mean(wait)};
    typical[prefetch] = t;
    std::printf("%5d %8s %8.0f %10.0f %8.0f %17.0f%%\n", ranks, prefetch ? "on" : "off", t.stepMs, t.gatherMs, t.waitMs,
                t.gatherMs > 0 ? 100 * (1 - t.waitMs / t.gatherMs) : 0);
  }
  const PrefetchFigures &on = typical[true], &off = typical[false];
  std::printf(
      "%5d ranks: prefetching hides %.0f%% of the wait (1 - %.0f / %.0f ms); step time with it minus without: "
      "%+.0f ms (%+.1f%%); others took %.0f%% of the cores%s\n",
      ranks, off.waitMs > 0 ? 100 * (1 - on.waitMs / off.waitMs) : 0, on.waitMs, off.waitMs, on.stepMs - off.stepMs,
      off.stepMs > 0 ? 100 * (on.stepMs / off.stepMs - 1) : 0, others.percentOfCores(), oversubscribed(ranks));
  std::fflush(stdout);
  return true;
}

}  // namespace

int main() {
  const fs::path dir = fs::temp_directory_path() / ("traindeck-bench-sharding-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string make = "MAX_STEPS=" + std::to_string(kSteps) + " sh " +
                           quoted(std::string(TRAINDECK_TEST_DATA_DIR) + "/cli/make_tiny_job.sh") + " " +
                           quoted(TRAINDECK_TRAIN_BIN) + " " + quoted(dir.string());
  if (std::system(make.c_str()) != 0) {
    std::fprintf(stderr, "could not prepare the job in %s\n", dir.c_str());
    return 1;
  }
  const DeviceSpec cpu = thisMachineCpu();
  const std::string startLoad = loadAverages();
  const auto started = std::chrono::steady_clock::now();
  if (!run(dir, "single-1-0", "single", 1)) return 1;
  const ModelConfig model = configOf(dir / "single-1-0").model;
  std::printf("Sharding on %s (load averages %s at the start)\n", cpu.description.c_str(), startLoad.c_str());
  std::printf(
      "GPT-2 of %s parameters (n_embd %lld, %lld layers, %lld heads, vocabulary %lld, block %lld), "
      "micro_batch %d, %d steps, fp32, Gloo over 127.0.0.1; final checkpoint saved, no eval\n",
      formatThousands(parameterCount(model)).c_str(), static_cast<long long>(model.n_embd),
      static_cast<long long>(model.n_layer), static_cast<long long>(model.n_head),
      static_cast<long long>(model.vocab_size), static_cast<long long>(model.block_size), kMicroBatch, kSteps);
  std::printf(
      "%d runs of each. peak: each rank's largest mem_peak (resident), the mean of its runs; the median and "
      "the largest over the ranks (and whose); planned: the planner's per rank; tokens/s: every rank's tokens, "
      "the median over the runs' steps after step 1; others: the share of the cores other work took meanwhile"
      "\n\n",
      kRepeats);
  std::printf("%-6s %5s %11s %11s %4s %11s %8s %8s %9s %7s\n", "kind", "ranks", "peak med MB", "peak max MB", "rank",
              "planned MB", "med/plan", "max/plan", "tokens/s", "others");
  if (!measureKind(dir, cpu, "single", 1)) return 1;
  for (const int ranks : {2, 4})
    for (const std::string& kind : kKinds)
      if (!measureKind(dir, cpu, kind, ranks)) return 1;
  if (4 > kCores)
    std::printf(
        "\n4 ranks on %u cores are oversubscribed: the ranks (%u thread each) take turns on the cores, so their "
        "tokens/s shows contention, not scaling.\n",
        kCores, std::max(1u, kCores / 4));

  // Every micro-step gathers each unit in the forward and again in the backward, and the
  // embeddings' unit (also the output layer) twice more: 2·(P + U0) fp32 values.
  const std::int64_t embeddings = model.vocab_size * model.n_embd + model.n_positions * model.n_embd + 2 * model.n_embd;
  std::printf(
      "\nzero3's prefetch: rank 0's train records after step 1 (medians; the mean of %d runs each way, "
      "alternated). gather: each all-gather from its launch to its completion, summed over the step; wait: "
      "what the gathers blocked for. Each rank gathers %.0f MB a step (on Gloo, as an all-reduce).\n",
      kPrefetchRepeats, 8.0 * static_cast<double>(parameterCount(model) + embeddings) / 1e6);
  std::printf("%5s %8s %8s %10s %8s %18s\n", "ranks", "prefetch", "step ms", "gather ms", "wait ms",
              "gather not waited");
  for (const int ranks : {2, 4})
    if (!comparePrefetch(dir, ranks)) return 1;
  std::printf("\nload averages %s at the end, %.1f minutes in all\n", loadAverages().c_str(),
              std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count() / 60);
  fs::remove_all(dir);
  return 0;
}
