// sinfo's partition lines as a login node prints them, and Slurm's time limits in every form
// sbatch takes, with the typos that must be refused.
#include <gtest/gtest.h>

#include "config/slurm_partitions.h"

namespace traindeck {
namespace {

constexpr int kMinutesPerDay = 24 * 60;  // minutes

const SlurmPartition* partitionNamed(const std::vector<SlurmPartition>& partitions, const std::string& name) {
  for (const SlurmPartition& p : partitions)
    if (p.name == name) return &p;
  return nullptr;
}

// A cluster of CPU, A100, MIG and V100 nodes, as `sinfo -h -o '%P|%D|%G|%l'` prints it: a line
// per group of nodes in one state, so partitions repeat.
TEST(SlurmPartitions, ParsesAMultiLineSinfoAndMergesLinesOfOnePartition) {
  const std::string text =
      "debug*|2|(null)|30:00\n"
      "debug*|1|(null)|30:00\n"
      "cpu|40|(null)|7-00:00:00\n"
      "cpu|12|(null)|7-00:00:00\n"
      "gpu|6|gpu:a100:8(S:0-1)|2-00:00:00\n"
      "gpu|2|gpu:a100:4(S:0)|2-00:00:00\n"
      "gpu|1|gpu:a100:8(S:0-1)|2-00:00:00\n"
      "mig|2|gpu:1g.10gb:7,gpu:2g.20gb:1|1-00:00:00\n"
      "long|4|gpu:v100:4,mps:400|infinite\n";
  const std::vector<SlurmPartition> partitions = parseSinfo(text);
  ASSERT_EQ(partitions.size(), 5u);
  std::vector<std::string> order;
  for (const SlurmPartition& p : partitions) order.push_back(p.name);
  EXPECT_EQ(order, (std::vector<std::string>{"debug", "cpu", "gpu", "mig", "long"}));

  const SlurmPartition* debug = partitionNamed(partitions, "debug");
  ASSERT_NE(debug, nullptr);
  EXPECT_TRUE(debug->isDefault);
  EXPECT_EQ(debug->nodes, 3);
  EXPECT_EQ(debug->gpusPerNode, 0);
  EXPECT_EQ(debug->maxMinutes, 30);

  const SlurmPartition* cpu = partitionNamed(partitions, "cpu");
  ASSERT_NE(cpu, nullptr);
  EXPECT_FALSE(cpu->isDefault);
  EXPECT_EQ(cpu->nodes, 52);
  EXPECT_EQ(cpu->maxMinutes, 7 * kMinutesPerDay);

  const SlurmPartition* gpu = partitionNamed(partitions, "gpu");
  ASSERT_NE(gpu, nullptr);
  EXPECT_EQ(gpu->nodes, 9);
  EXPECT_EQ(gpu->gpusPerNode, 8);  // the most any node has, not the sum over lines
  EXPECT_EQ(gpu->maxMinutes, 2 * kMinutesPerDay);

  const SlurmPartition* mig = partitionNamed(partitions, "mig");
  ASSERT_NE(mig, nullptr);
  EXPECT_EQ(mig->gpusPerNode, 8);  // 7 + 1 slices of two types on each node
  EXPECT_EQ(mig->maxMinutes, kMinutesPerDay);

  const SlurmPartition* longer = partitionNamed(partitions, "long");
  ASSERT_NE(longer, nullptr);
  EXPECT_EQ(longer->gpusPerNode, 4);  // mps is not a GPU
  EXPECT_FALSE(longer->maxMinutes.has_value());
}

// The one-machine cluster of tests/slurm (two slurmd, no GRES), with Windows line ends and the
// noise a login shell can add around the output.
TEST(SlurmPartitions, SkipsLinesThatAreNotPartitions) {
  const std::vector<SlurmPartition> partitions = parseSinfo(
      "PARTITION|NODES|GRES|TIMELIMIT\r\n"
      "\r\n"
      "debug*|2|(null)|infinite\r\n"
      "sinfo: error: some nodes are not responding\r\n"
      "|3|(null)|1:00:00\n"
      "broken|many|(null)|1:00:00\n"
      "short|1|gpu:2|UNLIMITED|extra\n");
  ASSERT_EQ(partitions.size(), 1u);
  EXPECT_EQ(partitions[0].name, "debug");
  EXPECT_TRUE(partitions[0].isDefault);
  EXPECT_EQ(partitions[0].nodes, 2);
  EXPECT_EQ(partitions[0].gpusPerNode, 0);
  EXPECT_FALSE(partitions[0].maxMinutes.has_value());
  EXPECT_TRUE(parseSinfo("").empty());
}

TEST(SlurmPartitions, UnlimitedOrUnreadableTimeIsInfiniteAndInfiniteWinsAMerge) {
  const std::vector<SlurmPartition> partitions = parseSinfo(
      "a|1|gpu:2|UNLIMITED\n"
      "b|1|(null)|n/a\n"
      "c|1|(null)|4:00:00\n"
      "c|2|(null)|infinite\n"
      "d|1|(null)|1:00:00\n"
      "d*|1|(null)|3:00:00\n");
  ASSERT_EQ(partitions.size(), 4u);
  EXPECT_FALSE(partitions[0].maxMinutes.has_value());
  EXPECT_EQ(partitions[0].gpusPerNode, 2);
  EXPECT_FALSE(partitions[1].maxMinutes.has_value());
  EXPECT_FALSE(partitions[2].maxMinutes.has_value());
  EXPECT_EQ(partitions[2].nodes, 3);
  EXPECT_EQ(partitions[3].maxMinutes, 180);
  EXPECT_TRUE(partitions[3].isDefault);  // the '*' on a later line of it counts too
}

TEST(SlurmPartitions, GpusInGres) {
  EXPECT_EQ(gpusInGres("(null)"), 0);
  EXPECT_EQ(gpusInGres(""), 0);
  EXPECT_EQ(gpusInGres("gpu:4"), 4);
  EXPECT_EQ(gpusInGres("gpu:a100:8"), 8);
  EXPECT_EQ(gpusInGres("gpu:4(S:0-1)"), 4);
  EXPECT_EQ(gpusInGres("gpu:a100:2(S:0,1),gpu:v100:2(S:1)"), 4);  // a comma inside the socket list
  EXPECT_EQ(gpusInGres("mps:400,gpu:tesla:2"), 2);
  EXPECT_EQ(gpusInGres("gpu"), 1);
  EXPECT_EQ(gpusInGres("gpu:a100"), 1);
  EXPECT_EQ(gpusInGres("shard:16"), 0);
}

TEST(SlurmMinutes, EveryFormSbatchTakes) {
  EXPECT_EQ(slurmMinutes("90"), 90);     // MM
  EXPECT_EQ(slurmMinutes("45:00"), 45);  // MM:SS
  EXPECT_EQ(slurmMinutes("45:01"), 46);  // seconds round up
  EXPECT_EQ(slurmMinutes("0:30"), 1);
  EXPECT_EQ(slurmMinutes("12:00:00"), 12 * 60);                            // HH:MM:SS
  EXPECT_EQ(slurmMinutes("36:30:00"), 36 * 60 + 30);                       // hours past a day, without D-
  EXPECT_EQ(slurmMinutes("2-12"), 2 * kMinutesPerDay + 12 * 60);           // D-HH
  EXPECT_EQ(slurmMinutes("1-02:30"), kMinutesPerDay + 2 * 60 + 30);        // D-HH:MM
  EXPECT_EQ(slurmMinutes("1-02:03:04"), kMinutesPerDay + 2 * 60 + 3 + 1);  // D-HH:MM:SS
  EXPECT_EQ(slurmMinutes("7-00:00:00"), 7 * kMinutesPerDay);
  EXPECT_EQ(slurmMinutes("0"), 0);
  EXPECT_EQ(slurmMinutes("007"), 7);
  EXPECT_EQ(slurmMinutes("999999999"), 999999999);
}

TEST(SlurmMinutes, RefusesWhatSbatchWouldMisreadOrRefuse) {
  for (const char* bad : {"",     " 30",      "30 ",       "1.5",           "+5",
                          "-5",   "abc",      "2h",        "1:2:3:4",       ":30",
                          "30:",  "90:60",    "1:60:00",   "1:00:60",       "1-",
                          "1-24", "1-2:60",   "1-2:3:60",  "1-02:03:04:05", "1-2-3",
                          "a-1",  "infinite", "UNLIMITED", "1234567890",    "999999999-00"}) {
    EXPECT_FALSE(slurmMinutes(bad).has_value()) << "'" << bad << "'";
  }
}

TEST(SlurmMinutes, TimeTextReadsBackAndDurationsReadAsSaid) {
  EXPECT_EQ(slurmTimeText(2 * kMinutesPerDay), "2-00:00:00");
  EXPECT_EQ(slurmTimeText(90), "01:30:00");
  EXPECT_EQ(slurmTimeText(kMinutesPerDay + 61), "1-01:01:00");
  for (int minutes : {1, 59, 60, 90, kMinutesPerDay - 1, kMinutesPerDay, 3 * kMinutesPerDay + 7, 400 * kMinutesPerDay})
    EXPECT_EQ(slurmMinutes(slurmTimeText(minutes)), minutes) << minutes;
  EXPECT_EQ(slurmDurationText(90), "1 h 30 min");
  EXPECT_EQ(slurmDurationText(2 * kMinutesPerDay), "2 days");
  EXPECT_EQ(slurmDurationText(kMinutesPerDay + 5), "1 day 5 min");
  EXPECT_EQ(slurmDurationText(0), "0 min");
}

}  // namespace
}  // namespace traindeck
