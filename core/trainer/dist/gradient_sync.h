// Data-parallel gradient averaging, DDP-style: gradients are copied into fp32 buckets of about
// bucket_mb as backward produces them (a hook per parameter), and each full bucket's all-reduce
// starts at once, in bucket order on every rank, so communication overlaps the rest of
// backward. Under ddp and zero1 only the last micro-step of an accumulation is armed (earlier
// ones accumulate in .grad) and buckets are all-reduced; under zero2 every micro-step is armed,
// each bucket is reduce-scattered into this rank's shard, which sums the micro-steps, and no
// parameter keeps a .grad: only a bucket's worth of whole gradients exists at a time.
#pragma once

#include <atomic>
#include <memory>
#include <vector>

#include <torch/torch.h>

#include "communicator.h"
#include "flat_layout.h"
#include "gradient_exchange.h"

namespace traindeck {

// The length of the union of the intervals [start, min(end, cutoff)] (seconds): how long at
// least one of them was under way before `cutoff`.
double coveredBefore(std::vector<std::pair<double, double>> intervals, double cutoff);

enum class GradientReduction {
  AllReduce,      // ddp, zero1: every rank gets the whole average, as the parameters' .grad
  ReduceScatter,  // zero2: each rank gets its chunk of every bucket (needs layout.buckets)
};

class GradientSync : public GradientExchange {
 public:
  GradientSync(Communicator& communicator, FlatLayout layout, double bucketMb, const torch::Device& device,
               GradientReduction reduction = GradientReduction::AllReduce);
  GradientSync(const GradientSync&) = delete;
  GradientSync& operator=(const GradientSync&) = delete;

  // Before a step's first backward: zero2's shard starts again from zero.
  void beginStep() override;
  // Whether every micro-step's backward is armed (zero2), or only the last one's.
  bool armsEveryMicroStep() const override { return m_reduction == GradientReduction::ReduceScatter; }
  // The next backward averages gradients across ranks (call before the last micro-step's
  // backward, or before every one's where armsEveryMicroStep()).
  void arm() override;
  // After that backward: starts what is left and waits for every bucket. All-reduce: points each
  // parameter's .grad at its averaged slice of the flat buffer. Reduce-scatter: adds this rank's
  // chunks into shardGradients() and drops every parameter's .grad.
  void finish() override;

  const FlatLayout& layout() const { return m_layout; }
  torch::Tensor flatGradients() const { return m_flat; }  // (padded,) fp32, averaged after finish(); all-reduce only
  // (padded/W,) fp32: zero2's chunks, bucket by bucket
  torch::Tensor shardGradients() const override { return m_shard; }
  // What this rank owns of the flat buffer, with its gradients: for zero1 its 1/W of the whole
  // buffer, for zero2 its chunk of each bucket.
  std::vector<ShardSpan> shardSpans() const;
  int bucketCount() const { return static_cast<int>(m_buckets.size()); }
  // Time finish() spent waiting for communication that backward did not hide.
  double lastExposedSeconds() const override { return m_exposedSeconds; }
  // Communication hidden behind backward: the time during which at least one bucket's
  // all-reduce was running (launched and not yet complete) before backward ended. With
  // lastExposedSeconds, this shows the overlap. Completion times come from the work's future,
  // which the CPU backend (Gloo) completes when the data has arrived; NCCL completes it when
  // the work is queued, so on CUDA this figure is not meaningful.
  double lastOverlapSeconds() const override { return m_overlapSeconds; }
  std::int64_t allReducesLaunched() const { return m_launched; }  // since construction

 private:
  struct Bucket {
    std::int64_t begin = 0, end = 0;  // flat offsets
    int slotsLeft = 0;                // gradients still to arrive this backward
    int slotCount = 0;
    c10::intrusive_ptr<c10d::Work> work;
    torch::Tensor staging;                        // reduce-scatter: (end - begin,), while this backward needs it
    compat::ReduceScatterWork scatter;            // reduce-scatter: the one under way
    double launchedAt = 0;                        // seconds on the steady clock
    std::shared_ptr<std::atomic<double>> doneAt;  // set by the communication thread; 0: not yet
  };

  void onGradient(std::size_t slot, const torch::Tensor& grad);
  torch::Tensor slotBuffer(std::size_t slot);  // where the slot's averaged gradient goes
  void releaseHeldGradients();
  void launchReadyBuckets();
  void launch(Bucket& bucket);
  void harvest(Bucket& bucket);  // reduce-scatter: adds its chunk of the sum to the shard

  Communicator& m_comm;
  FlatLayout m_layout;
  GradientReduction m_reduction;
  torch::TensorOptions m_floats;
  torch::Tensor m_flat;             // (padded,), all-reduce only
  torch::Tensor m_shard;            // (padded/W,), reduce-scatter only
  std::vector<std::size_t> m_held;  // reduce-scatter: slots copied whose .grad autograd has since set
  std::vector<Bucket> m_buckets;
  std::vector<int> m_bucketOfSlot;
  std::vector<bool> m_filled;
  std::size_t m_nextToLaunch = 0;
  bool m_armed = false;
  double m_exposedSeconds = 0;
  double m_overlapSeconds = 0;
  std::int64_t m_launched = 0;
};

}  // namespace traindeck
