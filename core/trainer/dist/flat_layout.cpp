#include "flat_layout.h"

namespace traindeck {

FlatLayout makeFlatLayout(const std::vector<std::pair<std::string, torch::Tensor>>& named, int worldSize) {
  FlatLayout layout;
  for (auto it = named.rbegin(); it != named.rend(); ++it) {
    const torch::Tensor& p = it->second;
    layout.slots.push_back({it->first, p, layout.total, p.numel(), p.dim() >= 2});
    layout.total += p.numel();
  }
  const std::int64_t w = std::max(1, worldSize);
  layout.padded = (layout.total + w - 1) / w * w;
  return layout;
}

}  // namespace traindeck
