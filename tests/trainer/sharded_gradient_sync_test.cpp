// zero2's parts on real Gloo groups, each rank a thread: the version header's reduce-scatter
// (an all-reduce where the backend has none) gives each rank its chunk of the sum; the bucketed
// shard layout pads every bucket to the world size without splitting a parameter; and a
// reduce-scatter GradientSync leaves each rank its chunk of the average of every micro-step's
// gradients, with no parameter keeping a .grad.
#include <gtest/gtest.h>

#include <functional>
#include <thread>
#include <vector>

#include "launcher/supervisor.h"
#include "trainer/dist/communicator.h"
#include "trainer/dist/gradient_sync.h"

namespace traindeck {
namespace {

// Runs `body(comm)` as each of `world` ranks, one thread each, over one Gloo group.
void onShardRanks(int world, const std::function<void(Communicator&)>& body) {
  const int port = pickFreePort("127.0.0.1");
  ASSERT_GT(port, 0);
  const auto rank = [&](int r) {
    DistEnv env;
    env.rank = r;
    env.worldSize = world;
    env.localRank = r;
    env.localWorldSize = world;
    env.masterPort = port;
    Communicator comm(env, torch::Device(torch::kCPU), {});
    body(comm);
  };
  std::vector<std::thread> others;
  for (int r = 1; r < world; ++r) others.emplace_back(rank, r);
  rank(0);
  for (std::thread& t : others) t.join();
}

TEST(ReduceScatter, EachRankGetsItsChunkOfTheSum) {
  std::vector<torch::Tensor> results(3);
  onShardRanks(3, [&](Communicator& comm) {
    const auto input = torch::arange(6, torch::kFloat) * (comm.rank() + 1);  // (3·2,)
    auto pending = comm.reduceScatterAsync(input);
    comm.wait(pending.work, "reduce-scatter");
    results[static_cast<std::size_t>(comm.rank())] = pending.result().clone();
  });
  const auto sum = torch::arange(6, torch::kFloat) * 6;  // 1 + 2 + 3 times each value
  for (int r = 0; r < 3; ++r)
    EXPECT_TRUE(torch::equal(results[static_cast<std::size_t>(r)], sum.narrow(0, 2 * r, 2))) << "rank " << r;
}

TEST(ShardLayout, PadsEveryBucketAndSplitsNoParameter) {
  const std::vector<std::pair<std::string, torch::Tensor>> named = {
      {"a", torch::zeros({3, 5})}, {"b", torch::zeros({7})}, {"c", torch::zeros({4, 4})}, {"d", torch::zeros({1})}};
  const FlatLayout layout = makeBucketedShardLayout(named, 3, /*bucketMb=*/16.0 * 4 / (1 << 20));  // 16 floats
  ASSERT_EQ(layout.slots.size(), 4u);
  EXPECT_EQ(layout.slots[0].name, "d");  // reverse registration order
  EXPECT_EQ(layout.total, 15 + 7 + 16 + 1);
  ASSERT_GE(layout.buckets.size(), 2u);
  std::int64_t expectedBegin = 0;
  for (const FlatBucket& b : layout.buckets) {
    EXPECT_EQ(b.begin, expectedBegin);
    EXPECT_EQ((b.end - b.begin) % 3, 0);
    expectedBegin = b.end;
  }
  EXPECT_EQ(layout.padded, expectedBegin);
  for (const FlatSlot& slot : layout.slots) {
    int holders = 0;
    for (const FlatBucket& b : layout.buckets)
      if (slot.offset >= b.begin && slot.offset + slot.numel <= b.end) ++holders;
    EXPECT_EQ(holders, 1) << slot.name << " is split between buckets";
  }
}

TEST(ShardedGradientSync, EachRankHoldsItsChunkOfTheAveragedMicroSteps) {
  std::vector<torch::Tensor> expected(2), shards(2);
  std::vector<FlatLayout> layouts(2);
  std::vector<bool> gradsLeft(2, true);
  onShardRanks(2, [&](Communicator& comm) {
    const auto r = static_cast<std::size_t>(comm.rank());
    torch::manual_seed(7);
    torch::nn::Linear first(16, 16), second(16, 3);
    std::vector<std::pair<std::string, torch::Tensor>> named;
    for (auto& item : first->named_parameters()) named.emplace_back("first." + item.key(), item.value());
    for (auto& item : second->named_parameters()) named.emplace_back("second." + item.key(), item.value());
    GradientSync sync(comm, makeBucketedShardLayout(named, 2, /*bucketMb=*/0.0002), 0.0002, torch::Device(torch::kCPU),
                      GradientReduction::ReduceScatter);
    EXPECT_GT(sync.bucketCount(), 1);
    // Two micro-steps on this rank's own inputs; alone, the same backward gives the reference.
    torch::manual_seed(100 + static_cast<std::uint64_t>(r));
    const std::vector<torch::Tensor> inputs = {torch::randn({4, 16}), torch::randn({4, 16})};
    const auto loss = [&](const torch::Tensor& x) { return second(torch::relu(first(x))).pow(2).sum(); };
    for (const auto& x : inputs) loss(x).backward();  // unarmed: plain accumulation
    auto mine = torch::zeros({sync.layout().padded});
    for (const FlatSlot& slot : sync.layout().slots) {
      mine.narrow(0, slot.offset, slot.numel).copy_(slot.parameter.grad().reshape(-1));
      torch::Tensor parameter = slot.parameter;
      parameter.mutable_grad() = torch::Tensor();
    }
    expected[r] = mine;

    sync.beginStep();
    for (const auto& x : inputs) {
      sync.arm();
      loss(x).backward();
      sync.finish();
    }
    bool anyGrad = false;
    for (const auto& [name, p] : named) anyGrad = anyGrad || p.grad().defined();
    gradsLeft[r] = anyGrad;
    shards[r] = sync.shardGradients().clone();
    layouts[r] = sync.layout();
  });
  const auto average = (expected[0] + expected[1]) / 2;  // (padded,)
  for (std::size_t r = 0; r < 2; ++r) {
    EXPECT_FALSE(gradsLeft[r]) << "rank " << r << " kept a .grad";
    std::int64_t at = 0;
    for (const FlatBucket& b : layouts[r].buckets) {
      const std::int64_t chunk = (b.end - b.begin) / 2;
      EXPECT_TRUE(torch::allclose(shards[r].narrow(0, at, chunk),
                                  average.narrow(0, b.begin + static_cast<std::int64_t>(r) * chunk, chunk), 1e-5, 1e-6))
          << "rank " << r << ", bucket at " << b.begin;
      at += chunk;
    }
    EXPECT_EQ(at, shards[r].numel());
  }
}

}  // namespace
}  // namespace traindeck
