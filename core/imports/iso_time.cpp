// The parser of ISO 8601 date-times that the SQLite stores' readers share (Trackio, Optuna).
// A time with an offset or in UTC is counted from the civil date by Howard Hinnant's algorithm
// (no time zone database, no locale); a naive local one goes through mktime(), which knows the
// zone's rules (TZ, /etc/localtime) and its summer time.
#include "imports/iso_time.h"

#include <charconv>
#include <cstdint>
#include <ctime>
#include <limits>

namespace traindeck {

namespace {

std::int64_t daysFromCivil(std::int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<std::int64_t>(doe) - 719468;
}

bool readNumber(std::string_view text, std::size_t at, std::size_t digits, int& out) {
  if (at + digits > text.size()) return false;
  const auto r = std::from_chars(text.data() + at, text.data() + at + digits, out);
  return r.ec == std::errc() && r.ptr == text.data() + at + digits;
}

}  // namespace

double isoTimeToUnixSeconds(std::string_view text, NaiveTime naive) {
  constexpr double kNone = std::numeric_limits<double>::quiet_NaN();
  int year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0;
  if (text.size() < 19) return kNone;
  if (!readNumber(text, 0, 4, year) || text[4] != '-' || !readNumber(text, 5, 2, month) || text[7] != '-' ||
      !readNumber(text, 8, 2, day) || (text[10] != 'T' && text[10] != ' ') || !readNumber(text, 11, 2, hour) ||
      text[13] != ':' || !readNumber(text, 14, 2, minute) || text[16] != ':' || !readNumber(text, 17, 2, second))
    return kNone;
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 60) return kNone;
  double fraction = 0;
  std::size_t at = 19;
  if (at < text.size() && text[at] == '.') {
    double scale = 0.1;
    for (++at; at < text.size() && text[at] >= '0' && text[at] <= '9'; ++at, scale /= 10)
      fraction += (text[at] - '0') * scale;
  }
  int offsetSeconds = 0;
  bool zoned = true;
  if (at < text.size() && (text[at] == '+' || text[at] == '-')) {
    int oh = 0, om = 0;
    if (!readNumber(text, at + 1, 2, oh) || at + 3 >= text.size() || text[at + 3] != ':' ||
        !readNumber(text, at + 4, 2, om))
      return kNone;
    offsetSeconds = (text[at] == '+' ? 1 : -1) * (oh * 3600 + om * 60);
    at += 6;
  } else if (at < text.size() && text[at] == 'Z') {
    ++at;
  } else {
    zoned = false;
  }
  if (at != text.size()) return kNone;
  if (!zoned && naive == NaiveTime::Local) {
    std::tm local{};
    local.tm_year = year - 1900;
    local.tm_mon = month - 1;
    local.tm_mday = day;
    local.tm_hour = hour;
    local.tm_min = minute;
    local.tm_sec = second;
    local.tm_isdst = -1;  // the zone's rules say whether summer time was on then
    const std::time_t seconds = std::mktime(&local);
    return seconds == static_cast<std::time_t>(-1) ? kNone : static_cast<double>(seconds) + fraction;
  }
  const std::int64_t days = daysFromCivil(year, static_cast<unsigned>(month), static_cast<unsigned>(day));
  return static_cast<double>(days * 86400 + hour * 3600 + minute * 60 + second - offsetSeconds) + fraction;
}

}  // namespace traindeck
