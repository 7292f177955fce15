// What validation knows of the machine a job runs on (HostDevices), as one JSON object:
// `traindeck-train validate --machine` writes it from LibTorch and the app, which never links
// LibTorch, reads it, so the Setup page checks a local job against the facts that `validate`
// and `run` use. Writer and reader side by side.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "validate.h"

namespace traindeck {

// The object's keys.
namespace machine_json {
inline constexpr const char* kCudaDevices = "cuda_devices";  // null: not known (no LibTorch)
inline constexpr const char* kBf16 = "bf16";
inline constexpr const char* kColabRuntime = "colab_runtime";
}  // namespace machine_json

// One line, newline included: {"cuda_devices":2,"bf16":true,"colab_runtime":false}, or
// {"cuda_devices":null} where the facts are not known.
std::string machineFactsJson(const std::optional<HostDevices>& host);

struct MachineFactsReadResult {
  std::optional<HostDevices> host;  // nullopt: not known (or not readable)
  std::string error;                // empty when the text was what machineFactsJson writes
  bool ok() const { return error.empty(); }
};
// Reads what machineFactsJson wrote; unknown keys are ignored.
MachineFactsReadResult parseMachineFacts(std::string_view json);

}  // namespace traindeck
