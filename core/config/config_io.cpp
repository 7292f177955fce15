// YAML in and out. Loading walks the document once for its shape (unknown and duplicate keys,
// sections that are not maps), then reads each known key through the field table.
#include "config_io.h"

#include <algorithm>
#include <climits>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include <yaml-cpp/eventhandler.h>

#include "field_codecs.h"
#include "runlog/atomic_file.h"
#include "suggest.h"
#include "value_codecs.h"

namespace traindeck {

namespace {

struct KeyLayout {
  std::set<std::string> topLevel;                          // "name", "seed", "model", ...
  std::map<std::string, std::vector<std::string>> inside;  // "model" -> {"preset", ...}
};

KeyLayout keyLayout() {
  KeyLayout layout;
  for (const FieldCodec& codec : fieldCodecs()) {
    const std::string& path = codec.info.path;
    const auto dot = path.find('.');
    if (dot == std::string::npos) {
      layout.topLevel.insert(path);
    } else {
      layout.topLevel.insert(path.substr(0, dot));
      layout.inside[path.substr(0, dot)].push_back(path.substr(dot + 1));
    }
  }
  return layout;
}

// "did you mean micro_batch?", or where a key that exists elsewhere belongs.
std::string unknownKeyHint(const std::string& key, const std::string& section, const KeyLayout& layout) {
  std::vector<std::string> siblings;
  if (section.empty())
    siblings.assign(layout.topLevel.begin(), layout.topLevel.end());
  else
    siblings = layout.inside.at(section);
  if (auto guess = closestMatch(key, siblings)) return "did you mean " + *guess + "?";
  for (const auto& [other, keys] : layout.inside) {
    if (other == section) continue;
    for (const std::string& k : keys)
      if (k == key) return "it belongs in the " + other + " section: " + other + "." + key;
  }
  if (!section.empty() && layout.topLevel.count(key)) return "it belongs at the top level, not inside " + section;
  return "see docs/config.md for every key";
}

class DocumentReader {
 public:
  explicit DocumentReader(LoadedConfig& result) : m_result(result), m_layout(keyLayout()) {}

  void read(const YAML::Node& root) {
    if (!root.IsDefined() || root.IsNull()) return;  // an empty file: every default
    if (!root.IsMap()) {
      problem(root, "", "must be a map of sections (name:, model:, data:, ...), not " + describeNode(root));
      return;
    }
    walkMap(root, "");
    for (const FieldCodec& codec : fieldCodecs()) {
      const auto found = m_values.find(codec.info.path);
      if (found == m_values.end()) continue;
      const auto& [key, value] = found->second;
      const YAML::Mark mark = value.IsNull() ? key.Mark() : value.Mark();
      if (!mark.is_null()) m_result.places[codec.info.path] = {mark.line + 1, mark.column + 1};
      codec.read(key, value, m_result.config, m_result.problems);
    }
  }

 private:
  // Records every known key's value node; reports unknown, duplicate and misshapen keys.
  void walkMap(const YAML::Node& map, const std::string& section) {
    std::set<std::string> seen;
    for (auto it = map.begin(); it != map.end(); ++it) {
      const YAML::Node key = it->first;
      const YAML::Node value = it->second;
      if (!key.IsScalar()) {
        problem(key, section, "has a key that is " + describeNode(key) + "; keys are plain names");
        continue;
      }
      const std::string name = key.Scalar();
      const std::string path = section.empty() ? name : section + "." + name;
      if (!seen.insert(name).second) {
        problem(key, path, "appears twice", "remove one of them");
        continue;
      }
      if (section.empty() && m_layout.inside.count(name)) {
        if (value.IsMap())
          walkMap(value, name);
        else if (!value.IsNull())
          problem(value, path, "must be a map of " + name + " settings, not " + describeNode(value));
        continue;
      }
      const bool known =
          section.empty() ? m_layout.topLevel.count(name) > 0 : contains(m_layout.inside.at(section), name);
      if (!known) {
        problem(key, path, "is not a setting", unknownKeyHint(name, section, m_layout));
        continue;
      }
      m_values.emplace(path, std::make_pair(key, value));
    }
  }

  static bool contains(const std::vector<std::string>& keys, const std::string& key) {
    return std::find(keys.begin(), keys.end(), key) != keys.end();
  }

  void problem(const YAML::Node& node, const std::string& path, std::string message, std::string hint = {}) {
    m_result.problems.push_back(diagnosticAt(node, path, std::move(message), std::move(hint)));
  }

