// Accepts `--name value` and `--name=value`; `--` ends options.
#include "cli_args.h"

namespace traindeck {

std::optional<std::string> ParsedArgs::option(const std::string& name) const {
  if (auto it = options.find(name); it != options.end()) return it->second;
  return std::nullopt;
}

std::vector<std::string> ParsedArgs::list(const std::string& name) const {
  if (auto it = lists.find(name); it != lists.end()) return it->second;
  return {};
}

ParsedArgs parseArgs(const std::vector<std::string>& args, const CommandSpec& spec) {
  ParsedArgs parsed;
  bool onlyPositionals = false;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (onlyPositionals || arg.size() < 2 || arg.rfind("--", 0) != 0) {
      parsed.positionals.push_back(arg);
      continue;
    }
    if (arg == "--") {
      onlyPositionals = true;
      continue;
    }
    std::string name = arg;
    std::optional<std::string> inlineValue;
    if (const auto eq = arg.find('='); eq != std::string::npos) {
      name = arg.substr(0, eq);
      inlineValue = arg.substr(eq + 1);
    }
    if (spec.flags.count(name)) {
      if (inlineValue) {
        parsed.error = name + " takes no value";
        return parsed;
      }
      parsed.flags.insert(name);
    } else if (spec.options.count(name) || spec.lists.count(name)) {
      std::string value;
      if (inlineValue) {
        value = *inlineValue;
      } else if (i + 1 < args.size()) {
        value = args[++i];
      } else {
        parsed.error = name + " needs a value";
        return parsed;
      }
      if (spec.lists.count(name))
        parsed.lists[name].push_back(value);
      else
        parsed.options[name] = value;
    } else {
      parsed.error = "unknown option " + name;
      return parsed;
    }
  }
  return parsed;
}

}  // namespace traindeck
