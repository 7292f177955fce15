#include "sweep_places.h"

#include <algorithm>

namespace traindeck {

QStringList localSlotEnvironment(int slot, int slotCount, int cores, int gpus, int ranks) {
  slotCount = std::max(1, slotCount);
  if (gpus > 0) {
    QStringList devices;
    if (slotCount >= gpus) {
      devices << QString::number(slot % gpus);
    } else {
      const int each = gpus / slotCount;
      for (int d = slot * each; d < (slot + 1) * each; ++d) devices << QString::number(d);
    }
    return {QStringLiteral("CUDA_VISIBLE_DEVICES=") + devices.join(',')};
  }
  const int threads = std::max(1, cores / slotCount / std::max(1, ranks));
  return {QStringLiteral("OMP_NUM_THREADS=") + QString::number(threads)};
}

}  // namespace traindeck
