// ISO 8601 date-times as Python's datetime.isoformat() and SQLAlchemy write them
// ("2025-08-21T16:12:24.123456+00:00", "2024-01-02 03:04:05.5"), as unix seconds.
#pragma once

#include <string_view>

namespace traindeck {

// How to read a date-time written without an offset ("naive" in Python's words).
enum class NaiveTime {
  Utc,    // Trackio writes UTC (before its 0.3 it wrote the local time, then off by the zone's offset)
  Local,  // Optuna's RDB storage writes datetime.now(): the local time of the machine that ran the
          // study, read as this machine's local time (right when both are the same machine)
};

// NaN when `text` is not such a date-time. One with an offset (or "Z") is read as it says.
double isoTimeToUnixSeconds(std::string_view text, NaiveTime naive = NaiveTime::Utc);

}  // namespace traindeck
