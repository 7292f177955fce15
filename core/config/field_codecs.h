// Internal to core/config: how each key is read from and written to YAML. The table lives in
// config_fields.cpp; config_io.cpp walks it.
#pragma once

#include <functional>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "config_fields.h"
#include "diagnostic.h"
#include "run_config.h"
#include "yaml_diagnostic.h"

namespace traindeck {

struct FieldCodec {
  FieldInfo info;
  // Reads `value` (under `key`) into the config; a wrong type or range adds a diagnostic at the
  // value (at the key when the value is empty) and leaves the config as it was. Never throws.
  std::function<void(const YAML::Node& key, const YAML::Node& value, RunConfig& config, Diagnostics& out)> read;
  std::function<void(const RunConfig& config, YAML::Emitter& out)> write;
};

const std::vector<FieldCodec>& fieldCodecs();

}  // namespace traindeck
