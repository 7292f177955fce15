// machineRoomProblem: a second CPU run beside one going on is fine while memory and cores
// allow; past them it is named (memory by the planner's figures, ranks against cores); GPU runs
// on a probed host are weighed by its GPUs, one rank each.
#include <QtTest>

#include "config/planner.h"
#include "machine_room.h"
#include "probed_devices.h"

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
    DeviceSpec cpu = thisMachineCpu();
    const RunConfig small = cpuJob(1, 32);
    const std::int64_t perRun = makePlan(small, cpu).memory.total();
    cpu.memoryBytes = perRun * 10;  // room for about nine such runs
    const auto machine = [&](int cores) {
      return Machine{.name = "this machine", .cpu = cpu, .cores = cores, .gpus = 0};
    };
    QCOMPARE(machineRoomProblem({}, small, machine(8)), QString());
    QCOMPARE(machineRoomProblem({small, small}, small, machine(8)), QString());
    const QString memory =
        machineRoomProblem({small, small, small, small, small, small, small, small, small}, small, machine(64));
    QVERIFY2(
        memory.contains("on this machine") && memory.contains("9 run(s) going on there") && memory.contains("to use"),
        qPrintable(memory));
    const QString cores = machineRoomProblem({cpuJob(2, 32)}, cpuJob(2, 32), machine(2));
    QVERIFY2(cores.contains("4 ranks would share 2 cores"), qPrintable(cores));
    RunConfig gpu = small;
    gpu.strategy.device = DeviceKind::Cuda;
    QCOMPARE(machineRoomProblem({small}, gpu, machine(1)), QString());  // GPUs not known here: validation's
  }

  // A host as probed: 8 GPUs hold a 4-rank run beside a 4-rank one, not a third; CPU runs there
  // are weighed by its cores and memory, not this machine's.
  void aProbedHostIsWeighedByItsOwnDevices() {
    HostProbe probe;
    probe.hostname = "gpu-box";
    probe.cpus = 4;
    probe.memoryKiB = 64LL << 20;
    for (int i = 0; i < 8; ++i)
      probe.gpus.push_back({.name = "NVIDIA H100 80GB HBM3", .memoryMiB = 81559, .driver = "570.1"});
    const Machine host = hostMachine(probe, "ubuntu@gpu-box");
    QCOMPARE(host.gpus, 8);
    QCOMPARE(host.cores, 4);
    QCOMPARE(host.cpu.memoryBytes, 64LL << 30);
    RunConfig gpuRun = cpuJob(4, 32);
    gpuRun.strategy.device = DeviceKind::Cuda;
    QCOMPARE(machineRoomProblem({gpuRun}, gpuRun, host), QString());
    const QString full = machineRoomProblem({gpuRun, gpuRun}, gpuRun, host);
    QVERIFY2(full.contains("on ubuntu@gpu-box") && full.contains("use 8 of its 8 GPUs and this one needs 4"),
             qPrintable(full));
    const QString cores = machineRoomProblem({cpuJob(3, 32)}, cpuJob(2, 32), host);
    QVERIFY2(cores.contains("5 ranks would share 4 cores"), qPrintable(cores));
    QCOMPARE(machineRoomProblem({gpuRun}, cpuJob(2, 32), host), QString());  // GPU runs are not counted against cores
    RunConfig autoRun = gpuRun;  // device: auto takes the GPUs where there are some
    autoRun.strategy.device = DeviceKind::Auto;
    QVERIFY(machineRoomProblem({autoRun, autoRun}, autoRun, host).contains("use 8 of its 8 GPUs"));
  }
};

}  // namespace traindeck

QTEST_GUILESS_MAIN(traindeck::MachineRoomTest)
#include "machine_room_test.moc"
