// Internal to core/config: reading one typed value from a YAML scalar with a sentence for
// every way it can be wrong, and writing it back so that it reads back equal.
#pragma once

#include <array>
#include <charconv>
#include <climits>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "enum_names.h"
#include "suggest.h"

namespace traindeck {

struct Problem {
  std::string message;
  std::string hint;
  // A number of the right kind that no value of the type can hold (20 digits for a whole
  // number): the field then says its own range instead.
  bool outOfRange = false;
};

// The offset of the first byte that is not well-formed UTF-8 text (control characters other
// than tab and line breaks included), or npos. Defined in config_io.cpp.
std::size_t firstInvalidUtf8(const std::string& text);

// The value as the user wrote it, for messages: "'twelve'", "a list", "a map".
inline std::string describeNode(const YAML::Node& node) {
  if (node.IsSequence()) return "a list";
  if (node.IsMap()) return "a map";
  if (node.IsNull()) return "nothing";
  std::string text = node.Scalar();
  if (text.size() > 40) text = text.substr(0, 37) + "...";
  return "'" + text + "'";
}

inline std::string shortestDouble(double value) {
  char buffer[64];
  auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, value);
  std::string text(buffer, end);
  // Keep it a float to a YAML reader: "1" would read back as a whole number, which is fine for
  // us but less clear to a person; "1.0" says what it is.
  if (text.find_first_of(".eEn") == std::string::npos) text += ".0";
  return text;
}

template <class T>
struct ValueCodec;

template <>
struct ValueCodec<std::int64_t> {
  static std::string typeName() { return "whole number"; }
  static std::optional<Problem> decode(const YAML::Node& node, std::int64_t& out) {
    const std::string& text = node.Scalar();
    std::int64_t whole = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), whole);
    if (ec == std::errc() && end == text.data() + text.size()) {
      out = whole;
      return std::nullopt;
    }
    const Problem tooLarge{"must be from " + std::to_string(INT64_MIN) + " to " + std::to_string(INT64_MAX) + ", not " +
                               describeNode(node),
                           "", true};
    if (ec == std::errc::result_out_of_range && end == text.data() + text.size()) return tooLarge;
    // Accept 1e9 or 5.0e8 for token counts, when the value is a whole number that fits.
    double real = 0;
    if (YAML::convert<double>::decode(node, real) && std::isfinite(real) && real == std::floor(real)) {
      if (std::fabs(real) >= 9.0e18) return tooLarge;
      out = static_cast<std::int64_t>(real);
      return std::nullopt;
    }
    return Problem{"must be a whole number, not " + describeNode(node), ""};
  }
  static void encode(YAML::Emitter& e, std::int64_t v) { e << v; }
};

template <>
struct ValueCodec<double> {
  static std::string typeName() { return "number"; }
  static std::optional<Problem> decode(const YAML::Node& node, double& out) {
    double value = 0;
    if (!YAML::convert<double>::decode(node, value)) return Problem{"must be a number, not " + describeNode(node), ""};
    if (!std::isfinite(value)) return Problem{"must be a finite number, not " + describeNode(node), ""};
    out = value;
    return std::nullopt;
  }
  static void encode(YAML::Emitter& e, double v) { e << shortestDouble(v); }
};

template <>
struct ValueCodec<bool> {
  static std::string typeName() { return "true or false"; }
  static std::optional<Problem> decode(const YAML::Node& node, bool& out) {
    bool value = false;
    if (!YAML::convert<bool>::decode(node, value))
      return Problem{"must be true or false, not " + describeNode(node), ""};
    out = value;
    return std::nullopt;
  }
  static void encode(YAML::Emitter& e, bool v) { e << (v ? "true" : "false"); }
};

