#include "run_config.h"

namespace traindeck {

std::vector<std::string> nodeHosts(const TargetConfig& target) {
  if (target.kind != TargetKind::Ssh) return {};
  std::vector<std::string> hosts;
  std::string::size_type from = 0;
  while (from <= target.hosts.size() && !target.hosts.empty()) {
    const auto comma = target.hosts.find(',', from);
    std::string host = target.hosts.substr(from, comma == std::string::npos ? std::string::npos : comma - from);
    const auto first = host.find_first_not_of(" \t");
    const auto last = host.find_last_not_of(" \t");
    if (first != std::string::npos) hosts.push_back(host.substr(first, last - first + 1));
    if (comma == std::string::npos) break;
    from = comma + 1;
  }
  if (hosts.empty() && !target.host.empty()) hosts.push_back(target.host);
  return hosts;
}

}  // namespace traindeck
