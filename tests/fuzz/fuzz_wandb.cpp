// libFuzzer target: W&B .wandb files. The first byte says what the rest is: even, a file as it
// lies on disk (header, LevelDB chunks, block padding and CRCs under test); odd, Record payloads
// (each a uint16 length, then up to 256 bytes repeated to that length, so a small input makes a record
// that spans blocks) that this target frames as W&B's writer does. Whatever the bytes: no crash,
// no read outside them, and the same records when the part the scan consumed is read again.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

#include "fixture_writers.h"
#include "imports/run_builder.h"
#include "imports/wandb_records.h"

using namespace traindeck;

namespace {

void check(bool condition) {
  if (!condition) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  std::string_view rest(reinterpret_cast<const char*>(data) + 1, size - 1);
  const bool framedHere = (data[0] & 1) != 0;
  std::string file;
  std::size_t framed = 0;
  if (framedHere) {
    fixtures::WandbLog log(data[0] >> 7);
    while (rest.size() >= 2) {
      std::uint16_t length = 0;
      std::memcpy(&length, rest.data(), 2);
      rest.remove_prefix(2);
      const std::string_view seed = rest.substr(0, std::min<std::size_t>(rest.size(), 256));
      rest.remove_prefix(seed.size());
      std::string payload;
      while (!seed.empty() && payload.size() < length) payload.append(seed.substr(0, length - payload.size()));
      log.add(payload);
      ++framed;
    }
    file = std::move(log.bytes());
  } else {
    file.assign(rest);
  }

  RunBuilder first(SourceKind::Wandb, "fuzz", "fuzz");
  const FramedScan scan = readWandbBytes(file, "fuzz", first);
  check(scan.consumed <= file.size());
  check(scan.ok() || !scan.partialTail);
  if (framedHere) check(scan.ok() && !scan.partialTail && scan.records == framed && scan.consumed == file.size());
  const TrainColumns& t = first.run().metrics.train;
  check(t.loss.size() == t.size() && t.lr.size() == t.size() && t.gradNorm.size() == t.size() &&
        t.time.size() == t.size());

  if (scan.records > 0) {  // a file of no whole record may be no W&B file at all
    RunBuilder again(SourceKind::Wandb, "fuzz", "fuzz");
    const FramedScan second = readWandbBytes(std::string_view(file).substr(0, scan.consumed), "fuzz", again);
    check(second.ok() && !second.partialTail && second.records == scan.records);
    check(again.run().metrics.train.size() == t.size());
    check(again.run().scalars.size() == first.run().scalars.size());
  }
  return 0;
}
