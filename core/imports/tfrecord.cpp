// A length whose CRC is right but that runs past the end is a record still being written; a
// length whose CRC is wrong is damage (a cut never makes a wrong CRC, only a short read).
#include "imports/tfrecord.h"

#include <cstdint>
#include <cstring>

#include "imports/checksums.h"

namespace traindeck {

namespace {

std::uint32_t loadU32(const char* at) {
  std::uint32_t v = 0;
  std::memcpy(&v, at, 4);  // little-endian hosts
  return v;
}

constexpr std::size_t kTfHeaderBytes = 12, kTfFooterBytes = 4;

}  // namespace

FramedScan scanTfRecords(std::string_view bytes, const std::function<void(std::string_view, std::size_t)>& onRecord) {
  FramedScan scan;
  std::size_t at = 0;
  while (at < bytes.size()) {
    const std::size_t left = bytes.size() - at;
    if (left < kTfHeaderBytes) {
      scan.partialTail = true;
      break;
    }
    std::uint64_t length = 0;
    std::memcpy(&length, bytes.data() + at, 8);
    if (maskedCrc32c(bytes.substr(at, 8)) != loadU32(bytes.data() + at + 8)) {
      scan.error = "corrupt record at byte " + std::to_string(at) + " (length CRC mismatch)";
      break;
    }
    if (length > left - kTfHeaderBytes || left - kTfHeaderBytes - length < kTfFooterBytes) {
      scan.partialTail = true;
      break;
    }
    const std::string_view data = bytes.substr(at + kTfHeaderBytes, static_cast<std::size_t>(length));
    if (maskedCrc32c(data) != loadU32(data.data() + data.size())) {
      scan.error = "corrupt record at byte " + std::to_string(at) + " (data CRC mismatch)";
      break;
    }
    onRecord(data, at);
    ++scan.records;
    at += kTfHeaderBytes + data.size() + kTfFooterBytes;
  }
  scan.consumed = at;
  return scan;
}

}  // namespace traindeck
