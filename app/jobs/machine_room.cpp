#include "machine_room.h"

#include <QStringList>

#include "config/planner.h"

namespace traindeck {

namespace {
QString bytes(std::int64_t b) {
  return QString::fromStdString(formatBytes(b));
}
}  // namespace

QString machineRoomProblem(const QList<RunConfig>& running, const RunConfig& next, const DeviceSpec& machine,
                           int cores) {
  if (next.strategy.device == DeviceKind::Cuda || running.isEmpty()) return {};  // GPUs: validation's to judge
  std::int64_t memory = 0, ranks = 0;
  for (const RunConfig& run : running) {
    if (run.strategy.device == DeviceKind::Cuda) continue;
    memory += makePlan(run, machine).memory.total() * run.strategy.nproc_per_node;
    ranks += run.strategy.nproc_per_node;
  }
  const std::int64_t nextMemory = makePlan(next, machine).memory.total() * next.strategy.nproc_per_node;
  QStringList problems;
  const auto usable = static_cast<std::int64_t>(static_cast<double>(machine.memoryBytes) * kUsableMemoryFraction);
  if (memory + nextMemory > usable)
    problems << QStringLiteral("the %1 run(s) going on here plan %2 and this one %3, but this machine has %4 to use")
                    .arg(running.size())
                    .arg(bytes(memory), bytes(nextMemory), bytes(usable));
  if (cores > 0 && ranks + next.strategy.nproc_per_node > cores)
    problems << QStringLiteral("%1 ranks would share %2 cores, so every run would go slower")
                    .arg(ranks + next.strategy.nproc_per_node)
                    .arg(cores);
  return problems.isEmpty() ? QString() : QStringLiteral("Beside the runs going on: ") + problems.join("; ") + ".";
}

}  // namespace traindeck
