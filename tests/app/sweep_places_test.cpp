// A sweep's slots on this machine: each trial's share of the CPU threads or the GPUs.
#include <QTest>

#include "sweep_places.h"

using namespace traindeck;

class SweepPlacesTest : public QObject {
  Q_OBJECT
 private slots:
  void cpuThreadsAreSharedAmongSlotsAndRanks() {
    QCOMPARE(localSlotEnvironment(0, 2, 16, 0, 1), QStringList{"OMP_NUM_THREADS=8"});
    QCOMPARE(localSlotEnvironment(1, 2, 16, 0, 2), QStringList{"OMP_NUM_THREADS=4"});
    QCOMPARE(localSlotEnvironment(0, 4, 2, 0, 1), QStringList{"OMP_NUM_THREADS=1"});  // never 0
  }
  void gpusAreSplitOrSharedRoundRobin() {
    QCOMPARE(localSlotEnvironment(0, 2, 16, 8, 4), QStringList{"CUDA_VISIBLE_DEVICES=0,1,2,3"});
    QCOMPARE(localSlotEnvironment(1, 2, 16, 8, 4), QStringList{"CUDA_VISIBLE_DEVICES=4,5,6,7"});
    QCOMPARE(localSlotEnvironment(2, 3, 16, 2, 1), QStringList{"CUDA_VISIBLE_DEVICES=0"});  // 3 slots, 2 GPUs
    QCOMPARE(localSlotEnvironment(1, 3, 16, 2, 1), QStringList{"CUDA_VISIBLE_DEVICES=1"});
  }
};

QTEST_GUILESS_MAIN(SweepPlacesTest)
#include "sweep_places_test.moc"
