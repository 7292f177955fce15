// A tensor of a checkpoint file known by name, type and shape before it exists, and produced
// only when its turn in the file comes, so that a writer holds one tensor at a time. Producing
// may be a collective (a shard summed into rank 0): every rank then produces the same tensors
// in the same order, and only rank 0's result counts.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include <torch/torch.h>

namespace traindeck {

struct StreamedTensor {
  std::string name;
  torch::ScalarType type = torch::kFloat;
  std::vector<std::int64_t> shape;
  std::function<torch::Tensor()> produce;
};

using StreamedTensors = std::vector<StreamedTensor>;

// One already at hand.
inline StreamedTensor streamedAtHand(std::string name, torch::Tensor tensor) {
  return {std::move(name), tensor.scalar_type(), tensor.sizes().vec(), [tensor] { return tensor; }};
}

inline StreamedTensors streamedAtHand(const std::vector<std::pair<std::string, torch::Tensor>>& named) {
  StreamedTensors out;
  for (const auto& [name, tensor] : named) out.push_back(streamedAtHand(name, tensor));
  return out;
}

}  // namespace traindeck
