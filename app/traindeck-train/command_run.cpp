// `traindeck-train run --config FILE [--run-dir DIR] [--resume]`: validates everything, makes
// the run directory (config.yaml with paths resolved, run.json), trains, and exits 0 when the
// run finished or was stopped on request, 1 when it failed.
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <csignal>
#include <filesystem>
#include <ostream>

#include "cli_args.h"
#include "commands.h"
#include "trainer/train/train_job.h"

namespace traindeck {

namespace {

volatile std::sig_atomic_t g_stopRequested = 0;

void requestStop(int) { g_stopRequested = 1; }

}  // namespace

int commandRun(const std::vector<std::string>& args, const CliContext& context) {
  const ParsedArgs parsed =
      parseArgs(args, {{"--config", "--run-dir", "--stop-at"}, {"--resume", "--no-progress"}, {"--set"}});
  const auto runDir = parsed.option("--run-dir");
  const bool resume = parsed.flag("--resume");
  auto configArg = parsed.option("--config");
  if (!configArg && resume && runDir) configArg = *runDir + "/config.yaml";
  if (!parsed.error.empty() || !configArg || !parsed.positionals.empty()) {
    context.err << "traindeck-train run: "
                << (parsed.error.empty() ? "usage: traindeck-train run --config FILE [--run-dir DIR] [--resume]"
                                         : parsed.error)
                << "\n";
    return kExitUsage;
  }
  const auto checked = checkConfigArgument(*configArg, context, parsed.list("--set"));
  if (!checked) return kExitFailed;
  const LoadedConfig* loaded = &checked->loaded;
  for (const Diagnostic& d : checked->problems) context.err << d.format(loaded->source) << "\n";
  if (hasErrors(checked->problems)) {
    context.err << "traindeck-train run: the config has errors; nothing was started\n";
    return kExitFailed;
  }
  if (loaded->config.strategy.worldSize() > 1) {
    context.err << "traindeck-train run: this version trains one rank; ddp and zero1 over "
                << loaded->config.strategy.worldSize()
                << " ranks come with the supervisor (set strategy.kind: single and nproc_per_node: 1 for now)\n";
    return kExitFailed;
  }
  if (loaded->config.target.kind != TargetKind::Local) {
    context.err << "traindeck-train run: target.kind is ssh; remote jobs are launched from the app\n";
    return kExitFailed;
  }
  const RunConfig config = withExpandedPaths(loaded->config, loaded->baseDir, processEnvironment());

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

  TrainOptions options;
  options.paths = paths;
  options.resume = resume;
  options.progressLine = !parsed.flag("--no-progress") && ::isatty(STDERR_FILENO);
  options.stopRequested = &g_stopRequested;
  if (const auto stopAt = parsed.option("--stop-at")) {
    options.stopAtStep = std::atoll(stopAt->c_str());
    if (options.stopAtStep <= 0) {
      context.err << "traindeck-train run: --stop-at takes a step number, 1 or more\n";
      return kExitUsage;
    }
  }
  RunInfo& info = options.info;
  info.id = fs::path(paths.root).filename().string();
  info.name = config.name;
  info.created = isoTimeUtc(now);
  info.host = hostName();
  info.trainerVersion = TRAINDECK_VERSION;
  info.worldSize = 1;
  info.devices = {context.host && context.host->cudaDevices > 0 && config.strategy.device != DeviceKind::Cpu ? "cuda:0"
                                                                                                           : "cpu"};
  info.supervisorPid = static_cast<int>(::getpid());
  info.rankPids = {info.supervisorPid};
  context.out << "run directory: " << paths.root << "\n" << std::flush;

  std::signal(SIGINT, requestStop);
  std::signal(SIGTERM, requestStop);
  const TrainResult result = trainJob(config, options);
  std::signal(SIGINT, SIG_DFL);
  std::signal(SIGTERM, SIG_DFL);
  if (result.status == RunStatus::Failed) {
    context.err << "traindeck-train run: " << result.reason << "\n";
    return kExitFailed;
  }
  context.out << result.reason << " (last loss " << result.lastLoss << ")\n";
  return kExitOk;
}

}  // namespace traindeck
