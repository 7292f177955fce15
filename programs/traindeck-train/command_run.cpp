// `traindeck-train run --config FILE [--run-dir DIR] [--resume] [--nnodes N --node-rank R
// --master-addr A --master-port P]`: validates everything, makes the run directory (config.yaml
// with paths resolved, run.json), then supervises this node's ranks (`traindeck-train worker`)
// to the end. Exits 0 when the run finished or was stopped on request, 3 when Slurm stopped it
// (requeued), 1 when it failed. A run that fails before its ranks start (an invalid config) says
// why in --run-dir's run.json too.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <ostream>

#include "cli_args.h"
#include "commands.h"
#include "launcher/slot_share.h"
#include "launcher/supervisor.h"
#include "runlog/run_directory.h"

namespace traindeck {

namespace {

// The signal that asked for the stop (0: none): the supervisor tells Slurm's from the user's.
volatile std::sig_atomic_t g_runStopRequested = 0;

void requestRunStop(int signal) {
  g_runStopRequested = signal;
}

constexpr int kRunStopSignals[] = {SIGINT, SIGTERM, SIGUSR2};  // USR1 is NCCL's

constexpr const char* kUsage =
    "usage: traindeck-train run --config FILE [--run-dir DIR] [--resume] [--stop-at N] [--slot I/N]\n"
    "       [--nnodes N --node-rank R --master-addr ADDR --master-port PORT] [--set KEY=VALUE ...]";

std::string selfExecutable() {
  std::error_code ec;
  const auto path = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::string("traindeck-train") : path.string();
}

// run.json for a run that ended before its ranks started: failed, and why, so that the app lists
// it with its reason. A resumed run keeps what its run.json said of it; a resume of a folder that
// is not there makes none.
void recordFailedStart(const std::string& runDir, bool resume, const std::string& name, const std::string& reason) {
  namespace fs = std::filesystem;
  const RunPaths paths{fs::absolute(runDir).lexically_normal().string()};
  std::error_code ec;
  if (resume && !fs::is_directory(paths.root, ec)) return;
  fs::create_directories(paths.root, ec);  // a failure shows as writeRunInfo's
  RunInfo info = readRunInfo(paths).info;
  if (info.id.empty()) info.id = fs::path(paths.root).filename().string();
  if (info.name.empty()) info.name = name;
  if (info.created.empty()) info.created = isoTimeUtc(std::chrono::system_clock::now());
  info.host = hostName();
  info.trainerVersion = TRAINDECK_VERSION;
  info.status = RunStatus::Failed;
  info.exitReason = reason;
  info.failedRank = -1;
  info.supervisorPid = 0;
  info.rankPids.clear();
  writeRunInfo(paths, info);  // best effort: stderr has said it already
}

// "the config has errors; nothing was started: KEY: sentence (hint)", the first error named.
std::string configErrorsReason(const Diagnostics& problems) {
  std::string first;
  int errors = 0;
  for (const Diagnostic& d : problems) {
    if (d.severity != Severity::Error) continue;
    if (errors++ == 0)
      first = (d.path.empty() ? "" : d.path + ": ") + d.message + (d.hint.empty() ? "" : " (" + d.hint + ")");
  }
  std::string reason = "the config has errors; nothing was started: " + first;
  if (errors > 1) reason += " (and " + std::to_string(errors - 1) + " more; traindeck-train validate lists them)";
  return reason;
}

}  // namespace

int commandRun(const std::vector<std::string>& args, const CliContext& context) {
  // From the start: a stop (Slurm's USR2 can come as the job starts) is remembered, not fatal.
  for (const int signal : kRunStopSignals) std::signal(signal, requestRunStop);
  const ParsedArgs parsed = parseArgs(args, {{"--config", "--run-dir", "--stop-at", "--slot", "--nnodes", "--node-rank",
                                              "--master-addr", "--master-port"},
                                             {"--resume", "--no-progress"},
                                             {"--set"}});
  const auto runDir = parsed.option("--run-dir");
  const bool resume = parsed.flag("--resume");
  auto configArg = parsed.option("--config");
  if (!configArg && resume && runDir) configArg = RunPaths{*runDir}.config();
  if (!parsed.error.empty() || !configArg || !parsed.positionals.empty()) {
    context.err << "traindeck-train run: " << (parsed.error.empty() ? kUsage : parsed.error) << "\n";
    return kExitUsage;
  }
  // The node flags are settings like any other, so the config's checks cover them.
  std::vector<std::string> overrides = parsed.list("--set");
  for (const auto& [flag, key] : {std::pair{"--nnodes", "strategy.nnodes"},
                                  {"--master-addr", "strategy.master_addr"},
                                  {"--master-port", "strategy.master_port"}})
    if (const auto value = parsed.option(flag)) overrides.push_back(std::string(key) + "=" + *value);
  int nodeRank = 0;
  if (const auto text = parsed.option("--node-rank")) {
    char* end = nullptr;
    nodeRank = static_cast<int>(std::strtol(text->c_str(), &end, 10));
    if (text->empty() || *end != '\0' || nodeRank < 0) {
      context.err << "traindeck-train run: --node-rank takes a node number, 0 or more\n";
      return kExitUsage;
    }
  }
  std::int64_t stopAt = 0;
  if (const auto text = parsed.option("--stop-at")) {
    stopAt = std::atoll(text->c_str());
    if (stopAt <= 0) {
      context.err << "traindeck-train run: --stop-at takes a step number, 1 or more\n";
      return kExitUsage;
    }
  }
  std::optional<TrialSlot> slot;
  if (const auto text = parsed.option("--slot")) {
    slot = parseSlot(*text);
    if (!slot) {
      context.err << "traindeck-train run: --slot takes I/N, this trial's slot I (from 0) of N on this machine\n";
      return kExitUsage;
    }
  }

  const auto checked = checkConfigArgument(*configArg, context, overrides);
  if (!checked) {
    if (runDir) recordFailedStart(*runDir, resume, {}, *configArg + " is neither a config file nor a preset");
    return kExitFailed;
  }
  const LoadedConfig* loaded = &checked->loaded;
  for (const Diagnostic& d : checked->problems) context.err << d.format(loaded->source) << "\n";
  if (hasErrors(checked->problems)) {
    context.err << "traindeck-train run: the config has errors; nothing was started\n";
    if (runDir) recordFailedStart(*runDir, resume, loaded->config.name, configErrorsReason(checked->problems));
    return kExitFailed;
  }
  const RunConfig config = withExpandedPaths(loaded->config, loaded->baseDir, processEnvironment());
  if (nodeRank >= config.strategy.nnodes) {
    context.err << "traindeck-train run: --node-rank " << nodeRank << " is not below strategy.nnodes ("
                << config.strategy.nnodes << ")\n";
    return kExitUsage;
  }
  if (config.target.kind != TargetKind::Local) {
    const std::string reason = std::string("target.kind is ") + (config.target.kind == TargetKind::Slurm ? "slurm" : "ssh") +
                               "; remote jobs are launched from the app (or traindeck --launch HOST)";
    context.err << "traindeck-train run: " << reason << "\n";
    if (runDir) recordFailedStart(*runDir, resume, config.name, reason);
    return kExitFailed;
  }

  const auto now = std::chrono::system_clock::now();
  namespace fs = std::filesystem;
  RunPaths paths;
  paths.root = runDir ? fs::absolute(*runDir).lexically_normal().string()
                      : (fs::path(config.runs_root) / makeRunId(now, slugify(config.name))).string();
  std::error_code ec;
  if (resume && !fs::exists(paths.root, ec)) {
    context.err << "traindeck-train run: --resume needs an existing run directory; " << paths.root
                << " does not exist\n";
    return kExitFailed;
  }
  fs::create_directories(paths.logs(), ec);
  if (ec) {
    context.err << "traindeck-train run: cannot create " << paths.root << ": " << ec.message() << "\n";
    return kExitFailed;
  }
  if (const std::string why = saveConfigFile(config, paths.config()); !why.empty()) {
    context.err << "traindeck-train run: " << why << "\n";
    return kExitFailed;
  }

  LaunchSpec spec;
  spec.workerArgv = {selfExecutable(), "worker", "--run-dir", paths.root};
  if (resume) spec.workerArgv.push_back("--resume");
  if (stopAt > 0) spec.workerArgv.insert(spec.workerArgv.end(), {"--stop-at", std::to_string(stopAt)});
  spec.nprocPerNode = static_cast<int>(config.strategy.nproc_per_node);
  // One of several trials here at once: its part of the devices, or of the cores.
  if (slot) {
    const bool slotCuda = context.host && config.strategy.device != DeviceKind::Cpu;
    spec.extraEnv = slotEnvironment(*slot, usableCores(), slotCuda ? context.host->cudaDevices : 0, spec.nprocPerNode,
                                    std::getenv("CUDA_VISIBLE_DEVICES"));
    for (const auto& [name, value] : spec.extraEnv)
      context.out << "slot " << slotText(*slot) << " on this machine: " << name << "=" << value << "\n";
  }
  spec.nnodes = static_cast<int>(config.strategy.nnodes);
  spec.nodeRank = nodeRank;
  spec.masterAddr = config.strategy.master_addr;
  spec.masterPort = static_cast<int>(config.strategy.master_port);
  spec.paths = paths;
  spec.stopRequested = &g_runStopRequested;
  const char* slurmJob = std::getenv("SLURM_JOB_ID");
  spec.underSlurm = slurmJob && *slurmJob;
  const char* packed = std::getenv("TRAINDECK_PACKED");  // slurm-batch.sh, in a pack
  spec.watchMarkers = spec.underSlurm && packed && *packed;
  if (const char* left = std::getenv("TRAINDECK_REQUEUES_LEFT"); spec.underSlurm && left && *left)
    spec.requeuesLeft = std::max(0, std::atoi(left));
  RunInfo& info = spec.info;
  info.id = fs::path(paths.root).filename().string();
  info.name = config.name;
  info.created = isoTimeUtc(now);
  info.host = hostName();
  info.trainerVersion = TRAINDECK_VERSION;
  info.worldSize = static_cast<int>(config.strategy.worldSize());
  const bool cuda = context.host && context.host->cudaDevices > 0 && config.strategy.device != DeviceKind::Cpu;
  for (int local = 0; local < spec.nprocPerNode; ++local)
    info.devices.push_back(cuda ? "cuda:" + std::to_string(local) : "cpu");
  context.out << "run directory: " << paths.root << "\n" << std::flush;

  const LaunchResult result = superviseRanks(spec);
  for (const int signal : kRunStopSignals) std::signal(signal, SIG_DFL);
  if (result.status == RunStatus::Failed) {
    context.err << "traindeck-train run: " << result.reason << "\n";
    return kExitFailed;
  }
  context.out << result.reason << "\n";
  return trainerExitCode(result.status);
}

}  // namespace traindeck
