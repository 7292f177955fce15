// zero3's GPT-2: loss() runs the model as a chain of stages (the embeddings, each block, the final
// LayerNorm with the tied output layer), each an autograd function over one ShardedUnits unit. Its
// forward gathers the unit (the next stage's is prefetched meanwhile), runs the stage without
// gradients, keeps only the stage's input and frees the unit; its backward gathers the unit again
// (prefetching the stage before), recomputes the stage with gradients, back-propagates through it
// and reduce-scatters the unit's gradients. That is activation checkpointing for every stage,
// which zero3 therefore subsumes.
#pragma once

#include <vector>

#include <torch/torch.h>

#include "sharded_units.h"
#include "trainer/model/gpt2.h"

namespace traindeck {

class ShardedGpt2 {
 public:
  // The units: 0 holds the embeddings and the final LayerNorm (wte, tied to the output layer, is
  // used by the first stage and the last, and the gradients of both uses add up in its shard);
  // 1 + i holds block i.
  static std::vector<NamedParameters> units(Gpt2& model);

  // `device` and `precision` give the autocast a stage's recompute runs under: the forward's,
  // whichever thread autograd runs the backward on. TRAINDECK_ZERO3_PREFETCH=0 in the
  // environment turns prefetching off, to measure what it hides (a benchmarking switch,
  // docs/scaling.md): every gather then waits for its whole all-gather.
  ShardedGpt2(Gpt2& model, ShardedUnits& units, const torch::Device& device, Precision precision);

  bool prefetches() const { return m_prefetch; }

  // As Gpt2Impl::loss: (B, T) ids and targets -> 0-dim mean loss.
  torch::Tensor loss(const torch::Tensor& idx, const torch::Tensor& targets);

  // One stage, for its autograd function: forward without gradients; backward, returning the
  // gradient of the stage's input (undefined for the token ids).
  torch::Tensor forwardStage(int stage, const torch::Tensor& x, const torch::Tensor& targets);
  torch::Tensor backwardStage(int stage, const torch::Tensor& x, const torch::Tensor& targets,
                              const torch::Tensor& rngState, const torch::Tensor& gradOutput);

 private:
  int stageCount() const { return static_cast<int>(m_model->config().n_layer) + 2; }
  int unitOf(int stage) const { return stage == stageCount() - 1 ? 0 : stage; }
  torch::Tensor compute(int stage, const torch::Tensor& x, const torch::Tensor& targets);

  Gpt2& m_model;
  ShardedUnits& m_units;
  torch::Device m_device;
  Precision m_precision;
  bool m_prefetch;
  torch::Tensor m_anchor;  // 0-dim, requires grad: makes the first stage (integer input) part of backward
};

}  // namespace traindeck
