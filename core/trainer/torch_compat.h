// Everything that differs between the LibTorch versions we build against (Debian's 1.13 CPU
// build, and 2.x with CUDA and NCCL from the torch Python package) lives here.
#pragma once

#include <ATen/autocast_mode.h>
#include <torch/torch.h>
#include <torch/version.h>

#include "config/run_config.h"

#if defined(TRAINDECK_WITH_CUDA)
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDACachingAllocator.h>
#include <c10/cuda/CUDAFunctions.h>
#endif

#include <torch/csrc/distributed/c10d/TCPStore.hpp>

#if TORCH_VERSION_MAJOR >= 2
#include <torch/csrc/distributed/c10d/Backend.hpp>
#else
#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>
#endif

namespace traindeck::compat {

inline constexpr int kTorchMajor = TORCH_VERSION_MAJOR;
inline constexpr int kTorchMinor = TORCH_VERSION_MINOR;

inline std::string torchVersion() {
  return TORCH_VERSION;
}

// What ProcessGroupGloo and ProcessGroupNCCL derive from: ProcessGroup in 1.13, Backend in 2.x
// (where ProcessGroup became a dispatcher in front of backends). Their collectives match.
#if TORCH_VERSION_MAJOR >= 2
using CollectiveGroup = c10d::Backend;
#else
using CollectiveGroup = c10d::ProcessGroup;
#endif

// A reduce-scatter (sum) under way: `input` (W equal chunks, one per rank) summed over the
// ranks, this rank's chunk of the sum in result() once `work` is done. NCCL does it natively
// from LibTorch 2.0 (_reduce_scatter_base). Gloo has none in 1.13 (its reduce_scatter throws),
// so there, and for every Gloo group, the whole input is all-reduced in place and result() is
// this rank's chunk of it: each rank sends 2(W-1)/W of the input instead of a ring
// reduce-scatter's (W-1)/W, twice the traffic, and the input buffer holds the whole sum.
struct ReduceScatterWork {
  c10::intrusive_ptr<c10d::Work> work;
  torch::Tensor input;   // (W·n,)
  torch::Tensor output;  // (n,) where native
  std::int64_t chunk = 0;
  int rank = 0;
  torch::Tensor result() const { return output.defined() ? output : input.narrow(0, rank * chunk, chunk); }
};

inline ReduceScatterWork startReduceScatter(CollectiveGroup& group, torch::Tensor input, int rank, int worldSize) {
  ReduceScatterWork pending;
  pending.input = input;
  pending.chunk = input.numel() / worldSize;
  pending.rank = rank;
#if TORCH_VERSION_MAJOR >= 2
  if (input.is_cuda()) {
    pending.output = torch::empty({pending.chunk}, input.options());
    pending.work = group._reduce_scatter_base(pending.output, pending.input);
    return pending;
  }
#endif
  std::vector<torch::Tensor> tensors{input};
  pending.work = group.allreduce(tensors);
  return pending;
}

// An all-gather in place: `flat` (W equal chunks) ends with every rank's own chunk of it. NCCL
// (LibTorch 2.x) gathers into `flat` directly. Gloo's all-gather copies through a W·n buffer that
// its worker threads allocate on every call (their heaps keep it), so there the other ranks'
// chunks are zeroed and `flat` all-reduced in place: the sum of disjoint chunks is exact, at
// twice an all-gather's traffic and no extra memory.
inline c10::intrusive_ptr<c10d::Work> startAllGatherInPlace(CollectiveGroup& group, torch::Tensor flat, int rank,
                                                            int worldSize) {
  const std::int64_t chunk = flat.numel() / worldSize;
#if TORCH_VERSION_MAJOR >= 2
  if (flat.is_cuda()) {
    auto mine = flat.narrow(0, rank * chunk, chunk).clone();
    return group._allgather_base(flat, mine);
  }
#endif
  torch::NoGradGuard noGrad;
  if (rank > 0) flat.narrow(0, 0, rank * chunk).zero_();
  if (rank + 1 < worldSize) flat.narrow(0, (rank + 1) * chunk, (worldSize - rank - 1) * chunk).zero_();
  std::vector<torch::Tensor> tensors{flat};
  return group.allreduce(tensors);
}

// The rendezvous store, served by rank 0 and reached by the others. From 2.4 the options ask for
// the libuv server by default, and a LibTorch built without libuv (Debian 13's 2.6) refuses with
// "use_libuv was requested but PyTorch was build without libuv support"; no exported function
// says beforehand whether it is there. So: libuv where this LibTorch has it, else the classic
// server, which is all a job of a few hundred ranks needs.
inline c10::intrusive_ptr<c10d::TCPStore> makeTcpStore(const std::string& host, c10d::TCPStoreOptions options) {
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 2)
  if (options.useLibUV) {
    try {
      return c10::make_intrusive<c10d::TCPStore>(host, options);
    } catch (const std::exception& e) {
      if (std::string(e.what()).find("libuv") == std::string::npos) throw;
    }
    options.useLibUV = false;
  }
#endif
  return c10::make_intrusive<c10d::TCPStore>(host, options);
}

