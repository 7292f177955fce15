// machineRoomProblem: a second CPU run beside one going on is fine while memory and cores
// allow; past them it is named (memory by the planner's figures, ranks against cores).
#include <QtTest>

#include "config/planner.h"
#include "machine_room.h"

namespace traindeck {

class MachineRoomTest : public QObject {
  Q_OBJECT
  static RunConfig cpuJob(std::int64_t ranks, std::int64_t embd) {
    RunConfig c;
    c.model = {"", 2, 2, embd, 64, 64, 257, 0.0, ""};
    c.strategy.device = DeviceKind::Cpu;
    c.strategy.kind = ranks > 1 ? StrategyKind::Ddp : StrategyKind::Single;
    c.strategy.nproc_per_node = ranks;
    c.strategy.micro_batch = 4;
    return c;
  }

 private slots:
  void roomIsNamedOnlyWhenItRunsOut() {
    DeviceSpec machine = thisMachineCpu();
    const RunConfig small = cpuJob(1, 32);
    const std::int64_t perRun = makePlan(small, machine).memory.total();
    machine.memoryBytes = perRun * 10;  // room for about nine such runs
    QCOMPARE(machineRoomProblem({}, small, machine, 8), QString());
    QCOMPARE(machineRoomProblem({small, small}, small, machine, 8), QString());
    const QString memory =
        machineRoomProblem({small, small, small, small, small, small, small, small, small}, small, machine, 64);
    QVERIFY2(memory.contains("9 run(s) going on here") && memory.contains("to use"), qPrintable(memory));
    const QString cores = machineRoomProblem({cpuJob(2, 32)}, cpuJob(2, 32), machine, 2);
    QVERIFY2(cores.contains("4 ranks would share 2 cores"), qPrintable(cores));
    RunConfig gpu = small;
    gpu.strategy.device = DeviceKind::Cuda;
    QCOMPARE(machineRoomProblem({small}, gpu, machine, 1), QString());  // GPUs are validation's
  }
};

}  // namespace traindeck

QTEST_GUILESS_MAIN(traindeck::MachineRoomTest)
#include "machine_room_test.moc"
