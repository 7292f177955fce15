// Recognises the trainer's log prefix: an ISO 8601 UTC second, a space, a level and a colon.
#include "log_line.h"

namespace traindeck {

LogLevel logLevelOf(std::string_view line) {
  // 0123456789012345678901
  // 2026-11-30T08:34:49Z info:
  constexpr std::string_view kPattern = "dddd-dd-ddTdd:dd:ddZ ";
  if (line.size() < kPattern.size()) return LogLevel::Plain;
  for (std::size_t i = 0; i < kPattern.size(); ++i) {
    const char c = line[i];
    if (kPattern[i] == 'd' ? (c < '0' || c > '9') : c != kPattern[i]) return LogLevel::Plain;
  }
  const std::string_view rest = line.substr(kPattern.size());
  if (rest.starts_with("info:")) return LogLevel::Info;
  if (rest.starts_with("warn:") || rest.starts_with("warning:")) return LogLevel::Warn;
  if (rest.starts_with("error:")) return LogLevel::Error;
  return LogLevel::Plain;
}

}  // namespace traindeck
