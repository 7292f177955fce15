// `traindeck-train validate --config FILE`: every problem, one per line, compiler style.
// `validate --machine`: the facts about this machine that the rules use, for the app, which
// checks its local jobs with them (config/machine_facts.h).
#include <ostream>

#include "cli_args.h"
#include "commands.h"
#include "config/machine_facts.h"
#include "config/preset_files.h"

namespace traindeck {

std::optional<LoadedConfig> loadConfigArgument(const std::string& nameOrPath, const CliContext& context,
                                               const std::vector<std::string>& overrides) {
  const auto path = resolveConfigPath(nameOrPath, context.presetDirs);
  if (!path) {
    std::string presets;
    for (const std::string& name : listPresets(context.presetDirs)) presets += (presets.empty() ? "" : ", ") + name;
    context.err << "traindeck-train: " << nameOrPath << " is neither a config file nor a preset"
                << (presets.empty() ? std::string() : " (presets: " + presets + ")") << "\n";
    return std::nullopt;
  }
  return loadConfigFile(*path, overrides);
}

std::optional<CheckedConfig> checkConfigArgument(const std::string& nameOrPath, const CliContext& context,
                                                 const std::vector<std::string>& overrides, bool forThisMachine) {
  auto loaded = loadConfigArgument(nameOrPath, context, overrides);
  if (!loaded) return std::nullopt;
  ValidationContext validation;
  if (forThisMachine) validation.host = context.host;
  Diagnostics problems = checkConfig(*loaded, validation);
  return CheckedConfig{std::move(*loaded), std::move(problems)};
}

int commandValidate(const std::vector<std::string>& args, const CliContext& context) {
  const ParsedArgs parsed = parseArgs(args, {{"--config"}, {"--machine"}, {"--set"}});
  const auto config = parsed.option("--config");
  const bool machine = parsed.flag("--machine");
  if (!parsed.error.empty() || config.has_value() == machine || !parsed.positionals.empty()) {
    context.err << "traindeck-train validate: "
                << (parsed.error.empty() ? "usage: traindeck-train validate --config FILE | --machine" : parsed.error)
                << "\n";
    return kExitUsage;
  }
  if (machine) {
    context.out << machineFactsJson(context.host);
    return kExitOk;
  }
  const auto checked = checkConfigArgument(*config, context, parsed.list("--set"));
  if (!checked) return kExitFailed;
  const std::string& source = checked->loaded.source;
  int errors = 0, warnings = 0;
  for (const Diagnostic& d : checked->problems) {
    context.out << d.format(source) << "\n";
    (d.severity == Severity::Error ? errors : warnings) += 1;
  }
  if (errors == 0)
    context.out << source << ": valid" << (warnings ? " (" + std::to_string(warnings) + " warnings)" : "") << "\n";
  else
    context.out << errors << (errors == 1 ? " error" : " errors") << ", " << warnings
                << (warnings == 1 ? " warning" : " warnings") << "\n";
  return errors == 0 ? kExitOk : kExitFailed;
}

}  // namespace traindeck
