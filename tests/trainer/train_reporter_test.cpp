// TrainReporter's system records on two real ranks in two threads over Gloo: rank 0 writes a
// row for a rank only once that rank has published its figures (a slow rank's first five
// seconds give no row rather than an empty one), and then every row names its device.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "launcher/supervisor.h"
#include "runlog/metrics_jsonl_parser.h"
#include "trainer/dist/communicator.h"
#include "trainer/train/train_reporter.h"

namespace traindeck {
namespace {

std::vector<SystemPoint> systemRecords(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  MetricsJsonlParser parser;
  return parser.feed(text.str()).system;
}

TEST(TrainReporter, WritesARowPerRankOnlyOnceThatRankHasPublished) {
  const auto dir = std::filesystem::temp_directory_path() / ("traindeck-reporter-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const int port = pickFreePort("127.0.0.1");
  ASSERT_GT(port, 0);
  TrainOptions options[2];
  for (int r = 0; r < 2; ++r) {
    options[r].paths.root = dir.string();
    options[r].dist.rank = options[r].dist.localRank = r;
    options[r].dist.worldSize = options[r].dist.localWorldSize = 2;
    options[r].dist.masterPort = port;
    options[r].echoLog = false;
  }
  std::vector<SystemPoint> beforeRankOne, afterRankOne;
  const auto rank = [&](int r) {
    const torch::Device cpu(torch::kCPU);
    Communicator comm(options[r].dist, cpu, {});
    RankLog log((dir / ("rank-" + std::to_string(r) + ".log")).string(), false);
    TrainReporter reporter(options[r], cpu, log);
    reporter.setCommunicator(&comm);
    reporter.openMetrics();
    if (r == 0) {
      reporter.writeSystem(true);  // rank 1 has published nothing yet
      beforeRankOne = systemRecords(options[0].paths.metrics());
    }
    comm.barrier();
    if (r == 1) {
      reporter.writeSystem(true);
      // The store's set does not wait for the store (LibTorch 1.13's TCPStore): a read on the
      // same connection does, so that the figures are there before rank 0 looks, however
      // loaded the machine (the barrier orders the ranks, not the store).
      EXPECT_TRUE(comm.lookup("system/1"));
    }
    comm.barrier();
    if (r == 0) {
      reporter.writeSystem(true);
      afterRankOne = systemRecords(options[0].paths.metrics());
    }
    comm.barrier();
  };
  std::thread one(rank, 1);
  rank(0);
  one.join();
  std::filesystem::remove_all(dir);

  ASSERT_EQ(beforeRankOne.size(), 1u);
  EXPECT_EQ(beforeRankOne[0].rank, 0);
  ASSERT_EQ(afterRankOne.size(), 3u);
  EXPECT_EQ(afterRankOne[1].rank, 0);
  EXPECT_EQ(afterRankOne[2].rank, 1);
  for (const SystemPoint& p : afterRankOne) {
    EXPECT_EQ(p.device, "cpu");
    EXPECT_GT(p.memUsed, 0);
    EXPECT_GE(p.memTotal, p.memUsed);
  }
}

}  // namespace
}  // namespace traindeck