template <>
struct ValueCodec<std::string> {
  static std::string typeName() { return "text"; }
  static std::optional<Problem> decode(const YAML::Node& node, std::string& out) {
    out = node.IsNull() ? std::string() : node.Scalar();
    // The file is valid text, but a quoted escape can still decode to bytes that are not
    // (yaml-cpp turns "\_" into a lone 0xA0): such text would not survive a save.
    if (firstInvalidUtf8(out) != std::string::npos)
      return Problem{"holds an escape sequence that does not decode to valid text",
                     "write the character itself instead of its backslash escape"};
    return std::nullopt;
  }
  static void encode(YAML::Emitter& e, const std::string& v) {
    // Quote whatever a YAML reader would take for something other than this text.
    const YAML::Node probe = YAML::Node(v);
    bool plain = !v.empty() && v.find_first_of(":#{}[],&*!|>'\"%@`\n\r\t") == std::string::npos && v.front() != ' ' &&
                 v.back() != ' ' && v.front() != '-' && v.front() != '?';
    if (plain) {
      double number = 0;
      bool flag = false;
      plain = !YAML::convert<double>::decode(probe, number) && !YAML::convert<bool>::decode(probe, flag) && v != "~" &&
              v != "null" && v != "Null" && v != "NULL";
    }
    if (plain)
      e << v;
    else
      e << YAML::DoubleQuoted << v;
  }
};

template <>
struct ValueCodec<std::array<double, 2>> {
  static std::string typeName() { return "pair of numbers"; }
  static std::optional<Problem> decode(const YAML::Node& node, std::array<double, 2>& out) {
    if (!node.IsSequence() || node.size() != 2)
      return Problem{"must be a list of two numbers, not " + describeNode(node), "for example [0.9, 0.95]"};
    std::array<double, 2> values{};
    for (std::size_t i = 0; i < 2; ++i) {
      if (!node[i].IsScalar() || ValueCodec<double>::decode(node[i], values[i]))
        return Problem{
            "must be a list of two numbers, not " + describeNode(node[i]) + " at position " + std::to_string(i + 1),
            "for example [0.9, 0.95]"};
    }
    out = values;
    return std::nullopt;
  }
  static void encode(YAML::Emitter& e, const std::array<double, 2>& v) {
    e << YAML::Flow << YAML::BeginSeq << shortestDouble(v[0]) << shortestDouble(v[1]) << YAML::EndSeq;
  }
};

// A list of texts, written `[a, b]` or as a block list; nothing (`key:` alone) is the empty list.
template <>
struct ValueCodec<std::vector<std::string>> {
  static std::string typeName() { return "list of texts"; }
  static std::optional<Problem> decode(const YAML::Node& node, std::vector<std::string>& out) {
    if (node.IsNull()) {
      out.clear();
      return std::nullopt;
    }
    if (!node.IsSequence())
      return Problem{"must be a list of texts, not " + describeNode(node),
                     node.IsScalar() ? "write it as a list: [" + node.Scalar() + "]" : "for example [--exclusive]"};
    std::vector<std::string> values;
    for (std::size_t i = 0; i < node.size(); ++i) {
      if (!node[i].IsScalar())
        return Problem{
            "must be a list of texts, not " + describeNode(node[i]) + " at position " + std::to_string(i + 1),
            "write each entry as one text"};
      std::string text;
      if (auto problem = ValueCodec<std::string>::decode(node[i], text)) return problem;
      values.push_back(std::move(text));
    }
    out = std::move(values);
    return std::nullopt;
  }
  static void encode(YAML::Emitter& e, const std::vector<std::string>& v) {
    e << YAML::Flow << YAML::BeginSeq;
    for (const std::string& text : v) ValueCodec<std::string>::encode(e, text);
    e << YAML::EndSeq;
  }
};

template <class E>
requires std::is_enum_v<E>
struct ValueCodec<E> {
  static std::string typeName() { return "one of " + enumChoices<E>(); }
  static std::optional<Problem> decode(const YAML::Node& node, E& out) {
    const std::string& text = node.Scalar();
    if (auto value = enumFromString<E>(text)) {
      out = *value;
      return std::nullopt;
    }
    std::vector<std::string> names;
    for (const auto& entry : enumNames<E>()) names.emplace_back(entry.second);
    const auto guess = closestMatch(text, names);
    return Problem{"must be " + enumChoices<E>() + ", not " + describeNode(node),
                   guess ? "did you mean " + *guess + "?" : ""};
  }
  static void encode(YAML::Emitter& e, E v) { e << std::string(toString(v)); }
};

}  // namespace traindeck
