// Where each parameter lives in one flat fp32 buffer shared by gradient buckets and the shards
// of zero1 and zero2: parameters in reverse registration order (roughly the order backward
// produces their gradients). zero1 pads the total to a multiple of the world size and gives rank
// r the r-th 1/W of it; zero2 pads each gradient bucket so and gives rank r the r-th 1/W of each.
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

struct FlatBucket {
  std::int64_t begin = 0, end = 0;  // flat offsets; end - begin is a multiple of the world size
};

struct FlatLayout {
  std::vector<FlatSlot> slots;
  std::int64_t total = 0;           // parameters' elements
  std::int64_t padded = 0;          // the buffer's length, a multiple of the world size
  std::vector<FlatBucket> buckets;  // zero2's, each padded; empty: GradientSync cuts its own
  std::int64_t shardSize(int worldSize) const { return padded / worldSize; }
};

// One stretch of the flat buffer cut into W equal chunks: rank r owns [begin + r·chunk, begin +
// (r+1)·chunk). zero1 has one (the whole buffer), zero2 one per bucket.
struct ShardSpan {
  std::int64_t begin = 0, chunk = 0;
  torch::Tensor grad;  // (chunk,) this rank's averaged gradients for its chunk
};

FlatLayout makeFlatLayout(const std::vector<std::pair<std::string, torch::Tensor>>& named, int worldSize);
// zero2's: buckets of about bucketMb (a parameter is never split between two), each padded to a
// multiple of the world size so that its reduce-scatter gives every rank an equal chunk.
FlatLayout makeBucketedShardLayout(const std::vector<std::pair<std::string, torch::Tensor>>& named, int worldSize,
                                   double bucketMb);
// How many fp32 elements bucketMb holds (at least one).
std::int64_t bucketElements(double bucketMb);

}  // namespace traindeck
