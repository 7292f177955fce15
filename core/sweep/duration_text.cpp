// A duration is one or more <number><unit> parts (d, h, m, s), largest first, or a number.
#include "duration_text.h"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <iterator>

namespace traindeck {

namespace {
double unitSeconds(char unit) {
  switch (unit) {
    case 'd':
      return 86400;
    case 'h':
      return 3600;
    case 'm':
      return 60;
    case 's':
      return 1;
    default:
      return 0;
  }
}
}  // namespace

std::optional<double> parseDuration(const std::string& text) {
  const char* at = text.data();
  const char* end = text.data() + text.size();
  double total = 0;
  double lastUnit = INFINITY;
  bool any = false;
  while (at < end) {
    double amount = 0;
    auto [next, ec] = std::from_chars(at, end, amount, std::chars_format::fixed);
    if (ec != std::errc() || next == at || amount < 0) return std::nullopt;
    at = next;
    if (at == end) {
      if (any) return std::nullopt;  // "1h30": a number after a unit needs its own unit
      total = amount;
      any = true;
      break;
    }
    const double unit = unitSeconds(*at++);
    if (unit == 0 || unit >= lastUnit) return std::nullopt;  // unknown, or out of order: "30m1h"
    lastUnit = unit;
    total += amount * unit;
    any = true;
  }
  if (!any || !(total > 0) || !std::isfinite(total)) return std::nullopt;
  return total;
}

std::string durationText(double seconds) {
  struct Unit {
    const char* name;
    std::int64_t seconds;
  };
  static constexpr Unit kUnits[] = {{"d", 86400}, {"h", 3600}, {"m", 60}, {"s", 1}};
  const std::int64_t whole = seconds > 0 ? static_cast<std::int64_t>(seconds + 0.5) : 0;
  for (std::size_t i = 0; i < std::size(kUnits); ++i) {
    if (whole < kUnits[i].seconds && kUnits[i].seconds > 1) continue;
    std::string out = std::to_string(whole / kUnits[i].seconds) + kUnits[i].name;
    if (i + 1 < std::size(kUnits))
      if (const std::int64_t next = whole % kUnits[i].seconds / kUnits[i + 1].seconds; next > 0)
        out += std::to_string(next) + kUnits[i + 1].name;
    return out;
  }
  return "0s";
}

}  // namespace traindeck
