// Command-line parsing for traindeck-train: `COMMAND [--option VALUE | --flag | positional]...`,
// checked against what each command accepts so that a typo is an error, not ignored.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace traindeck {

struct CommandSpec {
  std::set<std::string> options = {};  // take a value: "--config"
  std::set<std::string> flags = {};    // take none: "--json"
  std::set<std::string> lists = {};    // take a value and may repeat: "--set"
};

struct ParsedArgs {
  std::map<std::string, std::string> options;
  std::map<std::string, std::vector<std::string>> lists;
  std::set<std::string> flags;
  std::vector<std::string> positionals;
  std::string error;  // empty when parsing succeeded

  std::optional<std::string> option(const std::string& name) const;
  bool flag(const std::string& name) const { return flags.count(name) > 0; }
  std::vector<std::string> list(const std::string& name) const;
};

ParsedArgs parseArgs(const std::vector<std::string>& args, const CommandSpec& spec);

}  // namespace traindeck
