// Durations as people write them in sweep.yaml: "2h", "90m", "1h30m", "1.5h", "45s", "2d", or
// a bare number of seconds.
#pragma once

#include <optional>
#include <string>

namespace traindeck {

// Seconds, or nullopt for text that is not a positive duration.
std::optional<double> parseDuration(const std::string& text);

}  // namespace traindeck
