#include "checkpoint_names.h"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <filesystem>

#include "runlog/run_paths.h"

namespace traindeck {

namespace fs = std::filesystem;

std::int64_t checkpointStep(std::string_view name) {
  constexpr std::string_view kPrefix = "step-";
  if (name.substr(0, kPrefix.size()) != kPrefix) return -1;
  const std::string_view digits = name.substr(kPrefix.size());
  if (digits.empty() || digits.size() > 18 ||
      !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return -1;
  std::int64_t step = -1;
  std::from_chars(digits.data(), digits.data() + digits.size(), step);
  return step;
}

std::string checkpointName(std::int64_t step) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "step-%08lld", static_cast<long long>(step));
  return buffer;
}

std::vector<std::string> completeCheckpoints(const std::string& checkpointsDir) {
  std::vector<std::pair<std::int64_t, std::string>> found;
  std::error_code ec;
  for (fs::directory_iterator it(checkpointsDir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    const std::int64_t step = checkpointStep(name);
    std::error_code exists;
    if (step >= 0 && fs::is_regular_file(it->path() / run_file::kCheckpointComplete, exists)) found.emplace_back(step, name);
  }
  std::sort(found.begin(), found.end());
  std::vector<std::string> names;
  for (auto& item : found) names.push_back(std::move(item.second));
  return names;
}

std::string newestCompleteCheckpoint(const std::string& checkpointsDir) {
  const std::vector<std::string> names = completeCheckpoints(checkpointsDir);
  return names.empty() ? std::string() : names.back();
}

}  // namespace traindeck
