// Reading sinfo's partition lines and Slurm's time limits. Both are read strictly enough that a
// typo in a job is refused, and leniently enough that an odd line of sinfo never refuses one.
#include "slurm_partitions.h"

#include <algorithm>
#include <charconv>
#include <climits>
#include <cstdint>

namespace traindeck {

namespace {

std::string_view trimSlurmText(std::string_view text) {
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) return {};
  const auto last = text.find_last_not_of(" \t\r\n");
  return text.substr(first, last - first + 1);
}

// `text` split at each `separator`, empty pieces kept.
std::vector<std::string_view> splitSlurmText(std::string_view text, char separator) {
  std::vector<std::string_view> parts;
  std::size_t from = 0;
  while (true) {
    const auto at = text.find(separator, from);
    parts.push_back(text.substr(from, at == std::string_view::npos ? std::string_view::npos : at - from));
    if (at == std::string_view::npos) return parts;
    from = at + 1;
  }
}

// A whole number of 1 to 9 digits, nothing else (no sign, no spaces).
std::optional<std::int64_t> slurmDigits(std::string_view text) {
  if (text.empty() || text.size() > 9) return std::nullopt;
  std::int64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || text.front() == '-' || text.front() == '+')
    return std::nullopt;
  return value;
}

bool slurmWordEquals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           const auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; };
           return lower(x) == lower(y);
         });
}

// The GPUs of one GRES item ("gpu:a100:8" with any "(S:0-1)" already cut off).
int gpusInGresItem(std::string_view item) {
  const std::vector<std::string_view> fields = splitSlurmText(trimSlurmText(item), ':');
  if (fields.front() != "gpu") return 0;
  if (fields.size() == 1) return 1;  // "gpu" alone is one
  const auto count = slurmDigits(fields.back());
  return count ? static_cast<int>(*count) : 1;  // "gpu:a100" without a count is one as well
}

}  // namespace

int gpusInGres(std::string_view gres) {
  int total = 0;
  int depth = 0;
  std::size_t itemStart = 0;
  std::size_t itemEnd = std::string_view::npos;  // where "(" cut the item short
  for (std::size_t i = 0; i <= gres.size(); ++i) {
    const char c = i < gres.size() ? gres[i] : ',';
    if (c == '(') {
      if (depth++ == 0 && itemEnd == std::string_view::npos) itemEnd = i;
    } else if (c == ')') {
      depth = std::max(0, depth - 1);
    } else if (c == ',' && depth == 0) {
      const std::size_t end = std::min(i, itemEnd);
      total += gpusInGresItem(gres.substr(itemStart, end - itemStart));
      itemStart = i + 1;
      itemEnd = std::string_view::npos;
    }
  }
  return total;
}

std::optional<int> slurmMinutes(std::string_view text) {
  std::int64_t days = 0, hours = 0, minutes = 0, seconds = 0;
  const auto dash = text.find('-');
  if (dash != std::string_view::npos) {
    // D-HH, D-HH:MM, D-HH:MM:SS
    const auto d = slurmDigits(text.substr(0, dash));
    const std::vector<std::string_view> rest = splitSlurmText(text.substr(dash + 1), ':');
    if (!d || rest.size() > 3) return std::nullopt;
    std::int64_t parts[3] = {0, 0, 0};
    for (std::size_t i = 0; i < rest.size(); ++i) {
      const auto v = slurmDigits(rest[i]);
      if (!v || *v >= (i == 0 ? 24 : 60)) return std::nullopt;
      parts[i] = *v;
    }
    days = *d, hours = parts[0], minutes = parts[1], seconds = parts[2];
  } else {
    // MM, MM:SS, HH:MM:SS: the first field has no upper bound, the others are below 60.
    const std::vector<std::string_view> fields = splitSlurmText(text, ':');
    if (fields.size() > 3) return std::nullopt;
    std::int64_t values[3] = {0, 0, 0};
    for (std::size_t i = 0; i < fields.size(); ++i) {
      const auto v = slurmDigits(fields[i]);
      if (!v || (i > 0 && *v >= 60)) return std::nullopt;
      values[i] = *v;
    }
    if (fields.size() == 1) minutes = values[0];
    if (fields.size() == 2) minutes = values[0], seconds = values[1];
    if (fields.size() == 3) hours = values[0], minutes = values[1], seconds = values[2];
  }
  const std::int64_t totalSeconds = ((days * 24 + hours) * 60 + minutes) * 60 + seconds;
  const std::int64_t total = (totalSeconds + 59) / 60;
  if (total > INT_MAX) return std::nullopt;
  return static_cast<int>(total);
}

std::string slurmTimeText(int minutes) {
  const auto twoDigits = [](int v) { return (v < 10 ? "0" : "") + std::to_string(v); };
  const int days = minutes / (24 * 60);
  const std::string clock = twoDigits(minutes / 60 % 24) + ":" + twoDigits(minutes % 60) + ":00";
  return days > 0 ? std::to_string(days) + "-" + clock : clock;
}

std::string slurmDurationText(int minutes) {
  const int days = minutes / (24 * 60);
  const int hours = minutes / 60 % 24;
  const int mins = minutes % 60;
  std::string out;
  const auto add = [&out](int value, const char* one, const char* many) {
    if (value == 0) return;
    if (!out.empty()) out += ' ';
    out += std::to_string(value) + (value == 1 ? one : many);
  };
  add(days, " day", " days");
  add(hours, " h", " h");
  add(mins, " min", " min");
  return out.empty() ? "0 min" : out;
}

std::vector<SlurmPartition> parseSinfo(std::string_view text) {
  std::vector<SlurmPartition> partitions;
  for (std::string_view line : splitSlurmText(text, '\n')) {
    const std::vector<std::string_view> fields = splitSlurmText(trimSlurmText(line), '|');
    if (fields.size() != 4) continue;
    SlurmPartition p;
    std::string_view name = trimSlurmText(fields[0]);
    if (!name.empty() && name.back() == '*') {
      p.isDefault = true;
      name.remove_suffix(1);
    }
    const auto nodes = slurmDigits(trimSlurmText(fields[1]));
    if (name.empty() || !nodes) continue;
    p.name = std::string(name);
    p.nodes = static_cast<int>(*nodes);
    p.gpusPerNode = gpusInGres(trimSlurmText(fields[2]));
    const std::string_view limit = trimSlurmText(fields[3]);
    if (!slurmWordEquals(limit, "infinite") && !slurmWordEquals(limit, "unlimited")) p.maxMinutes = slurmMinutes(limit);

    const auto same = std::find_if(partitions.begin(), partitions.end(),
                                   [&p](const SlurmPartition& known) { return known.name == p.name; });
    if (same == partitions.end()) {
      partitions.push_back(std::move(p));
      continue;
    }
    same->nodes = static_cast<int>(std::min<std::int64_t>(INT_MAX, std::int64_t{same->nodes} + p.nodes));
    same->gpusPerNode = std::max(same->gpusPerNode, p.gpusPerNode);
    same->isDefault = same->isDefault || p.isDefault;
    if (!same->maxMinutes || !p.maxMinutes)
      same->maxMinutes.reset();
    else
      same->maxMinutes = std::max(*same->maxMinutes, *p.maxMinutes);
  }
  return partitions;
}

}  // namespace traindeck