// bf16 matmuls need compute capability 8.0 (Ampere) or newer.
inline bool cudaDeviceSupportsBf16(int device) {
#if defined(TRAINDECK_WITH_CUDA)
  return at::cuda::getDeviceProperties(device)->major >= 8;
#else
  (void)device;
  return false;
#endif
}

// The most bytes LibTorch's caching allocator has had allocated on the device since the process
// started (its "aggregate" statistic, index 0 in every version); 0 without CUDA.
inline std::int64_t cudaPeakAllocatedBytes(int device) {
#if defined(TRAINDECK_WITH_CUDA)
  return c10::cuda::CUDACachingAllocator::getDeviceStats(static_cast<c10::DeviceIndex>(device)).allocated_bytes[0].peak;
#else
  (void)device;
  return 0;
#endif
}

// The CUDA device's marketing name ("NVIDIA H100 80GB HBM3"); empty without CUDA.
inline std::string cudaDeviceName(int device) {
#if defined(TRAINDECK_WITH_CUDA)
  return at::cuda::getDeviceProperties(device)->name;
#else
  (void)device;
  return {};
#endif
}

// Causal self-attention on (B, H, T, hs) tensors. LibTorch 2.x has the fused kernel (flash or
// memory-efficient on CUDA), which stores no (T, T) score matrix; 1.13 gets the plain form.
inline torch::Tensor causalAttention(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v,
                                     double dropout) {
#if TORCH_VERSION_MAJOR >= 2
  return at::scaled_dot_product_attention(q, k, v, /*attn_mask=*/{}, dropout, /*is_causal=*/true);
#else
  const int64_t T = q.size(-2);
  auto scores = torch::matmul(q, k.transpose(-2, -1)) * (1.0 / std::sqrt(static_cast<double>(q.size(-1))));
  const auto future = torch::ones({T, T}, torch::TensorOptions().dtype(torch::kBool).device(q.device())).triu(1);
  auto weights = torch::softmax(scores.masked_fill(future, -std::numeric_limits<float>::infinity()), -1);
  if (dropout > 0) weights = torch::dropout(weights, dropout, /*train=*/true);
  return torch::matmul(weights, v);
#endif
}

// bf16/fp16 autocast for the forward pass on CUDA, as a scope; does nothing on the CPU or in fp32.
class AutocastGuard {
 public:
  AutocastGuard(const torch::Device& device, Precision precision)
      : m_active(device.is_cuda() && precision != Precision::Fp32) {
    if (!m_active) return;
    const auto dtype = precision == Precision::Bf16 ? at::kBFloat16 : at::kHalf;
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 4)
    at::autocast::set_autocast_dtype(at::kCUDA, dtype);
    at::autocast::set_autocast_enabled(at::kCUDA, true);
#else
    at::autocast::set_autocast_gpu_dtype(dtype);
    at::autocast::set_enabled(true);
#endif
  }
  ~AutocastGuard() {
    if (!m_active) return;
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 4)
    at::autocast::set_autocast_enabled(at::kCUDA, false);
#else
    at::autocast::set_enabled(false);
#endif
    at::autocast::clear_cache();
  }
  AutocastGuard(const AutocastGuard&) = delete;
  AutocastGuard& operator=(const AutocastGuard&) = delete;

 private:
  bool m_active;
};

// CUDA's sync debug mode at "error" for a scope, where `active`: a LibTorch operation inside it
// that waits for the device (item(), a blocking copy to or from the host, a stream sync) throws
// instead. Does nothing without CUDA.
class SyncCheckScope {
 public:
  explicit SyncCheckScope(bool active) : m_active(active) {
#if defined(TRAINDECK_WITH_CUDA)
    if (m_active) c10::cuda::warning_state().set_sync_debug_mode(c10::cuda::SyncDebugMode::L_ERROR);
#endif
  }
  ~SyncCheckScope() {
#if defined(TRAINDECK_WITH_CUDA)
    if (m_active) c10::cuda::warning_state().set_sync_debug_mode(c10::cuda::SyncDebugMode::L_DISABLED);
#endif
  }
  SyncCheckScope(const SyncCheckScope&) = delete;
  SyncCheckScope& operator=(const SyncCheckScope&) = delete;

 private:
  bool m_active;
};

}  // namespace traindeck::compat
