// probedDevices: a probed host's GPUs as the planner's catalogue knows them (the closest in
// memory among the names that match), a GPU the catalogue lacks, and a CPU-only host's peak
// from its own cores, clock and vector level; validation of an ssh job against them.
#include <QtTest>

#include "config/cpu_features.h"
#include "probed_devices.h"

namespace traindeck {

namespace {
HostProbe probeOf(const QByteArray& lines) {
  return parseHostProbe(lines + "end=probe\n");
}
}  // namespace

class ProbedDevicesTest : public QObject {
  Q_OBJECT
 private slots:
  void gpusAreTheCataloguesClosestInMemory() {
    const ProbedDevices eighty =
        probedDevices(probeOf("gpu=NVIDIA A100-SXM4-80GB, 81920, 535.1\n"
                              "gpu=NVIDIA A100-SXM4-80GB, 81920, 535.1\n"));
    QCOMPARE(eighty.count, 2);
    QVERIFY(eighty.known);
    QCOMPARE(eighty.device.name, std::string("A100-80GB"));
    QCOMPARE(eighty.device.memoryBytes, 81920LL << 20);
    QVERIFY(eighty.device.peakBf16 > 0);
    const ProbedDevices forty = probedDevices(probeOf("gpu=NVIDIA A100-SXM4-40GB, 40960, 535.1\n"));
    QCOMPARE(forty.device.name, std::string("A100-40GB"));
    const ProbedDevices t4 = probedDevices(probeOf("gpu=Tesla T4, 15360, 535.1\n"));
    QCOMPARE(t4.device.name, std::string("T4"));
    // Mixed GPUs: planned for the smallest.
    const ProbedDevices mixed =
        probedDevices(probeOf("gpu=NVIDIA H100 80GB HBM3, 81559, 550\ngpu=NVIDIA L4, 23034, 550\n"));
    QCOMPARE(mixed.count, 2);
    QCOMPARE(mixed.device.name, std::string("L4"));
    const ProbedDevices g4 = probedDevices(probeOf("gpu=NVIDIA RTX PRO 6000 Blackwell Server Edition, 97887, 575\n"));
    QVERIFY(g4.known);
    QCOMPARE(g4.device.name, std::string("G4"));
  }

  void anUnknownGpuHasItsMemoryAndNoPeak() {
    // An L40S is not an L4: names match by whole words (the trainer's rule too).
    const ProbedDevices d = probedDevices(probeOf("gpu=NVIDIA L40S, 46068, 575\n"));
    QVERIFY(!d.known);
    QCOMPARE(d.device.memoryBytes, 46068LL << 20);
    QCOMPARE(d.device.peakBf16, 0.0);
    QVERIFY(d.device.isCuda);
  }

  void aCpuHostIsPlannedForItsOwnCores() {
    const ProbedDevices d =
        probedDevices(probeOf("hostname=vm\ncpus=16\nmemory_kb=65536000\ncpu_mhz=3000.0\n"
                              "cpu_flags=fpu sse2 avx avx2 fma\n"));
    QCOMPARE(d.count, 1);
    QVERIFY(d.device.isCpu);
    QCOMPARE(d.device.memoryBytes, 65536000LL * 1024);
    QCOMPARE(d.device.peakFp32, fp32PeakPerCore(SimdLevel::Avx2, 3000.0) * 16);
    QVERIFY(QString::fromStdString(d.device.description).contains("16 cores"));
  }

  void aHostWithoutGpusSaysSoInItsSummary() {
    const HostProbe cpuOnly = probeOf("hostname=vm\ncpus=16\nmemory_kb=65536000\n");
    QVERIFY2(cpuOnly.summary().contains("no GPU"), qPrintable(cpuOnly.summary()));
    const HostProbe t4 = probeOf("cpus=8\ngpu=Tesla T4, 15360, 535.1\n");
    QVERIFY2(!t4.summary().contains("no GPU") && t4.summary().contains("T4"), qPrintable(t4.summary()));
  }

  void anSshJobIsValidatedAgainstTheProbedHost() {
    RunConfig config;
    config.target.kind = TargetKind::Ssh;
    config.target.host = "me@box";
    config.strategy.device = DeviceKind::Cuda;
    config.strategy.nproc_per_node = 2;
    const auto messages = [&](const ProbedDevices& devices) {
      ValidationContext context;
      context.remoteHost = devices.forValidation();
      std::string all;
      for (const Diagnostic& d : validateConfig(config, context))
        if (d.path.rfind("strategy.", 0) == 0) all += d.path + ": " + d.message + "\n";
      return QString::fromStdString(all);
    };
    const ProbedDevices one = probedDevices(probeOf("gpu=NVIDIA L4, 23034, 550\n"));
    QVERIFY2(messages(one).contains("strategy.nproc_per_node: asks for 2 ranks on CUDA, but me@box has 1 CUDA device"),
             qPrintable(messages(one)));
    // A Colab runtime (the probe knows one) is refused more than one rank with the reason, even
    // if it were to report two GPUs.
    const ProbedDevices colab = probedDevices(probeOf("colab=yes\ngpu=NVIDIA A100-SXM4-40GB, 40960, 550\n"));
    QVERIFY(colab.colab);
    QVERIFY2(messages(colab).contains("is a Colab runtime, and every Colab runtime has exactly one GPU"),
             qPrintable(messages(colab)));
    const ProbedDevices cpu = probedDevices(probeOf("cpus=4\n"));
    QVERIFY(messages(cpu).contains("strategy.device: is cuda, but me@box has no CUDA device"));
    config.strategy.nproc_per_node = 1;
    config.strategy.precision = Precision::Bf16;
    QVERIFY(messages(probedDevices(probeOf("gpu=Tesla T4, 15360, 535\n"))).contains("bf16 needs CUDA compute"));
    QVERIFY2(messages(one).isEmpty(), qPrintable(messages(one)));
    QVERIFY2(messages(colab).isEmpty(), qPrintable(messages(colab)));  // one rank in bf16 on its A100: fine
    // Not probed: nothing is said about devices.
    QVERIFY(QString::fromStdString([&] {
              std::string all;
              for (const Diagnostic& d : validateConfig(config, ValidationContext{}))
                if (d.path.rfind("strategy.", 0) == 0) all += d.message;
              return all;
            }())
                .isEmpty());
  }
};

}  // namespace traindeck

QTEST_GUILESS_MAIN(traindeck::ProbedDevicesTest)
#include "probed_devices_test.moc"
