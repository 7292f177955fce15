// A trial's part of a machine it shares with other trials of its sweep (`run --slot I/N`).
#include <gtest/gtest.h>
#include <sched.h>

#include "launcher/slot_share.h"

using namespace traindeck;

namespace {
EnvList env(const char* name, const char* value) {
  return {{name, value}};
}
}  // namespace

TEST(SlotShare, CpuThreadsAreSharedAmongSlotsAndRanks) {
  EXPECT_EQ(slotEnvironment({0, 2}, 16, 0, 1, nullptr), env("OMP_NUM_THREADS", "8"));
  EXPECT_EQ(slotEnvironment({1, 2}, 16, 0, 2, nullptr), env("OMP_NUM_THREADS", "4"));
  EXPECT_EQ(slotEnvironment({3, 4}, 2, 0, 1, nullptr), env("OMP_NUM_THREADS", "1"));  // never 0
}

TEST(SlotShare, GpusAreSplitOrSharedRoundRobin) {
  EXPECT_EQ(slotEnvironment({0, 2}, 16, 8, 4, nullptr), env("CUDA_VISIBLE_DEVICES", "0,1,2,3"));
  EXPECT_EQ(slotEnvironment({1, 2}, 16, 8, 4, nullptr), env("CUDA_VISIBLE_DEVICES", "4,5,6,7"));
  EXPECT_EQ(slotEnvironment({2, 3}, 16, 2, 1, nullptr), env("CUDA_VISIBLE_DEVICES", "0"));  // 3 slots, 2 GPUs
  EXPECT_EQ(slotEnvironment({1, 3}, 16, 2, 1, nullptr), env("CUDA_VISIBLE_DEVICES", "1"));
}

TEST(SlotShare, AMachineAlreadyRestrictedStaysInsideItsDevices) {
  // Slurm or the user gave this trainer devices 4-7: slot 1 of 2 is the last two of them.
  EXPECT_EQ(slotEnvironment({1, 2}, 16, 4, 1, "4,5,6,7"), env("CUDA_VISIBLE_DEVICES", "6,7"));
  EXPECT_EQ(slotEnvironment({0, 2}, 16, 2, 1, "GPU-aa,GPU-bb"), env("CUDA_VISIBLE_DEVICES", "GPU-aa"));
  // A list CUDA did not count as given (a device gone): by CUDA's own numbering.
  EXPECT_EQ(slotEnvironment({1, 2}, 16, 2, 1, "0,1,2"), env("CUDA_VISIBLE_DEVICES", "1"));
}

TEST(SlotShare, SlotsReadAsIndexOverCount) {
  ASSERT_TRUE(parseSlot("1/3"));
  EXPECT_EQ(parseSlot("1/3")->index, 1);
  EXPECT_EQ(parseSlot("1/3")->count, 3);
  EXPECT_EQ(slotText(*parseSlot("0/1")), "0/1");
  for (const char* bad : {"3/3", "-1/2", "1/0", "1", "a/b", "1/2x", "/2", ""}) EXPECT_FALSE(parseSlot(bad)) << bad;
}

// Inside a Slurm step or a container a process may use fewer cores than the machine has: the
// slots share those.
TEST(SlotShare, UsableCoresAreThisProcesssAffinity) {
  cpu_set_t before;
  CPU_ZERO(&before);
  ASSERT_EQ(sched_getaffinity(0, sizeof before, &before), 0);
  int first = 0;
  while (!CPU_ISSET(first, &before)) ++first;
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(first, &one);
  ASSERT_EQ(sched_setaffinity(0, sizeof one, &one), 0);
  const int cores = usableCores();
  ASSERT_EQ(sched_setaffinity(0, sizeof before, &before), 0);
  EXPECT_EQ(cores, 1);
  EXPECT_EQ(usableCores(), CPU_COUNT(&before));
}
