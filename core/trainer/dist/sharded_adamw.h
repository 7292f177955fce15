// zero1, zero2 and zero3: AdamW whose moments exist only for what this rank owns of the flat
// parameter buffer (its 1/W of the whole under zero1, its chunk of each bucket under zero2, of
// each unit under zero3). Under zero1 and zero2 parameters become views of one flat buffer; each
// rank updates what it owns and all-gathers hand every rank the updated whole. Under zero3 the
// parameters exist only as the rank's shard, which it updates in place. Checkpoints hold the
// whole state, named as AdamW names it, so a resume may use another world size or kind.
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
  // zero3: `shardValues` ((padded/W,), span s's chunk at s.begin / W, as the gradient shard) is
  // all this rank has of the parameters; steps update it in place and gather nothing.
  ShardedAdamW(Communicator& communicator, const FlatLayout& layout, const std::vector<ShardSpan>& spans,
               torch::Tensor shardValues, AdamWSettings settings);

  void step(double lr, const torch::Tensor& apply) override;
  std::int64_t stateBytes() const override { return m_adam->stateBytes(); }  // this rank's moments only

  // The whole state, named as AdamW::state() names it; each moment is produced by a collective
  // (every rank produces the same ones in the same order) that sums the parts into rank 0.
  StreamedTensors wholeStateTensors() override;
  // Takes this rank's shard out of a whole state (from any world size).
  void loadState(const std::map<std::string, torch::Tensor>& tensors);

  void loadWholeState(const std::map<std::string, torch::Tensor>& tensors) override { loadState(tensors); }
  void loadWholeStateTensor(const std::string& name, const torch::Tensor& whole) override;

 private:
  struct Segment {  // the part of one parameter inside this rank's shard
    std::size_t slot;
    std::int64_t flatBegin, length;
  };

  // The AdamW over this rank's pieces; `valuesAt(span, begin, length)` is where the values of
  // flat elements [begin, begin + length) of `span`'s own chunk live.
  template <typename ValuesAt>
  void optimizeOwnPieces(ValuesAt valuesAt, AdamWSettings settings);

  Communicator& m_comm;
  const FlatLayout& m_layout;
  torch::TensorOptions m_floats;
  torch::Tensor m_flatParams;  // (padded,); undefined under zero3
  std::vector<ShardSpan> m_spans;
  std::vector<Segment> m_segments;
  std::unique_ptr<AdamW> m_adam;
};

}  // namespace traindeck
