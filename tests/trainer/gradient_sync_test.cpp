// GradientSync on a real one-rank Gloo group: an unarmed backward (an accumulation micro-step)
// launches no all-reduce; an armed one launches every bucket once, and each parameter's .grad
// ends up as its slice of the flat buffer holding everything accumulated. The overlap figure
// counts how long all-reduces ran while backward still did, on two real ranks in two threads.
// Where there is a GPU, backend auto picks NCCL for CUDA tensors (NCCL refuses two ranks on one
// GPU, so a one-rank group).
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>

#include "launcher/supervisor.h"
#include "skip_without_cuda.h"
#include "trainer/dist/communicator.h"
#include "trainer/dist/gradient_sync.h"

namespace traindeck {
namespace {

TEST(GradientSync, OnlyTheArmedBackwardCommunicates) {
  DistEnv env;
  env.masterPort = pickFreePort("127.0.0.1");
  ASSERT_GT(env.masterPort, 0);
  Communicator comm(env, torch::Device(torch::kCPU), {});
  torch::manual_seed(3);
  torch::nn::Linear first(64, 64), second(64, 8);
  std::vector<std::pair<std::string, torch::Tensor>> named;
  for (auto& item : first->named_parameters()) named.emplace_back("first." + item.key(), item.value());
  for (auto& item : second->named_parameters()) named.emplace_back("second." + item.key(), item.value());
  GradientSync sync(comm, makeFlatLayout(named, 1), /*bucketMb=*/0.002, torch::Device(torch::kCPU));
  ASSERT_GT(sync.bucketCount(), 1);

  const auto x = torch::randn({4, 64});
  const auto loss = [&] { return second(torch::relu(first(x))).pow(2).sum(); };
  loss().backward();  // a micro-step that only accumulates
  EXPECT_EQ(sync.allReducesLaunched(), 0);
  std::vector<torch::Tensor> once;
  for (auto& [name, p] : named) once.push_back(p.grad().clone());

  sync.arm();
  loss().backward();
  sync.finish();
  EXPECT_EQ(sync.allReducesLaunched(), sync.bucketCount());
  const auto flat = sync.flatGradients();
  for (std::size_t i = 0; i < named.size(); ++i) {
    const torch::Tensor& grad = named[i].second.grad();
    EXPECT_TRUE(torch::allclose(grad, 2 * once[i], 1e-6, 1e-6)) << named[i].first;  // both micro-steps
    const float* at = grad.data_ptr<float>();
    EXPECT_TRUE(at >= flat.data_ptr<float>() && at < flat.data_ptr<float>() + flat.numel())
        << named[i].first << " is not a view of the flat buffer";
  }
}

TEST(GradientSync, CoveredTimeIsTheUnionBeforeTheCutoff) {
  // [0, 1] and [0.5, 2] overlap: 2 s; [3, 4] is cut at 3.5: 0.5 s; [5, 6] comes after.
  EXPECT_DOUBLE_EQ(coveredBefore({{3, 4}, {0, 1}, {0.5, 2}, {5, 6}}, 3.5), 2.5);
  EXPECT_DOUBLE_EQ(coveredBefore({{1, 1.5}, {1.2, 1.3}}, 10), 0.5);  // one inside another
  EXPECT_DOUBLE_EQ(coveredBefore({}, 1), 0.0);
}

// Two ranks in two threads, each a two-layer net with buckets of `bucketMb`. Rank 0's backward
// pauses `pause` between the last layer's gradients and the first's; rank 1 starts its backward
// `lateBy` after that pause began, so each all-reduce rank 0 launched before it runs at least
// `lateBy`, whatever else the machine is doing. Returns rank 0's overlap and its backward's time.
struct OverlapRun {
  double overlap = -1;
  double backwardSeconds = 0;
};

OverlapRun rankZeroOverlap(double bucketMb, std::chrono::milliseconds lateBy, std::chrono::milliseconds pause) {
  const int port = pickFreePort("127.0.0.1");
  OverlapRun result;
  std::atomic<bool> pauseBegan{false};
  const auto rank = [&](int r) {
    DistEnv env;
    env.rank = r;
    env.worldSize = 2;
    env.localRank = r;
    env.localWorldSize = 2;
    env.masterPort = port;
    Communicator comm(env, torch::Device(torch::kCPU), {});
    torch::manual_seed(5);
    torch::nn::Linear first(64, 64), second(64, 8);
    std::vector<std::pair<std::string, torch::Tensor>> named;
    for (auto& item : first->named_parameters()) named.emplace_back("first." + item.key(), item.value());
    for (auto& item : second->named_parameters()) named.emplace_back("second." + item.key(), item.value());
    GradientSync sync(comm, makeFlatLayout(named, 2), bucketMb, torch::Device(torch::kCPU));
    auto hidden = torch::relu(first(torch::randn({4, 64})));
    if (r == 0) {
      hidden.register_hook([&](const torch::Tensor&) {
        pauseBegan = true;
        std::this_thread::sleep_for(pause);
      });
    }
    if (r == 1) {
      while (!pauseBegan) std::this_thread::sleep_for(std::chrono::milliseconds(1));
      std::this_thread::sleep_for(lateBy);
    }
    const auto started = std::chrono::steady_clock::now();
    sync.arm();
    second(hidden).pow(2).sum().backward();
    sync.finish();
    if (r == 0) {
      result.backwardSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
      result.overlap = sync.lastOverlapSeconds();
    }
  };
  std::thread one(rank, 1);
  rank(0);
  one.join();
  return result;
}

TEST(GradientSync, BucketsOverlapBackwardAndOneBucketDoesNot) {
  // 0.001 MB: the last layer (520 floats) fills the first bucket, launched before rank 0's
  // 400 ms pause; it completes when rank 1 joins, at least 200 ms into the pause, so at least
  // 200 ms are hidden (all of the pause at most, if rank 1 is later still: never more than the
  // backward took). A single bucket is launched only after the pause, as backward ends: nothing
  // hidden, however late rank 1 is.
  const auto late = std::chrono::milliseconds(200), pause = std::chrono::milliseconds(400);
  const OverlapRun buckets = rankZeroOverlap(0.001, late, pause);
  EXPECT_GE(buckets.overlap, 0.19);
  EXPECT_LE(buckets.overlap, buckets.backwardSeconds);
  // "Nothing" up to what a loaded machine's scheduling adds between launch and the end.
  EXPECT_LT(rankZeroOverlap(4096, late, pause).overlap, std::min(0.1, buckets.overlap / 2));
}

TEST(Communicator, AutoPicksNcclForCudaTensors) {
  TRAINDECK_SKIP_WITHOUT_CUDA();
  DistEnv env;
  env.masterPort = pickFreePort("127.0.0.1");
  ASSERT_GT(env.masterPort, 0);
  const torch::Device cuda(torch::kCUDA, 0);
  Communicator comm(env, cuda, {});
  EXPECT_STREQ(comm.backendName(), "nccl");
  auto values = torch::arange(8, torch::TensorOptions().dtype(torch::kFloat).device(cuda));
  comm.allreduce(values);
  comm.broadcast(values);
  EXPECT_TRUE(torch::equal(values.cpu(), torch::arange(8, torch::kFloat)));
}

}  // namespace
}  // namespace traindeck
