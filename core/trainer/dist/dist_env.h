// Where this process sits in a job: torchrun's variables (RANK, LOCAL_RANK, WORLD_SIZE,
// LOCAL_WORLD_SIZE, MASTER_ADDR, MASTER_PORT), so a worker runs the same under our supervisor,
// torchrun or Slurm's srun given those variables. Torch-free.
#pragma once

#include <functional>
#include <optional>
#include <string>

namespace traindeck {

struct DistEnv {
  int rank = 0;
  int worldSize = 1;
  int localRank = 0;
  int localWorldSize = 1;
  std::string masterAddr = "127.0.0.1";
  int masterPort = 0;
};

// Reads the variables through `lookup` (the process environment in production). Missing ones
// mean a single process; malformed or inconsistent ones throw std::runtime_error naming them.
DistEnv distEnvFrom(const std::function<std::optional<std::string>(const std::string&)>& lookup);
DistEnv distEnvFromProcess();

}  // namespace traindeck
