// metrics.jsonl, schema 1: one JSON object per line, appended by one process (rank 0). Each
// line goes out in a single write(2) on an O_APPEND descriptor, so a reader sees whole lines
// or a partial last line, never interleaved ones.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "json_writer.h"
#include "metrics_keys.h"

namespace traindeck {

inline constexpr int kMetricsSchema = 1;

class MetricsWriter {
 public:
  // Opens (creating or appending); throws std::runtime_error with a sentence if it cannot.
  explicit MetricsWriter(const std::string& path);
  ~MetricsWriter();
  MetricsWriter(const MetricsWriter&) = delete;
  MetricsWriter& operator=(const MetricsWriter&) = delete;

  // Starts a record of `kind` stamped with the current time; add fields, then write() it.
  static JsonWriter record(std::string_view kind);  // a metrics_kind
  void write(JsonWriter& record);                   // closes the object and appends the line

 private:
  int m_fd = -1;
  std::string m_path;
};

}  // namespace traindeck
