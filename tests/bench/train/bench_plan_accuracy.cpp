// The planner's memory per rank against what the ranks measure: real `traindeck-train run`
// jobs (14.3M parameters, 3 steps, CPU, Gloo) under ddp, zero1, zero2 and zero3 on 2 and 4
// ranks, three times each; each rank's median peak (mem_peak of its last system record) beside
// the plan and their ratio. Rank 0 of the sharded kinds also saves the final checkpoint, which the
// planner does not count: it is marked, and left out of the largest deviation. Prints figures.
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "config/config_io.h"
#include "config/devices.h"
#include "config/planner.h"
#include "runlog/json_value.h"

namespace fs = std::filesystem;
using namespace traindeck;

namespace {

constexpr int kRepeats = 3;
const std::vector<std::string> kKinds = {"ddp", "zero1", "zero2", "zero3"};
const std::vector<std::string> kModel = {"model.n_embd=384", "model.n_layer=8", "model.n_head=2",
                                         "strategy.micro_batch=4", "schedule.max_steps=3", "checkpoint.every=0"};

std::string readFile(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// Each rank's largest mem_peak in the run's system records.
std::map<int, std::int64_t> rankPeaks(const fs::path& runDir) {
  std::map<int, std::int64_t> peaks;
  std::istringstream lines(readFile(runDir / "metrics.jsonl"));
  for (std::string line; std::getline(lines, line);) {
    const JsonParseResult parsed = parseJson(line);
    if (!parsed.ok() || parsed.value.stringOr("kind", "") != "system") continue;
    const int rank = static_cast<int>(parsed.value.integerOr("rank", -1));
    peaks[rank] = std::max(peaks[rank], parsed.value.integerOr("mem_peak", 0));
  }
  return peaks;
}

std::string quoted(const std::string& s) {
  return "'" + s + "'";
}

bool run(const fs::path& dir, const std::string& name, const std::string& kind, int ranks) {
  std::string command = "cd " + quoted(dir.string()) + " && " + quoted(TRAINDECK_TRAIN_BIN) +
                        " run --config job.yaml --no-progress --run-dir " + name;
  std::vector<std::string> sets = kModel;
  sets.insert(sets.end(), {"strategy.kind=" + kind, "strategy.nproc_per_node=" + std::to_string(ranks)});
  for (const std::string& s : sets) command += " --set " + s;
  command += " > " + name + ".out 2>&1";
  return std::system(command.c_str()) == 0;
}

std::int64_t median(std::vector<std::int64_t> values) {
  std::sort(values.begin(), values.end());
  return values.empty() ? 0 : values[values.size() / 2];
}

double mb(std::int64_t bytes) {
  return static_cast<double>(bytes) / 1e6;
}

}  // namespace

int main() {
  const fs::path dir = fs::temp_directory_path() / ("traindeck-bench-plan-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string make = "MAX_STEPS=3 sh " + quoted(std::string(TRAINDECK_TEST_DATA_DIR) + "/cli/make_tiny_job.sh") +
                           " " + quoted(TRAINDECK_TRAIN_BIN) + " " + quoted(dir.string());
  if (std::system(make.c_str()) != 0) {
    std::fprintf(stderr, "could not prepare the job in %s\n", dir.c_str());
    return 1;
  }
  const DeviceSpec cpu = thisMachineCpu();
  std::printf("Planned against measured peak memory per rank on %s (median of %d runs)\n", cpu.description.c_str(),
              kRepeats);
  std::printf("%-6s %5s %6s %12s %12s %7s   %s\n", "kind", "ranks", "rank", "planned MB", "measured MB", "ratio",
              "");
  double worst = 1;
  for (const int ranks : {2, 4}) {
    for (const std::string& kind : kKinds) {
      std::map<int, std::vector<std::int64_t>> peaks;
      std::int64_t planned = 0;
      for (int repeat = 0; repeat < kRepeats; ++repeat) {
        const std::string name = kind + "-" + std::to_string(ranks) + "-" + std::to_string(repeat);
        if (!run(dir, name, kind, ranks)) {
          std::fprintf(stderr, "%s failed:\n%s\n", name.c_str(), readFile(dir / (name + ".out")).c_str());
          return 1;
        }
        for (const auto& [rank, peak] : rankPeaks(dir / name)) peaks[rank].push_back(peak);
        const RunConfig config = loadConfigFile((dir / name / "config.yaml").string()).config;
        planned = makePlan(config, cpu).memory.total();
        fs::remove_all(dir / name / "checkpoints");
      }
      for (const auto& [rank, values] : peaks) {
        const std::int64_t measured = median(values);
        const double ratio = static_cast<double>(planned) / static_cast<double>(measured);
        const bool savesGathered = rank == 0 && kind != "ddp";
        if (!savesGathered) worst = std::max(worst, std::max(ratio, 1 / ratio));
        std::printf("%-6s %5d %6d %12.1f %12.1f %7.3f   %s\n", kind.c_str(), ranks, rank, mb(planned), mb(measured),
                    ratio, savesGathered ? "(saves the gathered checkpoint: not planned)" : "");
      }
    }
  }
  std::printf("largest deviation of a training rank from its plan: %.1f%%\n", (worst - 1) * 100);
  fs::remove_all(dir);
  return 0;
}
