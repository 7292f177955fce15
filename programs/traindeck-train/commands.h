// The subcommands of traindeck-train. Each takes its arguments (after the command name) and
// returns the process exit code; only main() exits.
#pragma once

#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "config/config_io.h"
#include "config/validate.h"
#include "runlog/run_exit.h"

namespace traindeck {

// Exit codes (kExitOk, kExitFailed, kExitUsage, kExitRequeued), documented in docs/cli.md, are
// runlog/run_exit.h's: the app reads them too.

struct CliContext {
  std::vector<std::string> presetDirs;
  std::optional<HostDevices> host;  // this machine's CUDA devices, when LibTorch can tell
  std::string runtimeSummary;       // LibTorch, BLAS and threads, for --version
  std::ostream& out;
  std::ostream& err;
  std::string trainerSources = {};  // trainer-sources.tar.gz the app installs, for export-notebook
};

int commandValidate(const std::vector<std::string>& args, const CliContext& context);
int commandPlan(const std::vector<std::string>& args, const CliContext& context);
int commandPresets(const std::vector<std::string>& args, const CliContext& context);
int commandConfigReference(const std::vector<std::string>& args, const CliContext& context);
int commandTokenize(const std::vector<std::string>& args, const CliContext& context);
int commandPrepare(const std::vector<std::string>& args, const CliContext& context);
int commandExportNotebook(const std::vector<std::string>& args, const CliContext& context);
#if defined(TRAINDECK_WITH_TRAINER)
int commandRun(const std::vector<std::string>& args, const CliContext& context);
int commandWorker(const std::vector<std::string>& args, const CliContext& context);
int commandExport(const std::vector<std::string>& args, const CliContext& context);
int commandSample(const std::vector<std::string>& args, const CliContext& context);
int commandScore(const std::vector<std::string>& args, const CliContext& context);
#endif

// Loads `nameOrPath` (a file or a preset name) with `--set KEY=VALUE` overrides; prints why and
// returns nullopt when it cannot.
std::optional<LoadedConfig> loadConfigArgument(const std::string& nameOrPath, const CliContext& context,
                                               const std::vector<std::string>& overrides = {});

struct CheckedConfig {
  LoadedConfig loaded;
  Diagnostics problems;  // load problems and rule violations, in file order
};
// loadConfigArgument, then every rule against this machine (or, with `forThisMachine` false,
// none of the rules that need to know it).
std::optional<CheckedConfig> checkConfigArgument(const std::string& nameOrPath, const CliContext& context,
                                                 const std::vector<std::string>& overrides, bool forThisMachine = true);

}  // namespace traindeck
