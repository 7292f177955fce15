#include "slot_share.h"

#include <sched.h>

#include <algorithm>
#include <charconv>
#include <sstream>
#include <thread>
#include <vector>

namespace traindeck {

namespace {

std::optional<int> wholeNumber(const std::string& text) {
  int value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || text.empty()) return std::nullopt;
  return value;
}

// The device names CUDA_VISIBLE_DEVICES lists (indices or UUIDs), or 0..gpus-1.
std::vector<std::string> visibleNames(int gpus, const char* visibleDevices) {
  std::vector<std::string> names;
  if (visibleDevices && *visibleDevices) {
    std::istringstream in(visibleDevices);
    for (std::string name; std::getline(in, name, ',');) names.push_back(name);
  }
  if (static_cast<int>(names.size()) != gpus) {  // unset, or not what CUDA counted: its own order
    names.clear();
    for (int d = 0; d < gpus; ++d) names.push_back(std::to_string(d));
  }
  return names;
}

}  // namespace

int usableCores() {
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  if (::sched_getaffinity(0, sizeof allowed, &allowed) == 0) return std::max(1, CPU_COUNT(&allowed));
  return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

std::optional<TrialSlot> parseSlot(const std::string& text) {
  const std::size_t slash = text.find('/');
  if (slash == std::string::npos) return std::nullopt;
  const auto index = wholeNumber(text.substr(0, slash));
  const auto count = wholeNumber(text.substr(slash + 1));
  if (!index || !count || *count < 1 || *index < 0 || *index >= *count) return std::nullopt;
  return TrialSlot{*index, *count};
}

std::string slotText(const TrialSlot& slot) {
  return std::to_string(slot.index) + "/" + std::to_string(slot.count);
}

EnvList slotEnvironment(const TrialSlot& slot, int cores, int gpus, int ranks, const char* visibleDevices) {
  const int count = std::max(1, slot.count);
  if (gpus > 0) {
    const std::vector<std::string> names = visibleNames(gpus, visibleDevices);
    std::string devices;
    const auto add = [&](int d) { devices += (devices.empty() ? "" : ",") + names[static_cast<std::size_t>(d)]; };
    if (count >= gpus) {
      add(slot.index % gpus);
    } else {
      const int each = gpus / count;
      for (int d = slot.index * each; d < (slot.index + 1) * each; ++d) add(d);
    }
    return {{"CUDA_VISIBLE_DEVICES", devices}};
  }
  const int threads = std::max(1, cores / count / std::max(1, ranks));
  return {{"OMP_NUM_THREADS", std::to_string(threads)}};
}

}  // namespace traindeck
