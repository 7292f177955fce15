// setUpTrainingProcess: what a training rank sets for its whole process before the loop starts,
// kept out of the loop so that tests and tools calling trainJob in-process keep their own.
#include <malloc.h>
#include <sched.h>

#include <torch/torch.h>

#include "device_choice.h"
#include "train_job.h"
#include "trainer/runtime_info.h"

namespace traindeck {

namespace {

// Ranks sharing a node's CPU each keep to their own block of the cores this process may use:
// unpinned, the scheduler moves compute and Gloo threads between cores, and one rank falling
// behind stalls every all-reduce. Threads started later (OpenMP, Gloo) inherit the mask.
// Returns the cores taken ("2-3"), or "" when nothing was pinned.
std::string pinToOwnCores(int localRank, int localWorldSize) {
  if (localWorldSize < 2) return "";
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  if (::sched_getaffinity(0, sizeof allowed, &allowed) != 0) return "";
  std::vector<int> cores;
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &allowed)) cores.push_back(c);
  const std::size_t block = cores.size() / static_cast<std::size_t>(localWorldSize);
  if (block == 0) return "";
  cpu_set_t mine;
  CPU_ZERO(&mine);
  const std::size_t first = block * static_cast<std::size_t>(localRank);
  for (std::size_t i = first; i < first + block; ++i) CPU_SET(cores[i], &mine);
  if (::sched_setaffinity(0, sizeof mine, &mine) != 0) return "";
  return block == 1 ? std::to_string(cores[first])
                    : std::to_string(cores[first]) + "-" + std::to_string(cores[first + block - 1]);
}

}  // namespace

std::vector<std::string> setUpTrainingProcess(const RunConfig& config, const DistEnv& dist) {
  // Keep freed memory in the heap instead of returning every large tensor to the kernel: each
  // step allocates the same big blocks again, and fresh pages cost a fault each (the system
  // time of a CPU step halves with this).
  mallopt(M_MMAP_THRESHOLD, 1 << 30);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
  std::vector<std::string> notes;
  if (!chooseTrainingDevice(config.strategy, dist.localRank).is_cpu()) return notes;
  at::set_num_threads(cpuThreadsPerRank(dist.localWorldSize));
  if (const std::string pinned = pinToOwnCores(dist.localRank, dist.localWorldSize); !pinned.empty())
    notes.push_back("pinned to CPU cores " + pinned + " (one block per rank on this node)");
  return notes;
}

}  // namespace traindeck
