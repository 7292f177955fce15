// Rendezvous: every rank writes "arrived/<r>" to the store and waits for all of them, so a
// timeout can say which ranks are missing (the store's own wait cannot). Gloo binds to
// GLOO_SOCKET_IFNAME when set, to loopback when the master is local, else to the host's address.
#include "communicator.h"

#include <unistd.h>

#include <cstring>
#include <stdexcept>
#include <string>
#include <thread>

#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>

#if defined(TRAINDECK_WITH_NCCL)
#include <torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp>
#endif

namespace traindeck {

namespace {

std::string seconds(std::chrono::milliseconds ms) {
  const auto s = ms.count() / 1000.0;
  return (s == static_cast<double>(static_cast<long>(s)) ? std::to_string(static_cast<long>(s)) : std::to_string(s)) +
         " s";
}

bool isLoopback(const std::string& address) {
  return address == "localhost" || address.rfind("127.", 0) == 0;
}

std::shared_ptr<gloo::transport::Device> glooDevice(const std::string& masterAddr) {
  if (const char* interface = std::getenv("GLOO_SOCKET_IFNAME"); interface && *interface)
    return c10d::ProcessGroupGloo::createDeviceForInterface(interface);
  if (isLoopback(masterAddr)) return c10d::ProcessGroupGloo::createDeviceForHostname("127.0.0.1");
  return c10d::ProcessGroupGloo::createDefaultDevice();
}

}  // namespace

Communicator::Communicator(const DistEnv& env, const torch::Device& device, const CommunicatorOptions& options)
    : m_rank(env.rank), m_worldSize(env.worldSize), m_collectiveTimeout(options.collectiveTimeout) {
  c10d::TCPStoreOptions storeOptions;
  storeOptions.port = static_cast<std::uint16_t>(env.masterPort);
  storeOptions.isServer = env.rank == 0;
  storeOptions.waitWorkers = false;
  storeOptions.timeout = options.rendezvousTimeout;
  try {
    m_store = compat::makeTcpStore(env.masterAddr, storeOptions);
  } catch (const std::exception& e) {
    throw std::runtime_error(env.rank == 0 ? "rank 0 could not serve the rendezvous store on " + env.masterAddr + ":" +
                                                 std::to_string(env.masterPort) + " (is the port taken?): " + e.what()
                                           : "rank " + std::to_string(env.rank) +
                                                 " could not reach rank 0's rendezvous store at " + env.masterAddr +
                                                 ":" + std::to_string(env.masterPort) + " within " +
                                                 seconds(options.rendezvousTimeout) +
                                                 " (is node 0 started, with the same master address and port?)");
  }
  awaitEveryRank(options.rendezvousTimeout);

  const bool nccl = options.backend == Backend::Nccl || (options.backend == Backend::Auto && device.is_cuda());
  if (nccl) {
#if defined(TRAINDECK_WITH_NCCL)
    auto ncclOptions = c10d::ProcessGroupNCCL::Options::create();
    ncclOptions->timeout = options.collectiveTimeout;
    m_group = c10::make_intrusive<c10d::ProcessGroupNCCL>(m_store, m_rank, m_worldSize, ncclOptions);
    m_backendName = "nccl";
    return;
#else
    throw std::runtime_error("backend nccl: this trainer was built against a LibTorch without NCCL; use backend: gloo");
#endif
  }
  auto glooOptions = c10d::ProcessGroupGloo::Options::create(options.collectiveTimeout);
  glooOptions->devices.push_back(glooDevice(env.masterAddr));
  glooOptions->threads = 2;
  m_group = c10::make_intrusive<c10d::ProcessGroupGloo>(m_store, m_rank, m_worldSize, glooOptions);
}

void Communicator::awaitEveryRank(std::chrono::milliseconds timeout) {
  m_store->set("arrived/" + std::to_string(m_rank), std::vector<std::uint8_t>{1});
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    std::vector<int> missing;
    for (int r = 0; r < m_worldSize; ++r)
      if (!m_store->check({"arrived/" + std::to_string(r)})) missing.push_back(r);
    if (missing.empty()) return;
    if (std::chrono::steady_clock::now() >= deadline) {
      std::string names;
      for (int r : missing) names += (names.empty() ? "" : ", ") + std::to_string(r);
      throw std::runtime_error("rendezvous timed out after " + seconds(timeout) + ": rank" +
                               (missing.size() > 1 ? "s " : " ") + names + " never arrived (of " +
                               std::to_string(m_worldSize) + "); check that every node's supervisor was started");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

c10::intrusive_ptr<c10d::Work> Communicator::allreduceAsync(torch::Tensor& tensor) {
  std::vector<torch::Tensor> tensors{tensor};
  return m_group->allreduce(tensors);
}

compat::ReduceScatterWork Communicator::reduceScatterAsync(const torch::Tensor& input) {
  return compat::startReduceScatter(*m_group, input, m_rank, m_worldSize);
}

void Communicator::allreduce(torch::Tensor& tensor) {
  wait(allreduceAsync(tensor), "all-reduce");
}

void Communicator::broadcast(torch::Tensor& tensor, int root) {
  std::vector<torch::Tensor> tensors{tensor};
  c10d::BroadcastOptions options;
  options.rootRank = root;
  wait(m_group->broadcast(tensors, options), "broadcast");
}

void Communicator::reduce(torch::Tensor& tensor, int root) {
  std::vector<torch::Tensor> tensors{tensor};
  c10d::ReduceOptions options;
  options.rootRank = root;
  wait(m_group->reduce(tensors, options), "reduce");
}

void Communicator::broadcastInPlace(const std::vector<torch::Tensor>& tensors, int root) {
  torch::NoGradGuard noGrad;
  std::vector<torch::Tensor> pieces;
  for (const auto& t : tensors) pieces.push_back(t.detach().reshape(-1));
  auto flat = torch::cat(pieces);
  broadcast(flat, root);
  std::int64_t offset = 0;
  for (const auto& t : tensors) {
    t.detach().copy_(flat.narrow(0, offset, t.numel()).view(t.sizes()));
    offset += t.numel();
  }
}

void Communicator::allgather(std::vector<torch::Tensor>& outputs, torch::Tensor& input) {
  std::vector<std::vector<torch::Tensor>> out{outputs};
  std::vector<torch::Tensor> in{input};
  wait(m_group->allgather(out, in), "all-gather");
  for (std::size_t r = 0; r < outputs.size(); ++r)
    if (!out[0][r].is_same(outputs[r])) outputs[r].copy_(out[0][r]);
}

void Communicator::allgatherInPlace(const torch::Tensor& flat) {
  wait(compat::startAllGatherInPlace(*m_group, flat, m_rank, m_worldSize), "all-gather");
}

c10::intrusive_ptr<c10d::Work> Communicator::allgatherInPlaceAsync(const torch::Tensor& flat) {
  return compat::startAllGatherInPlace(*m_group, flat, m_rank, m_worldSize);
}

void Communicator::broadcastText(std::string& text, int root) {
  auto length = torch::tensor({static_cast<std::int64_t>(text.size())}, torch::kLong);
  broadcast(length, root);
  auto bytes = torch::zeros({length.item<std::int64_t>()}, torch::kUInt8);
  if (m_rank == root && !text.empty()) std::memcpy(bytes.data_ptr(), text.data(), text.size());
  broadcast(bytes, root);
  text.assign(static_cast<const char*>(bytes.data_ptr()), static_cast<std::size_t>(bytes.numel()));
}

void Communicator::publish(const std::string& key, const std::string& value) {
  m_store->set(key, std::vector<std::uint8_t>(value.begin(), value.end()));
}

std::optional<std::string> Communicator::lookup(const std::string& key) {
  if (!m_store->check({key})) return std::nullopt;
  const std::vector<std::uint8_t> bytes = m_store->get(key);
  return std::string(bytes.begin(), bytes.end());
}

void Communicator::barrier() {
  wait(m_group->barrier(), "barrier");
}

void Communicator::wait(const c10::intrusive_ptr<c10d::Work>& work, const char* what) {
  try {
    work->wait();
  } catch (const std::exception& e) {
    throw std::runtime_error(std::string(what) + " across " + std::to_string(m_worldSize) + " ranks failed on rank " +
                             std::to_string(m_rank) + " (a rank hung, died, or exceeded collective_timeout_s " +
                             seconds(m_collectiveTimeout) + "): " + e.what());
  }
}

}  // namespace traindeck
