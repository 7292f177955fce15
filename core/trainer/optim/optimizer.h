// What the training loop and the checkpoints need of an optimizer, whether every rank holds the
// whole state (AdamW: one rank, ddp) or only its shard of it (ShardedAdamW: zero1). The whole
// state is always named as AdamW names it, so a checkpoint resumes under either, at any world size.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <torch/torch.h>

namespace traindeck {

class Optimizer {
 public:
  virtual ~Optimizer() = default;

  // One update at learning rate `lr`; `apply` (0-dim, on the device) 0 leaves everything as it was.
  virtual void step(double lr, const torch::Tensor& apply) = 0;
  // The whole state ("exp_avg/<name>", "exp_avg_sq/<name>", "step"). A collective under zero1
  // and zero2: every rank calls it, and only rank 0 gets the whole (the others, "step").
  virtual std::vector<std::pair<std::string, torch::Tensor>> wholeState() = 0;
  // Takes what this rank keeps out of a whole state; throws std::runtime_error naming a missing
  // or misshapen tensor.
  virtual void loadWholeState(const std::map<std::string, torch::Tensor>& tensors) = 0;
  // Bytes of state this rank holds.
  virtual std::int64_t stateBytes() const = 0;
};

}  // namespace traindeck
