// Scalars keep the type the YAML reader gives them: the config writer quotes every text that a
// reader would take for a number, a flag or null, so a plain scalar that reads as one is one.
#include "export/python_literal.h"

#include <yaml-cpp/yaml.h>

#include <charconv>
#include <cstdio>
#include <stdexcept>

#include "config/config_io.h"
#include "runlog/utf8.h"

namespace traindeck {

namespace {

// Fields that name a file or folder on this machine; model.init_from may also be a hub name.
const char* const kPathFields[][2] = {{"data", "train"},  {"data", "val"},        {"data", "vocab"},
                                      {"data", "merges"}, {"model", "init_from"}, {nullptr, "runs_root"}};

bool isInteger(const std::string& s) {
  long long v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  return ec == std::errc() && end == s.data() + s.size();
}

std::string scalar(const YAML::Node& node) {
  const std::string& s = node.Scalar();
  if (node.Tag() != "?") return pythonString(s);  // quoted: text
  if (s == "true" || s == "True") return "True";
  if (s == "false" || s == "False") return "False";
  if (s.empty() || s == "~" || s == "null") return "None";
  if (isInteger(s)) return s;
  double number = 0;
  if (YAML::convert<double>::decode(node, number)) {
    char buffer[64];  // the shortest text that reads back as the same double
    const auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, number);
    std::string text(buffer, ec == std::errc() ? end : buffer);
    if (text.find_first_of(".en") == std::string::npos) text += ".0";  // a float stays a float
    return text;
  }
  return pythonString(s);
}

void emit(const YAML::Node& node, std::string& out, int depth) {
  const std::string indent(static_cast<std::size_t>(depth + 1) * 4, ' ');
  if (node.IsMap()) {
    out += "{\n";
    for (const auto& item : node) {
      out += indent + pythonString(item.first.Scalar()) + ": ";
      emit(item.second, out, depth + 1);
      out += ",\n";
    }
    out += std::string(static_cast<std::size_t>(depth) * 4, ' ') + "}";
  } else if (node.IsSequence()) {
    out += "[";
    for (std::size_t i = 0; i < node.size(); ++i) {
      if (i) out += ", ";
      emit(node[i], out, depth + 1);
    }
    out += "]";
  } else if (node.IsNull()) {
    out += "None";
  } else {
    out += scalar(node);
  }
}

bool looksLikePath(const std::string& value) {
  return value.find('/') != std::string::npos || value.rfind('~', 0) == 0 || value.find("${") != std::string::npos;
}

}  // namespace

std::string pythonString(const std::string& text) {
  std::string out = "\"";
  for (std::size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
      ++i;
    } else if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
      ++i;
    } else {
      // Invalid bytes (each maximal ill-formed subpart) become U+FFFD, as the JSON writer does.
      const Utf8Sequence seq = decodeUtf8(std::string_view(text).substr(i));
      char escape[16];
      std::snprintf(escape, sizeof escape, seq.codePoint > 0xffff ? "\\U%08x" : "\\u%04x",
                    static_cast<unsigned>(seq.codePoint));
      out += escape;
      i += seq.length;
    }
  }
  return out + "\"";
}

std::string printableText(const std::string& text) {
  std::string out;
  for (std::size_t i = 0; i < text.size();) {
    const Utf8Sequence seq = decodeUtf8(std::string_view(text).substr(i));
    const char32_t point = seq.codePoint;
    const bool control =
        point < 0x20 || point == 0x7f || (point >= 0x80 && point < 0xa0) || point == 0x2028 || point == 0x2029;
    out += control || !seq.valid ? std::string("?") : text.substr(i, seq.length);
    i += seq.length;
  }
  return out;
}

std::string configAsPython(const RunConfig& config, const std::string& baseDir, const EnvLookup& env) {
  YAML::Node root = YAML::Load(saveConfigText(config));
  for (const auto& field : kPathFields) {
    YAML::Node holder = field[0] ? root[field[0]] : root;
    const std::string value = holder[field[1]] ? holder[field[1]].as<std::string>("") : std::string();
    if (value.empty()) continue;
    if (std::string(field[1]) == "init_from" && !looksLikePath(value)) continue;  // a hub name: "gpt2"
    const ExpandedPath expanded = expandPath(value, baseDir, env);
    if (!expanded.error.empty())
      throw std::runtime_error(std::string(field[0] ? field[0] : "") + (field[0] ? "." : "") + field[1] + " " +
                               expanded.error);
    holder[field[1]] = expanded.path;
  }
  std::string out;
  emit(root, out, 0);
  return out;
}

}  // namespace traindeck
