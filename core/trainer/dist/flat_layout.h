// Where each parameter lives in one flat fp32 buffer shared by gradient buckets and zero1
// shards: parameters in reverse registration order (roughly the order backward produces their
// gradients), the total padded to a multiple of the world size so shards are equal.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include <torch/torch.h>

namespace traindeck {

struct FlatSlot {
  std::string name;
  torch::Tensor parameter;
  std::int64_t offset = 0;
  std::int64_t numel = 0;
  bool decay = true;  // AdamW's weight decay applies (2-D weights)
};

struct FlatLayout {
  std::vector<FlatSlot> slots;
  std::int64_t total = 0;   // parameters' elements
  std::int64_t padded = 0;  // total rounded up to a multiple of the world size
  std::int64_t shardSize(int worldSize) const { return padded / worldSize; }
};

FlatLayout makeFlatLayout(const std::vector<std::pair<std::string, torch::Tensor>>& named, int worldSize);

}  // namespace traindeck
