// The public description of every config key: its YAML path, type, default and one sentence on
// what it does. docs/config.md, the app's tooltips and unknown-key checks all come from here.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace traindeck {

struct FieldInfo {
  std::string path;          // "strategy.micro_batch"
  std::string type;          // "whole number, at least 1"
  std::string defaultValue;  // the default as YAML text
  std::string doc;           // one sentence
};

std::span<const FieldInfo> configFieldInfos();
const FieldInfo* findFieldInfo(std::string_view path);
// Section names in file order: "model", "data", ...; top-level keys are not sections.
std::vector<std::string> configSections();

// Markdown reference of every key, grouped by section (what docs/config.md holds).
std::string configReferenceMarkdown();

}  // namespace traindeck
