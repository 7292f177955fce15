// A long run's parsed metrics, kept so that opening the run again reads columns instead of
// parsing JSON: one file per metrics.jsonl in the app's cache folder ($XDG_CACHE_HOME/traindeck/
// metrics, named by the SHA-1 of the file's path), never in the run folder, which readers do not
// write (it may be another user's, read-only, or a mirror). A cache file is believed only when it
// is whole (checksum) and metrics.jsonl still begins with the bytes its records came from
// (prefix_fingerprint.h, size and time); else it is ignored, and the next save replaces it.
// A value; load and save work in the caller's thread (the follower's).
#pragma once

#include <QString>
#include <cstdint>
#include <optional>

#include "prefix_fingerprint.h"
#include "runlog/metrics_batch.h"

namespace traindeck {

class MetricsCache {
 public:
  // Smaller files are parsed in tens of milliseconds: not worth a file of their own.
  static constexpr std::int64_t kFromBytes = 16 << 20;

  MetricsCache() = default;  // none: loads nothing, saves nothing
  explicit MetricsCache(QString dir) : m_dir(std::move(dir)) {}
  // $XDG_CACHE_HOME/traindeck/metrics (~/.cache/... without it).
  static QString defaultDir();

  bool enabled() const { return !m_dir.isEmpty(); }
  QString dir() const { return m_dir; }
  QString fileFor(const QString& metricsPath) const;

  struct Loaded {
    MetricsBatch batch;             // the records of the whole lines in [0, recordBytes)
    std::int64_t recordBytes = 0;   // parse on from here
    PrefixFingerprint fingerprint;  // of [0, recordBytes): feed it what is read from there on
  };
  // The cached records of `metricsPath` (absolute), when they are still its first records.
  std::optional<Loaded> load(const QString& metricsPath) const;
  // Keeps `batch`, the records of the whole lines in [0, recordBytes) of `metricsPath`;
  // `sampled` is the fingerprint of the bytes read (recordBytes and the partial line after
  // them). Written under a temporary name and renamed. False when it could not be.
  bool save(const QString& metricsPath, const MetricsBatch& batch, std::int64_t recordBytes,
            const PrefixFingerprint& sampled) const;
  // Removes the cache files whose metrics file is gone (or that are not cache files), and what
  // saves cut short left; how many.
  int removeGone() const;

 private:
  QString m_dir;
};

}  // namespace traindeck
