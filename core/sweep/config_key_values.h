// What a config key accepts, seen from a sweep: its kind of value (from core/config's field
// table), a YAML value read as that kind, and the config's own verdict on a value (ranges,
// names), so that a sweep refuses at its line what the job would refuse later.
#pragma once

#include <optional>
#include <string>

#include <yaml-cpp/yaml.h>

#include "config/config_fields.h"
#include "config/diagnostic.h"
#include "param_value.h"

namespace traindeck {

// Flag: true/false; Name: one of a fixed set; List: pairs and lists, which sweeps do not set.
enum class ConfigValueKind { Whole, Number, Flag, Name, Text, List };

ConfigValueKind configValueKind(const FieldInfo& field);

// The config's complaint about `key` set to `value` alone (its type, range or name), or
// nullopt when the key takes it. Rules between keys are left to validateConfig.
std::optional<Diagnostic> configRefusal(const std::string& key, const ParamValue& value);

// `node` read as a value of `field` (a whole-number key gives an int64, a number key a double)
// and checked by configRefusal; nullopt after a problem at the node.
std::optional<ParamValue> readConfigValue(const YAML::Node& node, const FieldInfo& field, Diagnostics& out);

}  // namespace traindeck
