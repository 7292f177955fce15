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

#include "train/streamed_tensor.h"

namespace traindeck {

class Optimizer {
 public:
  virtual ~Optimizer() = default;

  // One update at learning rate `lr`; `apply` (0-dim, on the device) 0 leaves everything as it was.
  virtual void step(double lr, const torch::Tensor& apply) = 0;
  // The whole state ("exp_avg/<name>", "exp_avg_sq/<name>", "step"), tensor by tensor. Under
  // zero1, zero2 and zero3 producing one is a collective that sums the ranks' parts into rank 0
  // (the others get an undefined tensor), so no rank ever holds more than one whole tensor of it.
  virtual StreamedTensors wholeStateTensors() = 0;
  // Takes what this rank keeps out of a whole state; throws std::runtime_error naming a missing
  // or misshapen tensor.
  virtual void loadWholeState(const std::map<std::string, torch::Tensor>& tensors) = 0;
  // Takes what this rank keeps of one tensor of the whole state (named as wholeStateTensors()
  // names it), so that a resume streams the state without any rank holding all of it; throws
  // std::runtime_error on an unknown name or a misshapen tensor.
  virtual void loadWholeStateTensor(const std::string& name, const torch::Tensor& whole) = 0;
  // Bytes of state this rank holds.
  virtual std::int64_t stateBytes() const = 0;
};

}  // namespace traindeck
