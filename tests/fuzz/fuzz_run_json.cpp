// libFuzzer target: any bytes as run.json's strings and as a JsonWriter key and value must
// write JSON that parseJson accepts; valid UTF-8 must come back byte for byte, anything else as
// validUtf8() of it. A cut at any byte limit must never split a character.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "runlog/json_value.h"
#include "runlog/json_writer.h"
#include "runlog/run_directory.h"
#include "runlog/utf8.h"

using namespace traindeck;

namespace {

void check(bool condition) {
  if (!condition) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  const std::string clean = validUtf8(bytes);  // what every string must read back as
  check(isValidUtf8(clean));
  check(!isValidUtf8(bytes) || clean == bytes);

  // The first byte chooses where the input splits into a name and a reason.
  const std::size_t split = size == 0 ? 0 : data[0] % (size + 1);
  RunInfo info;
  info.name = std::string(bytes.substr(0, split));
  info.exitReason = std::string(bytes.substr(split));
  info.host = std::string(bytes);
  info.devices = {std::string(bytes), "cpu"};
  info.status = RunStatus::Failed;
  info.failedRank = 0;
  const RunInfoReadResult read = parseRunInfo(runInfoJson(info));
  check(read.ok());
  check(read.info.status == RunStatus::Failed && read.info.failedRank == 0);
  check(read.info.name == validUtf8(info.name));
  check(read.info.exitReason == validUtf8(info.exitReason));
  check(!isValidUtf8(info.name) || read.info.name == info.name);
  check(!isValidUtf8(info.exitReason) || read.info.exitReason == info.exitReason);
  check(read.info.host == clean);
  check(read.info.devices.size() == 2 && read.info.devices[0] == clean);

  JsonWriter j;
  j.beginObject().field(bytes, bytes).endObject();
  const JsonParseResult parsed = parseJson(j.str());
  check(parsed.ok() && parsed.value.members().size() == 1);
  check(parsed.value.members()[0].first == clean && parsed.value.members()[0].second.text() == clean);

  // Valid text, here the cleaned input, goes through byte for byte.
  const JsonParseResult again = parseJson(JsonWriter().value(clean).str());
  check(again.ok() && again.value.text() == clean);

  // The launcher's reason cut: a prefix within the limit that leaves valid text valid.
  const std::string_view cut = cutAtCharBoundary(bytes, split);
  check(cut.size() <= split && bytes.substr(0, cut.size()) == cut);
  check(!isValidUtf8(bytes) || isValidUtf8(cut));
  check(cut.size() + 3 >= split || cut.size() == size);  // short of the limit by less than a character
  return 0;
}
