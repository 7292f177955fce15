// Data-parallel gradient averaging, DDP-style: gradients are copied into fp32 buckets of about
// bucket_mb as backward produces them (a hook per parameter), and each full bucket's all-reduce
// starts at once, in bucket order on every rank, so communication overlaps the rest of
// backward. Only the last micro-step of an accumulation is armed: earlier ones just accumulate.
#pragma once

#include <chrono>
#include <vector>

#include <torch/torch.h>

#include "communicator.h"
#include "flat_layout.h"

namespace traindeck {

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
  // Time from the first bucket's all-reduce to the end of backward: how long communication was
  // under way while backward still ran (0 when every bucket started after backward, as with one
  // bucket). With lastExposedSeconds, this shows the overlap.
  double lastOverlapSeconds() const { return m_overlapSeconds; }
  std::int64_t allReducesLaunched() const { return m_launched; }  // since construction

 private:
  struct Bucket {
    std::int64_t begin = 0, end = 0;  // flat offsets
    int slotsLeft = 0;                // gradients still to arrive this backward
    int slotCount = 0;
    c10::intrusive_ptr<c10d::Work> work;
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
  std::chrono::steady_clock::time_point m_firstLaunch;  // of this backward; epoch: none yet
  std::int64_t m_launched = 0;
};

}  // namespace traindeck
