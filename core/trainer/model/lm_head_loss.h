// Mean next-token cross-entropy of the tied output layer, x·Wᵀ against targets, computed in
// row chunks so that the (N, V) logits never exist whole: at GPT-2's 50,257-way vocabulary they
// are most of a step's memory. The gradient is formed during the forward pass, chunk by chunk.
#pragma once

#include <torch/torch.h>

namespace traindeck {

// x (N, C) hidden states, weight (V, C), targets (N) token ids -> 0-dim mean loss.
torch::Tensor lmHeadLoss(const torch::Tensor& x, const torch::Tensor& weight, const torch::Tensor& targets);

}  // namespace traindeck
