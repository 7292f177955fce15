// TFRecord framing, as TensorBoard's event files use it: per record a little-endian uint64
// length, the masked CRC-32C of those 8 bytes, the data, the masked CRC-32C of the data.
// Both CRCs are checked; a record cut short at the end is a writer still at work, not damage.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

namespace traindeck {

struct FramedScan {
  std::size_t consumed = 0;  // bytes of whole, checked records from the start
  std::size_t records = 0;   // records handed to the callback
  bool partialTail = false;  // the bytes end inside a record (it starts at `consumed`)
  std::string error;         // empty, or the damage that stopped the scan, naming its byte
  bool ok() const { return error.empty(); }
};

// Hands each whole record's data, and the byte where its frame starts, to `onRecord`, in order,
// and stops at the first damaged one.
FramedScan scanTfRecords(std::string_view bytes, const std::function<void(std::string_view, std::size_t)>& onRecord);

}  // namespace traindeck
