// The ranks' link to each other: a c10d TCPStore for the rendezvous (rank 0 serves it) and a
// process group over it, Gloo for CPU tensors and NCCL for CUDA ones where LibTorch has NCCL.
// Collectives are in place and sum; callers divide. One per process; not thread-safe.
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <torch/torch.h>
#include <torch/csrc/distributed/c10d/Store.hpp>

#include "config/run_config.h"
#include "dist_env.h"
#include "torch_compat.h"

namespace traindeck {

struct CommunicatorOptions {
  Backend backend = Backend::Auto;
  std::chrono::milliseconds rendezvousTimeout{300'000};
  std::chrono::milliseconds collectiveTimeout{600'000};
};

class Communicator {
 public:
  // Meets the other ranks at env.masterAddr:masterPort. Throws std::runtime_error naming the
  // ranks that did not arrive within the rendezvous timeout, or an unreachable store.
  Communicator(const DistEnv& env, const torch::Device& device, const CommunicatorOptions& options);

  int rank() const { return m_rank; }
  int worldSize() const { return m_worldSize; }
  const char* backendName() const { return m_backendName; }

  c10::intrusive_ptr<c10d::Work> allreduceAsync(torch::Tensor& tensor);
  // Sums `input` ((W·n,), contiguous) over the ranks; this rank's n of the sum are in the
  // result's result() once it is waited for (see compat::startReduceScatter for its cost).
  compat::ReduceScatterWork reduceScatterAsync(const torch::Tensor& input);
  void allreduce(torch::Tensor& tensor);
  void broadcast(torch::Tensor& tensor, int root = 0);
  // The sum over the ranks lands in root's `tensor`; the others' are left undefined in value.
  void reduce(torch::Tensor& tensor, int root = 0);
  // Rank root's values of every tensor (one dtype and device) written into each rank's own, in
  // one broadcast of their concatenation.
  void broadcastInPlace(const std::vector<torch::Tensor>& tensors, int root = 0);
  // Every rank's `input` (same size everywhere) lands in outputs[r]; input must not alias them.
  void allgather(std::vector<torch::Tensor>& outputs, torch::Tensor& input);
  // `flat` ((W·n,), contiguous) ends with chunk r as rank r had it, on every rank.
  void allgatherInPlace(const torch::Tensor& flat);
  // The same, started: `flat` holds every chunk once the work is waited for (zero3's prefetch).
  c10::intrusive_ptr<c10d::Work> allgatherInPlaceAsync(const torch::Tensor& flat);
  void barrier();
  // Waits for `work`, turning a timeout into a sentence about which collective hung.
  void wait(const c10::intrusive_ptr<c10d::Work>& work, const char* what);
  // Rank root's text on every rank.
  void broadcastText(std::string& text, int root = 0);

  // Small values in the rendezvous store, for what is not on the step's critical path (a stop
  // request, every rank's system figures): one round trip each, no collective.
  void publish(const std::string& key, const std::string& value);
  std::optional<std::string> lookup(const std::string& key);

 private:
  void awaitEveryRank(std::chrono::milliseconds timeout);

  int m_rank;
  int m_worldSize;
  const char* m_backendName = "gloo";
  std::chrono::milliseconds m_collectiveTimeout;
  c10::intrusive_ptr<c10d::Store> m_store;
  c10::intrusive_ptr<compat::CollectiveGroup> m_group;
};

}  // namespace traindeck
