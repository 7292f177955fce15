// libFuzzer target: TensorBoard event files. The first byte says what the rest is: even, a file
// as it lies on disk (framing and both CRCs under test); odd, Event payloads (each a uint16
// length and its bytes) that this target frames with right CRCs, so the protobuf reader behind
// the CRC gate is reached. Whatever the bytes: no crash, no read outside them, a scan that ends
// where it says, and the same records when the part it consumed is read again.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

#include "fixture_writers.h"
#include "imports/run_builder.h"
#include "imports/tfevents_parser.h"

using namespace traindeck;

namespace {

void check(bool condition) {
  if (!condition) std::abort();
}

void checkColumns(const ImportedRun& run) {
  const TrainColumns& t = run.metrics.train;
  for (const std::size_t n : {t.tokens.size(), t.time.size(), t.loss.size(), t.lr.size(), t.gradNorm.size(),
                              t.tokensPerSecond.size(), t.stepMs.size(), t.mfu.size()})
    check(n == t.size());
  const EvalColumns& e = run.metrics.eval;
  check(e.time.size() == e.size() && e.valLoss.size() == e.size() && e.tokens.size() == e.size());
  for (const ScalarSeries& s : run.scalars) check(s.time.size() == s.size() && s.value.size() == s.size());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  std::string_view rest(reinterpret_cast<const char*>(data) + 1, size - 1);
  const bool framedHere = (data[0] & 1) != 0;
  std::string file;
  std::size_t framed = 0;
  if (framedHere) {
    while (rest.size() >= 2) {
      std::uint16_t length = 0;
      std::memcpy(&length, rest.data(), 2);
      rest.remove_prefix(2);
      const std::string_view payload = rest.substr(0, length);
      rest.remove_prefix(payload.size());
      file += fixtures::tfRecord(payload);
      ++framed;
    }
  } else {
    file.assign(rest);
  }

  RunBuilder first(SourceKind::TensorBoard, "fuzz", "fuzz");
  const FramedScan scan = readTfEventsBytes(file, "fuzz", "p/", first);
  check(scan.consumed <= file.size());
  check(!scan.ok() || scan.partialTail || scan.consumed == file.size());
  check(scan.ok() || !scan.partialTail);
  if (framedHere) check(scan.ok() && !scan.partialTail && scan.records == framed);
  checkColumns(first.run());

  RunBuilder again(SourceKind::TensorBoard, "fuzz", "fuzz");
  const FramedScan second = readTfEventsBytes(std::string_view(file).substr(0, scan.consumed), "fuzz", "p/", again);
  check(second.ok() && !second.partialTail && second.records == scan.records && second.consumed == scan.consumed);
  check(again.run().metrics.train.size() == first.run().metrics.train.size());
  check(again.run().metrics.eval.size() == first.run().metrics.eval.size());
  check(again.run().scalars.size() == first.run().scalars.size());
  return 0;
}