  LoadedConfig& m_result;
  KeyLayout m_layout;
  std::map<std::string, std::pair<YAML::Node, YAML::Node>> m_values;  // path -> (key, value)
};

// Counts documents without building them. yaml-cpp 0.7's LoadAll loops forever on some inputs
// (a stray ',' at the top level yields empty documents that never advance), so this stops at
// the second document, or when a document starts where the previous one did.
class DocumentCounter : public YAML::EventHandler {
 public:
  void OnDocumentStart(const YAML::Mark& mark) override {
    stuck = stuck || (documents > 0 && mark.pos == lastStart.pos);
    lastStart = mark;
    ++documents;
  }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t, const std::string&) override {}
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
  void OnMapEnd() override {}

  int documents = 0;
  bool stuck = false;
  YAML::Mark lastStart = YAML::Mark::null_mark();
};

// The first tab in the indentation of a line that is not blank, up to line
// `lastLine` (1-based), as a 1-based (line, column); {0, 0} when none. yaml-cpp's own message
// for one ("illegal map value", "illegal tab when looking for indentation") does not say what
// to do, and may stand on a later line.
std::pair<int, int> tabInIndentation(const std::string& text, int lastLine) {
  int line = 1;
  for (std::size_t start = 0; start < text.size() && line <= lastLine; ++line) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    const std::size_t content = text.find_first_not_of(" \t\r", start);
    if (content < end) {
      const std::size_t tab = text.find('\t', start);
      if (tab < content) return {line, static_cast<int>(tab - start) + 1};
    }
    start = end + 1;
  }
  return {0, 0};
}

}  // namespace

// The offset of the first byte that is not part of well-formed UTF-8 text, or npos. Control
// characters other than tab and line breaks count as not text: YAML allows none of them.
std::size_t firstInvalidUtf8(const std::string& text) {
  std::size_t i = 0;
  while (i < text.size()) {
    const auto byte = static_cast<unsigned char>(text[i]);
    std::size_t length = 1;
    unsigned min = 0;
    if (byte < 0x80) {
      if ((byte < 0x20 && byte != '\t' && byte != '\n' && byte != '\r') || byte == 0x7F) return i;
      ++i;
      continue;
    } else if ((byte & 0xE0) == 0xC0) {
      length = 2, min = 0x80;
    } else if ((byte & 0xF0) == 0xE0) {
      length = 3, min = 0x800;
    } else if ((byte & 0xF8) == 0xF0) {
      length = 4, min = 0x10000;
    } else {
      return i;
    }
    if (i + length > text.size()) return i;
    unsigned codePoint = byte & (0x7F >> length);
    for (std::size_t k = 1; k < length; ++k) {
      const auto next = static_cast<unsigned char>(text[i + k]);
      if ((next & 0xC0) != 0x80) return i;
      codePoint = (codePoint << 6) | (next & 0x3F);
    }
    if (codePoint < min || codePoint > 0x10FFFF || (codePoint >= 0xD800 && codePoint <= 0xDFFF)) return i;
    i += length;
  }
  return std::string::npos;
}

// Sets root[section][key] (or root[key]) to each override's value; bad ones become problems.
static void applyOverrides(YAML::Node& root, const std::vector<std::string>& overrides, Diagnostics& problems) {
  for (const std::string& item : overrides) {
    const auto eq = item.find('=');
    const std::string path = item.substr(0, eq);
    const auto dot = path.find('.');
    const bool wellFormed = eq != std::string::npos && !path.empty() && path.find('.', dot + 1) == std::string::npos &&
                            dot != 0 && dot + 1 != path.size();
    if (!wellFormed) {
      problems.push_back(fileDiagnostic("override '" + item + "' is not KEY=VALUE (e.g. strategy.micro_batch=8)"));
      continue;
    }
    YAML::Node value;
    try {
      value = YAML::Load(item.substr(eq + 1));
    } catch (const YAML::Exception& e) {
      Diagnostic d = fileDiagnostic("override '" + item + "' has a value that is not valid YAML: " + e.msg);
      d.path = path;
      problems.push_back(d);
      continue;
    }
    if (!root.IsMap()) root = YAML::Node(YAML::NodeType::Map);
    if (dot == std::string::npos) {
      root[path] = value;
    } else {
      YAML::Node section = root[path.substr(0, dot)];
      if (!section.IsMap()) section = YAML::Node(YAML::NodeType::Map);
      section[path.substr(dot + 1)] = value;
      root[path.substr(0, dot)] = section;
    }
  }
}

