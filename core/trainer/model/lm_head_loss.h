// Mean next-token cross-entropy of the tied output layer, x·Wᵀ against targets, computed in
// row chunks so that the (N, V) logits never exist whole: at GPT-2's 50,257-way vocabulary they
// are most of a step's memory. The gradient is formed during the forward pass, chunk by chunk.
#pragma once

#include <torch/torch.h>

namespace traindeck {

// The tied weight's gradient on its way through autograd: the output layer's backward, which
// runs first, leaves its dense (V, C) block here; the token lookup's backward adds the batch's
// rows into that block in place and lets go of it, so that the weight's gradient is one dense
// block written once. (Autograd adding a sparse lookup gradient to the dense one copies the
// whole block first on LibTorch 2.x: ~40 ms a step at GPT-2's vocabulary.)
struct TiedGradient {
  torch::Tensor dense;
};

// x (N, C) hidden states, weight (V, C), targets (N) token ids -> 0-dim mean loss.
// `scratch`, where given, holds a CPU fp32 chunk's logits and is kept by the caller for the next
// call: asking the heap for a fresh ~400 MB block each step left the peak to fragmentation (a
// small allocation landing in the freed block made the next step take new memory: 1.1 to
// 1.8 GB peak between identical runs of the bench model). `chunkRows` > 0 sets the rows per
// chunk (tests); by default a chunk's logits are at most 512 MiB. `tied`: see TiedGradient.
torch::Tensor lmHeadLoss(const torch::Tensor& x, const torch::Tensor& weight, const torch::Tensor& targets,
                         torch::Tensor* scratch = nullptr, int64_t chunkRows = 0, TiedGradient* tied = nullptr);

// The rows of `weight` (V, C) for token ids `idx` (B, T): (B, T, C), as torch::embedding. Its
// gradient goes into `tied`'s block where the output layer left one (lmHeadLoss with the same
// `tied`), else it is a dense (V, C) block of its own.
torch::Tensor tiedTokenLookup(const torch::Tensor& weight, const torch::Tensor& idx, TiedGradient* tied);

}  // namespace traindeck
