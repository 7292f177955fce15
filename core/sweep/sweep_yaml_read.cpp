// Scalar and map readers for sweep.yaml, each reporting at the node that is wrong.
#include "sweep_yaml_read.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <set>

#include "config/suggest.h"

namespace traindeck::sweep_yaml {

std::string describe(const YAML::Node& node) {
  if (!node.IsDefined() || node.IsNull()) return "nothing";
  if (node.IsSequence()) return "a list";
  if (node.IsMap()) return "a map";
  std::string text = node.Scalar();
  if (text.size() > 40) text = text.substr(0, 37) + "...";
  return "'" + text + "'";
}

std::string listOfNames(const std::vector<std::string>& names) {
  std::string out;
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (i > 0) out += i + 1 == names.size() ? " or " : ", ";
    out += names[i];
  }
  return out;
}

void reportDuplicateKeys(const YAML::Node& map, const std::string& path, Diagnostics& out) {
  std::set<std::string> seen;
  for (auto it = map.begin(); it != map.end(); ++it) {
    const YAML::Node key = it->first;
    if (!key.IsScalar()) {
      out.push_back(diagnosticAt(key, path, "has a key that is " + describe(key) + "; keys are plain names"));
      continue;
    }
    if (!seen.insert(key.Scalar()).second)
      out.push_back(diagnosticAt(key, path.empty() ? key.Scalar() : path + "." + key.Scalar(), "appears twice",
                                 "remove one of them"));
  }
}

void checkKeys(const YAML::Node& map, const std::string& path, const std::vector<std::string>& allowed,
               Diagnostics& out) {
  reportDuplicateKeys(map, path, out);
  std::set<std::string> seen;
  for (auto it = map.begin(); it != map.end(); ++it) {
    const YAML::Node key = it->first;
    if (!key.IsScalar() || !seen.insert(key.Scalar()).second) continue;
    const std::string& name = key.Scalar();
    if (std::find(allowed.begin(), allowed.end(), name) != allowed.end()) continue;
    const auto guess = closestMatch(name, allowed);
    out.push_back(diagnosticAt(key, path.empty() ? name : path + "." + name, "is not a sweep setting",
                               guess ? "did you mean " + *guess + "?" : "it takes " + listOfNames(allowed)));
  }
}

bool readMap(const YAML::Node& node, const std::string& path, const std::vector<std::string>& keys,
             const std::string& example, Diagnostics& out) {
  if (!node.IsMap()) {
    out.push_back(diagnosticAt(node, path, "must be a map, not " + describe(node), "e.g. " + example));
    return false;
  }
  checkKeys(node, path, keys, out);
  return true;
}

std::optional<std::int64_t> readWhole(const YAML::Node& node, const std::string& path, std::int64_t min,
                                      Diagnostics& out) {
  std::optional<std::int64_t> value;
  if (node.IsScalar()) {
    const std::string& text = node.Scalar();
    std::int64_t whole = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), whole);
    double real = 0;
    if (ec == std::errc() && end == text.data() + text.size())
      value = whole;
    else if (YAML::convert<double>::decode(node, real) && std::isfinite(real) && real == std::floor(real) &&
             std::fabs(real) < 9.0e18)
      value = static_cast<std::int64_t>(real);
  }
  if (!value) {
    out.push_back(diagnosticAt(node, path, "must be a whole number, not " + describe(node)));
    return std::nullopt;
  }
  if (*value < min) {
    out.push_back(diagnosticAt(node, path, "must be at least " + std::to_string(min) + ", not " + node.Scalar()));
    return std::nullopt;
  }
  return value;
}

std::optional<double> readNumber(const YAML::Node& node, const std::string& path, Diagnostics& out) {
  double value = 0;
  if (node.IsScalar() && YAML::convert<double>::decode(node, value) && std::isfinite(value)) return value;
  out.push_back(diagnosticAt(node, path, "must be a number, not " + describe(node)));
  return std::nullopt;
}

std::optional<bool> readFlag(const YAML::Node& node, const std::string& path, Diagnostics& out) {
  bool value = false;
  if (node.IsScalar() && YAML::convert<bool>::decode(node, value)) return value;
  out.push_back(diagnosticAt(node, path, "must be true or false, not " + describe(node)));
  return std::nullopt;
}

std::optional<std::string> readText(const YAML::Node& node, const std::string& path, Diagnostics& out) {
  if (node.IsScalar() && !node.Scalar().empty()) return node.Scalar();
  out.push_back(diagnosticAt(node, path, "must be a text, not " + describe(node)));
  return std::nullopt;
}

std::optional<std::string> readName(const YAML::Node& node, const std::string& path,
                                    const std::vector<std::string>& names, Diagnostics& out) {
  if (node.IsScalar() && std::find(names.begin(), names.end(), node.Scalar()) != names.end()) return node.Scalar();
  std::string hint;
  if (node.IsScalar())
    if (const auto guess = closestMatch(node.Scalar(), names)) hint = "did you mean " + *guess + "?";
  out.push_back(diagnosticAt(node, path, "must be " + listOfNames(names) + ", not " + describe(node), hint));
  return std::nullopt;
}

}  // namespace traindeck::sweep_yaml
