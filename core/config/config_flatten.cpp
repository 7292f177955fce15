#include "config_flatten.h"

#include <yaml-cpp/yaml.h>

namespace traindeck {

namespace {

std::string flowText(const YAML::Node& node) {
  if (node.IsScalar()) return node.Scalar();
  if (node.IsNull()) return "null";
  std::string out = node.IsSequence() ? "[" : "{";
  bool first = true;
  for (const auto& item : node) {
    out += first ? "" : ", ";
    first = false;
    if (node.IsSequence())
      out += flowText(item);
    else
      out += flowText(item.first) + ": " + flowText(item.second);
  }
  return out + (node.IsSequence() ? "]" : "}");
}

void flatten(const YAML::Node& node, const std::string& prefix, FlatConfig& out) {
  if (node.IsMap()) {
    for (const auto& item : node) {
      const std::string key = item.first.IsScalar() ? item.first.Scalar() : flowText(item.first);
      flatten(item.second, prefix.empty() ? key : prefix + "." + key, out);
    }
    return;
  }
  out.entries.emplace_back(prefix, flowText(node));
}

}  // namespace

FlatConfig flattenYaml(const std::string& text) {
  FlatConfig out;
  try {
    const YAML::Node root = YAML::Load(text);
    if (root.IsMap())
      flatten(root, "", out);
    else if (!root.IsNull())
      out.error = "is not a mapping of keys";
  } catch (const YAML::Exception& e) {
    out.error = e.what();
  }
  return out;
}

}  // namespace traindeck
