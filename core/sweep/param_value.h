// One value a sweep gives a config key: a flag, a whole number, a number or a text, typed as
// the key is (a whole-number key always holds an int64, a number key a double), so that the
// same setting always has the same identity, in a plan, in sweep.json and after a reload.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace traindeck {

using ParamValue = std::variant<bool, std::int64_t, double, std::string>;

// A trial's setting of one config key ("optimizer.lr" -> 3e-4).
struct ParamSetting {
  std::string key;
  ParamValue value;
  bool operator==(const ParamSetting&) const = default;
};
using ParamSettings = std::vector<ParamSetting>;

// The value as YAML, for a config override: numbers that read back exactly ("0.0003",
// "256", "1.0"), "true"/"false", texts quoted where YAML needs it.
std::string paramValueYaml(const ParamValue& value);

// Typed and exact, for identities: "b:true", "i:256", "d:0.0003", "s:cosine".
std::string paramValueCanonical(const ParamValue& value);

// Short, for names and messages: three significant digits, exponents without padding
// ("3e-4", "0.05", "1.5e+6" is "1.5e6"), texts as they are.
std::string paramValueShort(const ParamValue& value);

// Finds `key` among the settings; nullptr when absent.
const ParamValue* findSetting(const ParamSettings& settings, const std::string& key);

}  // namespace traindeck
