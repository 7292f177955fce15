// zero3 (FSDP-style): the model's parameters exist only as this rank's shard. They are grouped in
// units (GPT-2: one per block, and the embeddings with the final LayerNorm); each unit is a flat
// fp32 stretch padded to a multiple of W, of which rank r keeps the r-th 1/W, in one shard laid
// out as zero2's gradient shard (unit u's chunk at u.begin / W). A unit is all-gathered when a
// stage needs it (or prefetched while the stage before computes) and released right after; the
// gradients of each use of a unit are reduce-scattered into the gradient shard, which sums uses
// and micro-steps. One per rank; not thread-safe (the autograd thread and the caller take turns).
#pragma once

#include <atomic>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <torch/torch.h>

#include "communicator.h"
#include "flat_layout.h"
#include "gradient_exchange.h"
#include "train/streamed_tensor.h"

namespace traindeck {

using NamedParameters = std::vector<std::pair<std::string, torch::Tensor>>;

class ShardedUnits : public GradientExchange {
 public:
  // `units`: each unit's named parameters, every parameter of the model in exactly one. Keeps this
  // rank's shard of their values (the same on every rank: broadcast them first) and releases the
  // parameters: each becomes a placeholder of its shape that holds one NaN, until a gather.
  ShardedUnits(Communicator& communicator, const std::vector<NamedParameters>& units, const torch::Device& device);
  ShardedUnits(const ShardedUnits&) = delete;
  ShardedUnits& operator=(const ShardedUnits&) = delete;

  // Every parameter (slots, in unit order) and the units (buckets, each a multiple of W long).
  const FlatLayout& layout() const { return m_layout; }
  // Per unit: this rank's chunk and its gradients, for ShardedAdamW.
  std::vector<ShardSpan> shardSpans() const;
  torch::Tensor parameterShard() const { return m_values; }  // (padded/W,) fp32, updated in place by the optimizer
  int unitCount() const { return static_cast<int>(m_layout.buckets.size()); }
  std::int64_t largestUnitElements() const;

  // Points the unit's parameters at its whole values: waits for its prefetch, or gathers now.
  void gather(int unit);
  // Starts the unit's all-gather without waiting (nothing when it is gathered or under way).
  void prefetch(int unit);
  // Parameters back to placeholders; the gathered values are freed.
  void release(int unit);
  std::vector<torch::Tensor> parameters(int unit) const;
  // One use's gradients of the unit's parameters (in parameters() order; undefined: none), summed
  // over the ranks (scaled 1/W: the average) into this rank's gradient shard. Started, not waited
  // for; at most two units' worth are in flight.
  void reduceGradients(int unit, const std::vector<torch::Tensor>& gradients);

  void beginStep() override;
  bool armsEveryMicroStep() const override { return true; }
  void arm() override;
  void finish() override;
  torch::Tensor shardGradients() const override { return m_grads; }
  double lastExposedSeconds() const override { return m_exposedSeconds; }
  double lastOverlapSeconds() const override { return 0; }  // not measured under zero3
  double lastGatherSeconds() const override { return m_gatherSeconds; }
  double lastGatherWaitSeconds() const override { return m_gatherWaitSeconds; }

  // The whole weights, named, tensor by tensor: producing one is a collective (every rank
  // produces the same ones in the same order) that sums the ranks' parts into rank 0; the other
  // ranks get an undefined tensor. No rank ever holds more than one whole weight.
  StreamedTensors weightTensors();
  // Collective: rank 0's `whole` (every parameter by name; the others pass none) becomes every
  // rank's shard, broadcast tensor by tensor; `sent`, when given, hears on rank 0 of each of
  // `whole`'s tensors once it is sent.
  void scatterWeights(const std::map<std::string, torch::Tensor>& whole,
                      const std::function<void(const torch::Tensor&)>& sent = {});

 private:
  struct Gathering {
    int unit;
    torch::Tensor buffer;  // (unit length,)
    c10::intrusive_ptr<c10d::Work> work;
    double startedAt = 0;                         // seconds on the steady clock
    std::shared_ptr<std::atomic<double>> doneAt;  // set by the communication thread; 0: not yet
  };
  struct Reduction {
    int unit;
    compat::ReduceScatterWork scatter;
  };

  std::int64_t unitLength(int unit) const;
  torch::Tensor ownChunk(const torch::Tensor& shard, int unit) const;  // the unit's chunk of a shard
  Gathering startGather(int unit);
  void harvest(Reduction& reduction);  // waits for it and adds its chunk of the sum to the shard
  double wait(const c10::intrusive_ptr<c10d::Work>& work, const char* what);  // returns the seconds waited

  Communicator& m_comm;
  torch::TensorOptions m_floats;
  FlatLayout m_layout;
  std::vector<std::vector<std::size_t>> m_slotsOfUnit;
  torch::Tensor m_values;                // (padded/W,) this rank's parameter values
  torch::Tensor m_grads;                 // (padded/W,) this rank's averaged gradients
  torch::Tensor m_placeholder;           // one NaN, expanded to each released parameter's shape
  std::deque<Gathering> m_prefetched;    // started, not yet gathered
  std::map<int, torch::Tensor> m_whole;  // gathered units' buffers, until released
  std::deque<Reduction> m_reductions;    // reduce-scatters under way, oldest first
  double m_exposedSeconds = 0;
  double m_gatherSeconds = 0;
  double m_gatherWaitSeconds = 0;
};

}  // namespace traindeck
