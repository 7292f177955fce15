// Small informational commands: the list of presets and the config reference.
#include <ostream>

#include "cli_args.h"
#include "commands.h"
#include "config/config_fields.h"
#include "config/preset_files.h"

namespace traindeck {

int commandPresets(const std::vector<std::string>& args, const CliContext& context) {
  const ParsedArgs parsed = parseArgs(args, {});
  if (!parsed.error.empty() || !parsed.positionals.empty()) {
    context.err << "traindeck-train presets: usage: traindeck-train presets\n";
    return kExitUsage;
  }
  for (const std::string& name : listPresets(context.presetDirs)) {
    const auto path = resolveConfigPath(name, context.presetDirs);
    context.out << name << "\t" << path.value_or("?") << "\n";
  }
  return kExitOk;
}

int commandConfigReference(const std::vector<std::string>& args, const CliContext& context) {
  const ParsedArgs parsed = parseArgs(args, {});
  if (!parsed.error.empty() || !parsed.positionals.empty()) {
    context.err << "traindeck-train config-reference: usage: traindeck-train config-reference > docs/config.md\n";
    return kExitUsage;
  }
  context.out << configReferenceMarkdown();
  return kExitOk;
}

}  // namespace traindeck
