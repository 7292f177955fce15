// Data-parallel gradient averaging, DDP-style: gradients are copied into fp32 buckets of about
// bucket_mb as backward produces them (a hook per parameter), and each full bucket's all-reduce
// starts at once, in bucket order on every rank, so communication overlaps the rest of
// backward. Only the last micro-step of an accumulation is armed: earlier ones just accumulate.
#pragma once

#include <atomic>
#include <memory>
#include <vector>

#include <torch/torch.h>

#include "communicator.h"
#include "flat_layout.h"

namespace traindeck {

// The length of the union of the intervals [start, min(end, cutoff)] (seconds): how long at
// least one of them was under way before `cutoff`.
double coveredBefore(std::vector<std::pair<double, double>> intervals, double cutoff);

class GradientSync {
 public:
  GradientSync(Communicator& communicator, FlatLayout layout, double bucketMb, const torch::Device& device);
  GradientSync(const GradientSync&) = delete;
  GradientSync& operator=(const GradientSync&) = delete;

  // The next backward averages gradients across ranks (call before the last micro-step's backward).
  void arm();
  // After that backward: starts what is left, waits for every bucket, and points each
  // parameter's .grad at its averaged slice of the flat buffer.
  void finish();

  const FlatLayout& layout() const { return m_layout; }
  torch::Tensor flatGradients() const { return m_flat; }  // (padded,) fp32, averaged after finish()
  int bucketCount() const { return static_cast<int>(m_buckets.size()); }
  // Time finish() spent waiting for communication that backward did not hide.
  double lastExposedSeconds() const { return m_exposedSeconds; }
  // Communication hidden behind backward: the time during which at least one bucket's
  // all-reduce was running (launched and not yet complete) before backward ended. With
  // lastExposedSeconds, this shows the overlap. Completion times come from the work's future,
  // which the CPU backend (Gloo) completes when the data has arrived; NCCL completes it when
  // the work is queued, so on CUDA this figure is not meaningful.
  double lastOverlapSeconds() const { return m_overlapSeconds; }
  std::int64_t allReducesLaunched() const { return m_launched; }  // since construction

 private:
  struct Bucket {
    std::int64_t begin = 0, end = 0;  // flat offsets
    int slotsLeft = 0;                // gradients still to arrive this backward
    int slotCount = 0;
    c10::intrusive_ptr<c10d::Work> work;
    double launchedAt = 0;                        // seconds on the steady clock
    std::shared_ptr<std::atomic<double>> doneAt;  // set by the communication thread; 0: not yet
  };

  void onGradient(std::size_t slot, const torch::Tensor& grad);
  void launchReadyBuckets();
  void launch(Bucket& bucket);

  Communicator& m_comm;
  FlatLayout m_layout;
  torch::Tensor m_flat;  // (padded,)
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
