// Chunk by chunk, with each block's end computed from the file's start (the W&B header is the
// first 7 bytes of block 0, as both of W&B's writers put it).
#include "imports/leveldb_log.h"

#include <cstdint>
#include <cstring>
#include <string>

#include "imports/checksums.h"

namespace traindeck {

namespace {

bool allZero(std::string_view bytes) {
  return bytes.find_first_not_of('\0') == std::string_view::npos;
}

}  // namespace

FramedScan scanWandbLog(std::string_view bytes, const std::function<void(std::string_view, std::size_t)>& onRecord) {
  FramedScan scan;
  if (bytes.size() < kWandbHeaderBytes) {
    scan.partialTail = true;
    return scan;
  }
  std::uint16_t magic = 0;
  std::memcpy(&magic, bytes.data() + 4, 2);
  const auto version = static_cast<unsigned char>(bytes[6]);
  if (bytes.substr(0, 4) != ":W&B" || magic != 0xBEE1 || version > 1) {
    scan.error = "no W&B header (\":W&B\", 0xBEE1, version 0 or 1) at byte 0";
    return scan;
  }
  std::size_t at = kWandbHeaderBytes;
  scan.consumed = at;
  std::string joined;  // a record's chunks so far
  std::size_t recordStart = 0;
  bool inRecord = false;
  const auto fail = [&](std::size_t where, const char* why) {
    scan.error = "corrupt chunk at byte " + std::to_string(where) + " (" + why + ")";
  };
  while (at < bytes.size()) {
    const std::size_t blockLeft = kLevelDbBlockBytes - at % kLevelDbBlockBytes;
    if (blockLeft < kLevelDbChunkHeaderBytes) {  // the block's trailer
      const std::size_t pad = std::min(blockLeft, bytes.size() - at);
      if (!allZero(bytes.substr(at, pad))) {
        fail(at, "block padding is not zero");
        break;
      }
      at += pad;
      continue;
    }
    if (bytes.size() - at < kLevelDbChunkHeaderBytes) {
      scan.partialTail = true;
      break;
    }
    std::uint32_t crc = 0;
    std::uint16_t length = 0;
    std::memcpy(&crc, bytes.data() + at, 4);
    std::memcpy(&length, bytes.data() + at + 4, 2);
    const auto type = static_cast<unsigned char>(bytes[at + 6]);
    if (crc == 0 && length == 0 && type == 0) {  // a zero-filled (preallocated) rest of block
      const std::size_t rest = std::min(blockLeft, bytes.size() - at);
      if (!allZero(bytes.substr(at, rest))) {
        fail(at, "zero chunk header before data");
        break;
      }
      at += rest;
      continue;
    }
    if (kLevelDbChunkHeaderBytes + length > blockLeft) {
      fail(at, "length runs past its 32 KiB block");
      break;
    }
    if (bytes.size() - at - kLevelDbChunkHeaderBytes < length) {
      scan.partialTail = true;
      break;
    }
    const std::string_view data = bytes.substr(at + kLevelDbChunkHeaderBytes, length);
    if (crc32Ieee(data, crc32Ieee(bytes.substr(at + 6, 1))) != crc) {
      fail(at, "CRC mismatch");
      break;
    }
    const std::size_t chunkEnd = at + kLevelDbChunkHeaderBytes + length;
    if (type == kChunkFull) {
      if (inRecord) {
        fail(at, "a full record inside a split one");
        break;
      }
      onRecord(data, at);
      ++scan.records;
      scan.consumed = chunkEnd;
    } else if (type == kChunkFirst) {
      if (inRecord) {
        fail(at, "a first chunk inside a split record");
        break;
      }
      inRecord = true;
      recordStart = at;
      joined.assign(data);
    } else if (type == kChunkMiddle || type == kChunkLast) {
      if (!inRecord) {
        fail(at, "a middle or last chunk with no first");
        break;
      }
      joined.append(data);
      if (type == kChunkLast) {
        inRecord = false;
        onRecord(joined, recordStart);
        ++scan.records;
        scan.consumed = chunkEnd;
      }
    } else {
      fail(at, "unknown chunk type");
      break;
    }
    at = chunkEnd;
  }
  if (scan.ok() && inRecord) scan.partialTail = true;
  return scan;
}

}  // namespace traindeck
