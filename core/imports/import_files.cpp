// Everything here either succeeds or throws ImportError naming the path; std::filesystem's own
// errors never escape (the non-throwing overloads are used).
#include "imports/import_files.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "imports/import_error.h"
#include "runlog/json_value.h"
#include "runlog/json_copy.h"

namespace traindeck {

namespace {

constexpr int kConfigDepth = 4;

void addJsonLeaves(const JsonValue& v, RunBuilder& into, const std::string& key, int depth) {
  if (v.isObject() && depth < kConfigDepth && v.size() > 0) {
    for (const auto& [k, member] : v.members()) addJsonLeaves(member, into, key.empty() ? k : key + "." + k, depth + 1);
    return;
  }
  if (key.empty()) return;
  if (v.isString()) {
    into.setConfig(key, v.text());
    return;
  }
  into.setConfig(key, jsonText(v));
}

void addYamlLeaves(const YAML::Node& node, RunBuilder& into, const std::string& key, int depth) {
  if (node.IsMap() && depth < kConfigDepth && node.size() > 0) {
    for (const auto& item : node) {
      const std::string k = item.first.IsScalar() ? item.first.Scalar() : std::string("?");
      addYamlLeaves(item.second, into, key.empty() ? k : key + "." + k, depth + 1);
    }
    return;
  }
  if (key.empty()) return;
  if (node.IsScalar()) {
    into.setConfig(key, node.Scalar());
  } else if (node.IsNull()) {
    into.setConfig(key, "null");
  } else {
    YAML::Emitter out;
    out.SetMapFormat(YAML::Flow);
    out.SetSeqFormat(YAML::Flow);
    out << node;
    into.setConfig(key, out.c_str());
  }
}

}  // namespace

std::string readFileBytes(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw ImportError(file.string() + ": cannot open: " + std::strerror(errno));
  std::ostringstream bytes;
  bytes << in.rdbuf();
  if (in.bad()) throw ImportError(file.string() + ": cannot read");
  return std::move(bytes).str();
}

std::vector<std::filesystem::path> sortedEntries(const std::filesystem::path& folder) {
  std::vector<std::filesystem::path> entries;
  std::error_code ec;
  for (std::filesystem::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec))
    entries.push_back(it->path());
  std::sort(entries.begin(), entries.end());
  return entries;
}

bool isDirectory(const std::filesystem::path& path) {
  std::error_code ec;
  return std::filesystem::is_directory(path, ec);
}

bool isRegularFile(const std::filesystem::path& path) {
  std::error_code ec;
  return std::filesystem::is_regular_file(path, ec);
}

void addJsonConfig(const JsonValue& object, RunBuilder& into, const std::string& prefix) {
  addJsonLeaves(object, into, prefix, 0);
}

void addYamlConfig(const std::filesystem::path& file, RunBuilder& into) {
  try {
    addYamlLeaves(YAML::LoadFile(file.string()), into, {}, 0);
  } catch (const YAML::Exception& e) {
    into.addProblem(file.string() + ": not read as YAML: " + e.what());
  }
}

}  // namespace traindeck
