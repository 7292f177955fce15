// `parameters:` maps config keys to a list (`values:`/`choices:`, or a bare list) or a range
// (`min:`, `max:`, `log:`, `int:`), with an optional `when:`. Keys are checked against
// core/config's field table and every value against the key's own rules.
#include <algorithm>
#include <cmath>

#include "config/suggest.h"
#include "config_key_values.h"
#include "sweep_spec_parts.h"
#include "sweep_yaml_read.h"

namespace traindeck::sweep_yaml {

namespace {

const std::vector<std::string> kParameterKeys{"values", "choices", "min", "max", "log", "int", "when"};

std::vector<std::string> allConfigKeys() {
  std::vector<std::string> keys;
  for (const FieldInfo& field : configFieldInfos()) keys.push_back(field.path);
  return keys;
}

void readList(const YAML::Node& list, const FieldInfo& field, ParameterSpec& spec, Diagnostics& out) {
  if (!list.IsSequence() || list.size() == 0) {
    out.push_back(diagnosticAt(list, field.path, "must be a list of values, not " + describe(list),
                               "e.g. values: [" + field.defaultValue + ", ...]"));
    return;
  }
  for (const YAML::Node& item : list) {
    auto value = readConfigValue(item, field, out);
    if (!value) continue;
    if (std::find(spec.values.begin(), spec.values.end(), *value) != spec.values.end()) {
      out.push_back(diagnosticAt(item, field.path, paramValueShort(*value) + " appears twice in the list",
                                 "remove one of them", Severity::Warning));
      continue;
    }
    spec.values.push_back(*value);
  }
}

// The endpoints are values the key must take; whole-number keys always sample whole numbers.
void readRange(const YAML::Node& map, const FieldInfo& field, ParameterSpec& spec, Diagnostics& out) {
  const ConfigValueKind kind = configValueKind(field);
  if (kind != ConfigValueKind::Whole && kind != ConfigValueKind::Number) {
    out.push_back(diagnosticAt(map["min"] ? map["min"] : map["max"], field.path,
                               "takes " + field.type + ", so it cannot be a range",
                               "list what to try: choices: [...]"));
    return;
  }
  if (!map["min"] || !map["max"]) {
    out.push_back(diagnosticAt(map, field.path, "a range needs both min: and max:"));
    return;
  }
  spec.isRange = true;
  spec.integer = kind == ConfigValueKind::Whole;
  if (const YAML::Node flag = map["int"]) {
    const auto integer = readFlag(flag, field.path + ".int", out);
    if (integer && !*integer && kind == ConfigValueKind::Whole)
      out.push_back(diagnosticAt(flag, field.path + ".int", "cannot be false: " + field.path + " takes whole numbers"));
    if (integer) spec.integer = spec.integer || *integer;
  }
  if (const YAML::Node flag = map["log"])
    if (const auto log = readFlag(flag, field.path + ".log", out)) spec.log = *log;
  bool endpointsRead = true;
  for (const char* end : {"min", "max"}) {
    const YAML::Node node = map[end];
    const auto number = readNumber(node, field.path + "." + end, out);
    if (!number) {
      endpointsRead = false;
      continue;
    }
    (std::string(end) == "min" ? spec.min : spec.max) = *number;
    if (spec.integer && *number != std::floor(*number)) {
      out.push_back(diagnosticAt(node, field.path + "." + end, "must be a whole number for a range of whole numbers"));
      endpointsRead = false;
    } else if (!readConfigValue(node, field, out)) {
      endpointsRead = false;
    }
  }
  if (!endpointsRead) return;
  if (!(spec.min < spec.max))
    out.push_back(
        diagnosticAt(map["max"], field.path + ".max", "must be above min",
                     "for a single value, set it in the base job or write values: [" + map["min"].Scalar() + "]"));
  else if (spec.log && spec.min <= 0)
    out.push_back(diagnosticAt(map["min"], field.path + ".min", "must be above 0 on a log scale",
                               "use log: false, or a min above 0"));
}

// `when:` names parameters written above this one, which have a list of values.
void readConditions(const YAML::Node& when, const std::vector<ParameterSpec>& earlier, ParameterSpec& spec,
                    Diagnostics& out) {
  const std::string path = spec.key + ".when";
  if (!when.IsMap() || when.size() == 0) {
    out.push_back(diagnosticAt(when, path, "must be a map of parameter to value, not " + describe(when),
                               "e.g. when: {schedule.decay: cosine}"));
    return;
  }
  for (auto it = when.begin(); it != when.end(); ++it) {
    const std::string key = it->first.Scalar();
    const auto other = std::find_if(earlier.begin(), earlier.end(), [&](const auto& p) { return p.key == key; });
    if (other == earlier.end()) {
      const bool later = key != spec.key && findFieldInfo(key) != nullptr;
      out.push_back(diagnosticAt(it->first, path, "names " + key + ", which is not a parameter above this one",
                                 later ? "a condition may name only parameters written above it: move this one down"
                                       : "a condition names another parameter of this sweep"));
      continue;
    }
    if (other->isRange) {
      out.push_back(diagnosticAt(it->first, path, key + " is a range; a condition needs a parameter with a list",
                                 "give " + key + " values: [...]"));
      continue;
    }
    ParamCondition condition{key, {}};
    const YAML::Node wanted = it->second;
    const std::vector<YAML::Node> items =
        wanted.IsSequence() ? std::vector<YAML::Node>(wanted.begin(), wanted.end()) : std::vector<YAML::Node>{wanted};
    for (const YAML::Node& item : items) {
      const auto value = readConfigValue(item, *findFieldInfo(key), out);
      if (!value) continue;
      if (std::find(other->values.begin(), other->values.end(), *value) == other->values.end()) {
        std::string listed;
        for (const ParamValue& v : other->values) listed += (listed.empty() ? "" : ", ") + paramValueShort(v);
        out.push_back(diagnosticAt(item, path, key + " is never " + paramValueShort(*value) + " in this sweep",
                                   "it takes " + listed));
        continue;
      }
      condition.anyOf.push_back(*value);
    }
    if (!condition.anyOf.empty()) spec.when.push_back(std::move(condition));
  }
}

std::optional<ParameterSpec> readParameter(const YAML::Node& keyNode, const YAML::Node& node,
                                           const std::vector<ParameterSpec>& earlier, Diagnostics& out) {
  ParameterSpec spec;
  spec.key = keyNode.Scalar();
  spec.place = {keyNode.Mark().line + 1, keyNode.Mark().column + 1};
  const FieldInfo* field = findFieldInfo(spec.key);
  if (!field) {
    const auto guess = closestMatch(spec.key, allConfigKeys());
    out.push_back(diagnosticAt(keyNode, spec.key, "is not a config key",
                               guess ? "did you mean " + *guess + "?"
                                     : "parameters are config keys such as optimizer.lr "
                                       "(docs/config.md lists them)"));
    return std::nullopt;
  }
  if (configValueKind(*field) == ConfigValueKind::List) {
    out.push_back(diagnosticAt(keyNode, spec.key, "is a list setting (" + field->type + "), which a sweep cannot vary",
                               "sweep single values: numbers, whole numbers, true/false, names or texts"));
    return std::nullopt;
  }
  const std::size_t before = out.size();
  if (node.IsSequence()) {
    readList(node, *field, spec, out);
  } else if (node.IsMap()) {
    checkKeys(node, spec.key, kParameterKeys, out);
    const int given = (node["values"] ? 1 : 0) + (node["choices"] ? 1 : 0) + (node["min"] || node["max"] ? 1 : 0);
    if (given != 1)
      out.push_back(diagnosticAt(keyNode, spec.key,
                                 given == 0 ? "says neither values:, choices: nor a range (min:, max:)"
                                            : "gives more than one of values:, choices: and a range",
                                 "give one: values: [...] (or choices: [...]) or min: and max:"));
    else if (node["values"] || node["choices"])
      readList(node["values"] ? node["values"] : node["choices"], *field, spec, out);
    else
      readRange(node, *field, spec, out);
    if (!spec.isRange && (node["log"] || node["int"]))
      out.push_back(diagnosticAt(node["log"] ? node["log"] : node["int"], spec.key,
                                 "log: and int: shape a range; they do nothing for a list", "remove them",
                                 Severity::Warning));
    if (node["when"]) readConditions(node["when"], earlier, spec, out);
  } else {
    out.push_back(diagnosticAt(node.IsNull() ? keyNode : node, spec.key,
                               "is one value (" + describe(node) + "); a sweep parameter tries several",
                               "set a fixed value in the base job, or give values: [...] or min: and max:"));
    return std::nullopt;
  }
  if (hasErrors(Diagnostics(out.begin() + static_cast<long>(before), out.end()))) return std::nullopt;
  return spec;
}

}  // namespace

std::vector<ParameterSpec> readParameters(const YAML::Node& map, Diagnostics& out) {
  std::vector<ParameterSpec> parameters;
  if (!map.IsMap() || map.size() == 0) {
    out.push_back(diagnosticAt(map, "parameters", "must be a map of config keys to what to try, not " + describe(map),
                               "e.g. parameters: {optimizer.lr: {min: 1e-4, max: 1e-2, log: true}}"));
    return parameters;
  }
  reportDuplicateKeys(map, "parameters", out);
  for (auto it = map.begin(); it != map.end(); ++it) {
    if (!it->first.IsScalar()) continue;
    const std::string key = it->first.Scalar();
    if (std::any_of(parameters.begin(), parameters.end(), [&](const auto& p) { return p.key == key; })) continue;
    if (auto parameter = readParameter(it->first, it->second, parameters, out))
      parameters.push_back(std::move(*parameter));
  }
  return parameters;
}

}  // namespace traindeck::sweep_yaml
