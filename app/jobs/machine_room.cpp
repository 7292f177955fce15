#include "machine_room.h"

#include <QStringList>

#include "config/planner.h"

namespace traindeck {

namespace {
QString bytes(std::int64_t b) {
  return QString::fromStdString(formatBytes(b));
}

// device: auto trains on the GPUs where there are some.
bool onGpus(const RunConfig& run, const Machine& machine) {
  return run.strategy.device == DeviceKind::Cuda || (run.strategy.device == DeviceKind::Auto && machine.gpus > 0);
}
}  // namespace

QString machineRoomProblem(const QList<RunConfig>& running, const RunConfig& next, const Machine& machine) {
  if (running.isEmpty()) return {};  // one run alone: validation's to judge
  std::int64_t memory = 0, ranks = 0, gpuRanks = 0;
  for (const RunConfig& run : running) {
    if (onGpus(run, machine)) {
      gpuRanks += run.strategy.nproc_per_node;
      continue;
    }
    memory += makePlan(run, machine.cpu).memory.total() * run.strategy.nproc_per_node;
    ranks += run.strategy.nproc_per_node;
  }
  QStringList problems;
  if (onGpus(next, machine)) {
    if (machine.gpus > 0 && gpuRanks + next.strategy.nproc_per_node > machine.gpus)
      problems << QStringLiteral(
                      "the runs going on use %1 of its %2 GPUs and this one needs %3, so ranks would "
                      "share a GPU (its memory and its time)")
                      .arg(gpuRanks)
                      .arg(machine.gpus)
                      .arg(next.strategy.nproc_per_node);
  } else {
    const std::int64_t nextMemory = makePlan(next, machine.cpu).memory.total() * next.strategy.nproc_per_node;
    const auto usable = static_cast<std::int64_t>(static_cast<double>(machine.cpu.memoryBytes) * kUsableMemoryFraction);
    if (memory + nextMemory > usable)
      problems << QStringLiteral("the %1 run(s) going on there plan %2 and this one %3, but it has %4 to use")
                      .arg(running.size())
                      .arg(bytes(memory), bytes(nextMemory), bytes(usable));
    if (machine.cores > 0 && ranks + next.strategy.nproc_per_node > machine.cores)
      problems << QStringLiteral("%1 ranks would share %2 cores, so every run would go slower")
                      .arg(ranks + next.strategy.nproc_per_node)
                      .arg(machine.cores);
  }
  return problems.isEmpty()
             ? QString()
             : QStringLiteral("Beside the runs going on on %1: ").arg(machine.name) + problems.join("; ") + ".";
}

}  // namespace traindeck
