// Where a TokenLoader is in its data, small enough to live in a checkpoint's state.json:
// {"epoch": E, "position": P, "tokens": N}. Restoring it continues exactly where it was saved.
#pragma once

#include <cstdint>

namespace traindeck {

class JsonValue;
class JsonWriter;

struct LoaderCursor {
  std::int64_t epoch = 0;     // passes over the data completed
  std::int64_t position = 0;  // stream offset where the next round of windows starts
  std::int64_t tokens = 0;    // the stream's size when saved, to notice that the data changed

  // Writes the cursor as one JSON object (the caller may have written a key before it).
  void writeJson(JsonWriter& json) const;
  // Throws DataError when `value` is not an object with three non-negative integers.
  static LoaderCursor fromJson(const JsonValue& value);

  bool operator==(const LoaderCursor&) const = default;
};

}  // namespace traindeck
