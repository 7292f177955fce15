// Config keys' kinds come from the type text of their FieldInfo ("whole number, ...",
// "number, ...", "true or false", "one of ...", "text ..."); a test checks that every key has
// a kind, so a new type text cannot slip through as something else.
#include "config_key_values.h"

#include <limits>

#include "config/config_io.h"
#include "sweep_yaml_read.h"

namespace traindeck {

namespace {
bool startsWith(const std::string& text, const char* prefix) {
  return text.rfind(prefix, 0) == 0;
}
}  // namespace

ConfigValueKind configValueKind(const FieldInfo& field) {
  const std::string& type = field.type;
  if (startsWith(type, "whole number")) return ConfigValueKind::Whole;
  if (startsWith(type, "number")) return ConfigValueKind::Number;
  if (startsWith(type, "true or false")) return ConfigValueKind::Flag;
  if (startsWith(type, "one of")) return ConfigValueKind::Name;
  if (startsWith(type, "text")) return ConfigValueKind::Text;
  return ConfigValueKind::List;
}

std::optional<Diagnostic> configRefusal(const std::string& key, const ParamValue& value) {
  const LoadedConfig loaded = loadConfigText("", "<sweep>", ".", {key + "=" + paramValueYaml(value)});
  for (const Diagnostic& problem : loaded.problems)
    if (problem.severity == Severity::Error) return problem;
  return std::nullopt;
}

std::optional<ParamValue> readConfigValue(const YAML::Node& node, const FieldInfo& field, Diagnostics& out) {
  using namespace sweep_yaml;
  std::optional<ParamValue> value;
  switch (configValueKind(field)) {
    case ConfigValueKind::Whole:
      if (auto whole = readWhole(node, field.path, std::numeric_limits<std::int64_t>::min(), out)) value = *whole;
      break;
    case ConfigValueKind::Number:
      if (auto number = readNumber(node, field.path, out)) value = *number;
      break;
    case ConfigValueKind::Flag:
      if (auto flag = readFlag(node, field.path, out)) value = *flag;
      break;
    case ConfigValueKind::Name:
    case ConfigValueKind::Text:
      if (node.IsScalar())
        value = node.Scalar();
      else
        out.push_back(diagnosticAt(node, field.path, "must be " + field.type + ", not " + describe(node)));
      break;
    case ConfigValueKind::List:
      out.push_back(diagnosticAt(node, field.path, "is a list setting (" + field.type + "), which a sweep cannot vary",
                                 "sweep single values: numbers, whole numbers, true/false, names or texts"));
      break;
  }
  if (!value) return std::nullopt;
  if (const auto refusal = configRefusal(field.path, *value)) {
    out.push_back(diagnosticAt(node, field.path, refusal->message, refusal->hint));
    return std::nullopt;
  }
  return value;
}

}  // namespace traindeck
