// Durations as people write them in sweep.yaml: "2h", "90m", "1h30m", "1.5h", "45s", "2d", or
// a bare number of seconds.
#pragma once

#include <optional>
#include <string>

namespace traindeck {

// Seconds, or nullopt for text that is not a positive duration.
std::optional<double> parseDuration(const std::string& text);

// Seconds as "1h30m", "45s", "2d3h": whole seconds, the two largest units that are not zero.
std::string durationText(double seconds);

}  // namespace traindeck