LoadedConfig loadConfigText(const std::string& text, const std::string& source, const std::string& baseDir,
                            const std::vector<std::string>& overrides) {
  LoadedConfig result;
  result.source = source;
  result.baseDir = baseDir;
  if (text.size() > kMaxConfigBytes) {
    result.problems.push_back(fileDiagnostic("is " + std::to_string(text.size() >> 10) +
                                             " KiB; a config is a few KiB of YAML (is this the right file?)"));
    return result;
  }
  if (const std::size_t bad = firstInvalidUtf8(text); bad != std::string::npos) {
    const std::size_t lineStart = text.rfind('\n', bad == 0 ? 0 : bad - 1);
    const int line = 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<long>(bad), '\n'));
    const int column = static_cast<int>(bad - (lineStart == std::string::npos || bad == 0 ? 0 : lineStart + 1)) + 1;
    char hex[8];
    std::snprintf(hex, sizeof hex, "0x%02X", static_cast<unsigned char>(text[bad]));
    const bool control = static_cast<unsigned char>(text[bad]) < 0x80;
    result.problems.push_back(fileDiagnostic(
        std::string("is not UTF-8 text: byte ") + hex +
            (control ? " is a control character, which YAML does not allow" : " cannot start a character here"),
        line, column));
    return result;
  }
  try {
    std::istringstream stream(text);
    YAML::Parser parser(stream);
    DocumentCounter counter;
    while (counter.documents < 2 && !counter.stuck && parser.HandleNextDocument(counter)) {
    }
    if (counter.stuck) {
      result.problems.push_back(
          fileDiagnostic("is not valid YAML: nothing can be read from here on "
                         "(a stray ',' at the top level?)",
                         counter.lastStart.line + 1, counter.lastStart.column + 1));
      return result;
    }
    if (counter.documents > 1)
      result.problems.push_back(
          fileDiagnostic("holds more than one YAML document (separated by ---); a config is one"));
    YAML::Node root = YAML::Load(text);
    if (!overrides.empty()) applyOverrides(root, overrides, result.problems);
    DocumentReader(result).read(root);
  } catch (const YAML::Exception& e) {
    const bool placed = !e.mark.is_null();
    const auto [tabLine, tabColumn] = tabInIndentation(text, placed ? e.mark.line + 1 : INT_MAX);
    if (tabLine > 0) {
      Diagnostic tab = fileDiagnostic("is not valid YAML: tabs are not allowed for indentation", tabLine, tabColumn);
      tab.hint = "indent with spaces";
      result.problems.push_back(tab);
    } else
      result.problems.push_back(
          fileDiagnostic("is not valid YAML: " + e.msg, placed ? e.mark.line + 1 : 0, placed ? e.mark.column + 1 : 0));
  } catch (const std::exception& e) {
    result.problems.push_back(fileDiagnostic(std::string("could not be read: ") + e.what()));
  }
  return result;
}

LoadedConfig loadConfigFile(const std::string& path, const std::vector<std::string>& overrides) {
  const std::filesystem::path file(path);
  std::error_code ec;
  const std::string baseDir = std::filesystem::absolute(file, ec).parent_path().lexically_normal().string();
  if (std::filesystem::is_directory(file, ec)) {
    LoadedConfig result;
    result.source = path;
    result.problems.push_back(fileDiagnostic("is a folder, not a YAML file"));
    return result;
  }
  std::ifstream in(file, std::ios::binary);
  if (!in) {
    LoadedConfig result;
    result.source = path;
    result.problems.push_back(fileDiagnostic("cannot be opened (does it exist, and may you read it?)"));
    return result;
  }
  std::string text;
  char buffer[65536];
  while (in.read(buffer, sizeof buffer) || in.gcount() > 0) {
    text.append(buffer, static_cast<std::size_t>(in.gcount()));
    if (text.size() > kMaxConfigBytes) break;
  }
  return loadConfigText(text, path, baseDir, overrides);
}

std::string saveConfigText(const RunConfig& config) {
  YAML::Emitter out;
  out << YAML::Comment("TrainDeck job; every key is described in docs/config.md") << YAML::Newline;
  out << YAML::BeginMap;
  std::string openSection;
  for (const FieldCodec& codec : fieldCodecs()) {
    const std::string& path = codec.info.path;
    const auto dot = path.find('.');
    const std::string section = dot == std::string::npos ? "" : path.substr(0, dot);
    if (section != openSection) {
      if (!openSection.empty()) out << YAML::EndMap;
      if (!section.empty()) out << YAML::Key << section << YAML::Value << YAML::BeginMap;
      openSection = section;
    }
    out << YAML::Key << (section.empty() ? path : path.substr(dot + 1)) << YAML::Value;
    codec.write(config, out);
  }
  if (!openSection.empty()) out << YAML::EndMap;
  out << YAML::EndMap;
  return std::string(out.c_str()) + "\n";
}

std::string saveConfigFile(const RunConfig& config, const std::string& path) {
  return writeFileAtomically(path, saveConfigText(config));
}

}  // namespace traindeck
