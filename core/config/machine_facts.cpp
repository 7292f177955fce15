// A missing or null cuda_devices is "not known"; a count below zero or a value of another type
// is an error, so a reader never takes garbage for a machine without GPUs.
#include "machine_facts.h"

#include "runlog/json_value.h"
#include "runlog/json_writer.h"

namespace traindeck {

std::string machineFactsJson(const std::optional<HostDevices>& host) {
  using namespace machine_json;
  JsonWriter j;
  j.beginObject();
  if (!host) {
    j.key(kCudaDevices).null();
  } else {
    j.field(kCudaDevices, host->cudaDevices).field(kBf16, host->bf16).field(kColabRuntime, host->colabRuntime);
  }
  j.endObject();
  return j.str() + "\n";
}

MachineFactsReadResult parseMachineFacts(std::string_view json) {
  using namespace machine_json;
  MachineFactsReadResult result;
  const JsonParseResult parsed = parseJson(json);
  if (!parsed.ok() || !parsed.value.isObject()) {
    result.error = "the machine's facts are not a JSON object" + (parsed.ok() ? std::string() : ": " + parsed.error);
    return result;
  }
  const JsonValue& v = parsed.value;
  const JsonValue* count = v.find(kCudaDevices);
  if (count == nullptr || count->isNull()) return result;
  if (!count->isInteger() || count->integerOr(-1) < 0 || count->integerOr(0) > 1'000'000) {
    result.error = std::string("the machine's facts have no device count (") + kCudaDevices + ")";
    return result;
  }
  result.host =
      HostDevices{static_cast<int>(count->integerOr(0)), v.boolOr(kBf16, false), v.boolOr(kColabRuntime, false)};
  return result;
}

}  // namespace traindeck
