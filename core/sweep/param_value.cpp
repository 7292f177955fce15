// Text forms of a ParamValue: YAML for overrides, a typed canonical form for identities, and a
// short form for names.
#include "param_value.h"

#include <charconv>
#include <cmath>
#include <cstdio>

#include <yaml-cpp/yaml.h>

namespace traindeck {

namespace {

// Shortest text that reads back as the same double, always with a '.' or an exponent so that
// YAML and JSON readers see a number with a fraction, not a whole number.
std::string exactDouble(double value) {
  char buffer[64];
  auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, value);
  std::string text(buffer, end);
  if (text.find_first_of(".eEn") == std::string::npos) text += ".0";
  return text;
}

// "3.00e-04" -> "3e-4"; "1.50e+06" -> "1.5e6".
std::string trimScientific(const std::string& text) {
  const auto e = text.find('e');
  std::string mantissa = text.substr(0, e);
  if (mantissa.find('.') != std::string::npos) {
    while (mantissa.back() == '0') mantissa.pop_back();
    if (mantissa.back() == '.') mantissa.pop_back();
  }
  return mantissa + "e" + std::to_string(std::stoi(text.substr(e + 1)));
}

std::string shortDouble(double value) {
  if (value == 0) return "0";
  if (!std::isfinite(value)) return std::isnan(value) ? "nan" : (value > 0 ? "inf" : "-inf");
  const int exponent = static_cast<int>(std::floor(std::log10(std::fabs(value))));
  char buffer[64];
  if (exponent < -2 || exponent >= 5) {
    std::snprintf(buffer, sizeof buffer, "%.2e", value);
    return trimScientific(buffer);
  }
  std::snprintf(buffer, sizeof buffer, "%.*g", std::max(3, exponent + 1), value);
  return buffer;
}

}  // namespace

std::string paramValueYaml(const ParamValue& value) {
  if (const auto* flag = std::get_if<bool>(&value)) return *flag ? "true" : "false";
  if (const auto* whole = std::get_if<std::int64_t>(&value)) return std::to_string(*whole);
  if (const auto* number = std::get_if<double>(&value)) return exactDouble(*number);
  YAML::Emitter out;
  out << YAML::DoubleQuoted << std::get<std::string>(value);
  return out.c_str();
}

std::string paramValueCanonical(const ParamValue& value) {
  if (const auto* flag = std::get_if<bool>(&value)) return *flag ? "b:true" : "b:false";
  if (const auto* whole = std::get_if<std::int64_t>(&value)) return "i:" + std::to_string(*whole);
  if (const auto* number = std::get_if<double>(&value)) return "d:" + exactDouble(*number);
  return "s:" + std::get<std::string>(value);
}

std::string paramValueShort(const ParamValue& value) {
  if (const auto* number = std::get_if<double>(&value)) return shortDouble(*number);
  if (std::holds_alternative<std::string>(value)) return std::get<std::string>(value);
  return paramValueYaml(value);
}

const ParamValue* findSetting(const ParamSettings& settings, const std::string& key) {
  for (const ParamSetting& setting : settings)
    if (setting.key == key) return &setting.value;
  return nullptr;
}

}  // namespace traindeck
