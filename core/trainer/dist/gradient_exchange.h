// What the training loop asks of the ranks' gradient exchange, whichever strategy: GradientSync
// (ddp, zero1, zero2: hooks on whole parameters) or ShardedUnits (zero3: units gathered and
// reduce-scattered around each stage's forward and backward).
#pragma once

#include <torch/torch.h>

namespace traindeck {

class GradientExchange {
 public:
  virtual ~GradientExchange() = default;

  // Before a step's first backward: a gradient shard starts again from zero.
  virtual void beginStep() = 0;
  // Whether every micro-step's backward is armed (zero2, zero3: gradients land in a shard that
  // sums the micro-steps), or only the last one's.
  virtual bool armsEveryMicroStep() const = 0;
  // The next backward averages gradients across ranks.
  virtual void arm() = 0;
  // After that backward: waits for what is still under way.
  virtual void finish() = 0;
  // (padded/W,) fp32: this rank's averaged gradients where armsEveryMicroStep().
  virtual torch::Tensor shardGradients() const = 0;
  // Time finish() (and zero3's gathers) spent waiting for communication, and the time
  // communication ran hidden behind backward, for the last armed backward.
  virtual double lastExposedSeconds() const = 0;
  virtual double lastOverlapSeconds() const = 0;
  // zero3's parameter all-gathers in the last armed forward and backward (the other kinds gather
  // none: 0): their running time, each from its launch to its completion, summed, and the part of
  // it gather() waited for; prefetching hid the rest. Completion times come from the work's
  // future, as GradientSync's overlap does: meaningful on the CPU (Gloo) only.
  virtual double lastGatherSeconds() const { return 0; }
  virtual double lastGatherWaitSeconds() const { return 0; }
};

}  // namespace traindeck
