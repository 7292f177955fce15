// Activation checkpointing for one transformer block: the forward pass keeps only the block's
// input; the backward pass runs the block again, with gradients, and back-propagates through
// that. Dropout draws the same masks both times (the CPU generator's state is replayed).
#pragma once

#include <torch/torch.h>

#include "gpt2.h"

namespace traindeck {

// block(x) for (B, T, C) x, keeping no activations of the block.
torch::Tensor checkpointedForward(BlockImpl& block, const torch::Tensor& x);

}  // namespace traindeck
