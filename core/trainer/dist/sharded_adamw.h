// zero1 and zero2: AdamW whose moments exist only for what this rank owns of the flat parameter
// buffer (its 1/W of the whole under zero1, its chunk of each bucket under zero2). Parameters
// become views of one flat buffer; each rank updates what it owns and all-gathers hand every
// rank the updated whole. Checkpoints hold the whole state, named as AdamW names it, so a resume
// may use another world size or kind.
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
  // `spans` (GradientSync::shardSpans()) say what this rank owns of `layout`'s buffer and where
  // its averaged gradients are. Moves every parameter's storage into one flat buffer (values
  // unchanged).
  ShardedAdamW(Communicator& communicator, const FlatLayout& layout, const std::vector<ShardSpan>& spans,
               AdamWSettings settings);

  void step(double lr, const torch::Tensor& apply) override;
  std::int64_t stateBytes() const override { return m_adam->stateBytes(); }  // this rank's moments only

  // Collective (every rank calls it): the whole state, as AdamW::state() would give it, on rank
  // 0; the other ranks get only "step".
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
  std::vector<ShardSpan> m_spans;
  std::vector<Segment> m_segments;
  std::unique_ptr<AdamW> m_adam;
};

}  // namespace traindeck
