// GradientSync on a real one-rank Gloo group: an unarmed backward (an accumulation micro-step)
// launches no all-reduce; an armed one launches every bucket once, and each parameter's .grad
// ends up as its slice of the flat buffer holding everything accumulated. The overlap figure
// counts how long all-reduces ran while backward still did: long with buckets, none with one.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "launcher/supervisor.h"
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

// Backward of a two-layer net that spends `pause` between the last layer's gradients and the
// first's (a hook on the hidden activation), with buckets of `bucketMb`; returns the overlap.
double overlapWithPause(double bucketMb, std::chrono::milliseconds pause) {
  DistEnv env;
  env.masterPort = pickFreePort("127.0.0.1");
  Communicator comm(env, torch::Device(torch::kCPU), {});
  torch::nn::Linear first(64, 64), second(64, 8);
  std::vector<std::pair<std::string, torch::Tensor>> named;
  for (auto& item : first->named_parameters()) named.emplace_back("first." + item.key(), item.value());
  for (auto& item : second->named_parameters()) named.emplace_back("second." + item.key(), item.value());
  GradientSync sync(comm, makeFlatLayout(named, 1), bucketMb, torch::Device(torch::kCPU));
  auto hidden = torch::relu(first(torch::randn({4, 64})));
  hidden.register_hook([pause](const torch::Tensor&) { std::this_thread::sleep_for(pause); });
  sync.arm();
  second(hidden).pow(2).sum().backward();
  sync.finish();
  return sync.lastOverlapSeconds();
}

TEST(GradientSync, BucketsOverlapBackwardAndOneBucketDoesNot) {
  // 0.001 MB: the last layer (520 floats) fills the first bucket, which goes out before the
  // pause; a single bucket goes out only after it.
  EXPECT_GE(overlapWithPause(/*bucketMb=*/0.001, std::chrono::milliseconds(200)), 0.2);
  EXPECT_LT(overlapWithPause(/*bucketMb=*/4096, std::chrono::milliseconds(200)), 0.1);
}

}  // namespace
}  // namespace traindeck
