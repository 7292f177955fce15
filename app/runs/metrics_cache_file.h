// The metrics cache's file: the records a MetricsBatch holds of metrics.jsonl's first bytes, as
// columns (a million train records are about 48 MB, read back in tens of milliseconds instead of
// parsed in hundreds), and the stamp of the bytes they came from. A file cut short, changed, of
// another version or another byte order reads as none: its body's checksum or sizes disagree.
// Plain C++ and POSIX, no Qt.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "runlog/metrics_batch.h"

namespace traindeck {

// Which bytes of which metrics.jsonl the records are of.
struct MetricsCacheStamp {
  std::string path;               // metrics.jsonl, absolute
  std::int64_t recordBytes = 0;   // the records are of the whole lines in [0, recordBytes)
  std::int64_t sampledBytes = 0;  // the fingerprint is of [0, sampledBytes) (>= recordBytes)
  std::uint64_t fingerprint = 0;  // PrefixFingerprint of those bytes
  std::int64_t fileSize = 0;      // the file's size and modification time when the cache was
  std::int64_t modifiedNs = 0;    // written: at that size, another time means rewritten in place
  bool operator==(const MetricsCacheStamp&) const = default;
};

struct MetricsCacheContents {
  MetricsCacheStamp stamp;
  MetricsBatch batch;  // never `restart`
};

// Writes `file` whole (the caller renames it into place); false when it could not.
bool writeMetricsCacheFile(const std::string& file, const MetricsCacheStamp& stamp, const MetricsBatch& batch);
// The stamp alone (the first few hundred bytes): to decide before reading the records whether
// they are still of the file. Not checked against the body's checksum.
std::optional<MetricsCacheStamp> readMetricsCacheStamp(const std::string& file);
// The whole file, checked; nullopt when it is not a whole cache file of this version.
std::optional<MetricsCacheContents> readMetricsCacheFile(const std::string& file);

}  // namespace traindeck
