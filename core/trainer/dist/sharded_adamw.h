// zero1: AdamW whose moments exist only for this rank's 1/W of the flat parameter buffer.
// Parameters become views of one flat buffer; after the all-reduce each rank updates its shard
// and an all-gather hands every rank the updated whole. Checkpoints hold the whole state, named
// as AdamW names it, so a resume may use another world size (or ddp).
#pragma once

#include <map>
#include <string>
#include <vector>

#include <torch/torch.h>

#include "communicator.h"
#include "flat_layout.h"
#include "optim/adamw.h"

namespace traindeck {

class ShardedAdamW : public Optimizer {
 public:
  // `flatGradients` is GradientSync's averaged buffer laid out by `layout`. Moves every
  // parameter's storage into one flat buffer (values unchanged).
  ShardedAdamW(Communicator& communicator, const FlatLayout& layout, torch::Tensor flatGradients,
               AdamWSettings settings);

  void step(double lr, const torch::Tensor& apply) override;
  std::int64_t stateBytes() const override { return m_adam->stateBytes(); }  // this rank's moments only

  // Collective (every rank calls it): the whole state, as AdamW::state() would give it.
  std::vector<std::pair<std::string, torch::Tensor>> gatherState();
  // Takes this rank's shard out of a whole state (from any world size).
  void loadState(const std::map<std::string, torch::Tensor>& tensors);

  std::vector<std::pair<std::string, torch::Tensor>> wholeState() override { return gatherState(); }
  void loadWholeState(const std::map<std::string, torch::Tensor>& tensors) override { loadState(tensors); }

 private:
  struct Segment {  // the part of one parameter inside this rank's shard
    std::size_t slot;
    std::int64_t flatBegin, length;
  };

  Communicator& m_comm;
  const FlatLayout& m_layout;
  torch::Tensor m_flatParams;  // (padded,)
  std::int64_t m_shardBegin, m_shardSize;
  std::vector<Segment> m_segments;
  std::unique_ptr<AdamW> m_adam;
};

}  // namespace traindeck
