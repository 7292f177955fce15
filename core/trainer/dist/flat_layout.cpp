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

std::int64_t bucketElements(double bucketMb) {
  return std::max<std::int64_t>(1, static_cast<std::int64_t>(bucketMb * (1 << 20) / 4));
}

FlatLayout makeBucketedShardLayout(const std::vector<std::pair<std::string, torch::Tensor>>& named, int worldSize,
                                   double bucketMb) {
  const std::int64_t w = std::max(1, worldSize);
  const std::int64_t limit = bucketElements(bucketMb);
  FlatLayout layout;
  std::int64_t offset = 0;
  const auto closeBucket = [&] {
    FlatBucket& bucket = layout.buckets.back();
    bucket.end = bucket.begin + (offset - bucket.begin + w - 1) / w * w;
    offset = bucket.end;
  };
  for (auto it = named.rbegin(); it != named.rend(); ++it) {
    const torch::Tensor& p = it->second;
    if (layout.buckets.empty() || offset - layout.buckets.back().begin >= limit) {
      if (!layout.buckets.empty()) closeBucket();
      layout.buckets.push_back({offset, offset});
    }
    layout.slots.push_back({it->first, p, offset, p.numel(), p.dim() >= 2});
    offset += p.numel();
    layout.total += p.numel();
  }
  if (!layout.buckets.empty()) closeBucket();
  layout.padded = offset;
  return layout;
}

}  // namespace traindeck
