#include "host_probe.h"

#include <QMap>
#include <QVersionNumber>

namespace traindeck {

namespace {

QString gigabytes(qint64 kib) {
  return QString::number(static_cast<double>(kib) / (1024.0 * 1024.0), 'f', kib >= 10LL * 1024 * 1024 ? 0 : 1) + " GB";
}

// "NVIDIA H100 80GB HBM3" -> "H100 80GB"; other names as they are, less the vendor.
QString shortGpuName(QString name) {
  name.remove(QStringLiteral("NVIDIA ")).remove(QStringLiteral(" HBM3")).remove(QStringLiteral("-SXM4"));
  return name.trimmed();
}

}  // namespace

HostProbe parseHostProbe(const QByteArray& answer) {
  HostProbe p;
  p.answer = answer;
  for (const QByteArray& raw : answer.split('\n')) {
    const qsizetype eq = raw.indexOf('=');
    if (eq <= 0) continue;
    const QString key = QString::fromUtf8(raw.left(eq)).trimmed();
    const QString value = QString::fromUtf8(raw.mid(eq + 1)).trimmed();
    if (key == "end")
      p.complete = value == "probe";
    else if (key == "hostname")
      p.hostname = value;
    else if (key == "os")
      p.os = value;
    else if (key == "glibc")
      p.glibc = value;
    else if (key == "boot_id")
      p.bootId = value;
    else if (key == "user")
      p.user = value;
    else if (key == "uid")
      p.uid = value.toInt();
    else if (key == "work_dir")
      p.workDir = value;
    else if (key == "cpus")
      p.cpus = value.toInt();
    else if (key == "cpu_flags")
      p.cpuFlags = value;
    else if (key == "cpu_mhz")
      p.cpuMhz = value.toDouble();
    else if (key == "memory_kb")
      p.memoryKiB = value.toLongLong();
    else if (key == "disk_free_kb")
      p.diskFreeKiB = value.toLongLong();
    else if (key == "arch")
      p.arch = value;
    else if (key == "gpu_arch")
      p.gpuArch = value;
    else if (key == "tpu")
      p.tpu = value == "yes";
    else if (key == "colab")
      p.colab = value == "yes";
    else if (key == "apt")
      p.apt = value == "yes";
    else if (key == "ninja")
      p.ninja = value == "yes";
    else if (key == "python")
      p.python = value;
    else if (key == "torch")
      p.torch = value;
    else if (key == "torch_cuda")
      p.torchCuda = value == "none" ? QString() : value;
    else if (key == "torch_prefix")
      p.torchPrefix = value;
    else if (key == "torch_cxx11_abi")
      p.torchCxx11Abi = value == "1";
    else if (key == "system_libtorch")
      p.systemLibtorch = value;
    else if (key == "nvcc")
      p.nvcc = value;
    else if (key == "cmake")
      p.cmake = value;
    else if (key == "gxx")
      p.gxx = value;
    else if (key == "slurm_partition")
      p.sinfo += value + '\n';
    else if (key == "gpu") {  // "name, memory MiB, driver"
      const QStringList parts = value.split(',');
      HostProbe::Gpu gpu;
      gpu.name = parts.value(0).trimmed();
      gpu.memoryMiB = parts.value(1).trimmed().toLongLong();
      gpu.driver = parts.value(2).trimmed();
      if (!gpu.name.isEmpty()) p.gpus.push_back(gpu);
    }
  }
  return p;
}

QString HostProbe::summary() const {
  QStringList parts;
  if (!gpus.isEmpty()) {
    // Identical GPUs are counted: "8× H100 80GB"; mixed ones are listed.
    QMap<QString, int> counts;
    for (const Gpu& gpu : gpus) ++counts[shortGpuName(gpu.name)];
    for (auto it = counts.cbegin(); it != counts.cend(); ++it)
      parts << (it.value() > 1 ? QStringLiteral("%1× %2").arg(it.value()).arg(it.key()) : it.key());
  } else {
    parts << QStringLiteral("%1 CPU%2").arg(cpus).arg(cpus == 1 ? "" : "s");
    if (memoryKiB > 0) parts << gigabytes(memoryKiB);
    parts << QStringLiteral("no GPU");  // said, not left to be guessed from its absence
  }
  if (!torch.isEmpty())
    parts << QStringLiteral("torch %1").arg(torch);
  else if (!systemLibtorch.isEmpty())
    parts << QStringLiteral("system LibTorch");
  else
    parts << QStringLiteral("no LibTorch");
  if (!torchCuda.isEmpty()) parts << QStringLiteral("CUDA %1").arg(torchCuda);
  if (!sinfo.isEmpty()) parts << QStringLiteral("Slurm login node");
  return parts.join(QStringLiteral(" · "));
}

QString HostProbe::libtorchChoice() const {
  if (!torch.isEmpty() && torchCxx11Abi) return QStringLiteral("pip");
  if (!systemLibtorch.isEmpty()) return QStringLiteral("system");
  return {};
}

namespace {
bool cmakeTooOld(const QString& version) {
  return QVersionNumber::fromString(version) < QVersionNumber::fromString(HostProbe::kMinCmake);
}
}  // namespace

QStringList HostProbe::packagesToInstall() const {
  if (uid != 0 || !apt) return {};
  QStringList packages;
  if (cmake.isEmpty() || cmakeTooOld(cmake)) packages << QStringLiteral("cmake");
  if (gxx.isEmpty()) packages << QStringLiteral("g++") << QStringLiteral("make");
  return packages;
}

QStringList HostProbe::missingForBuild() const {
  const QString sudo = uid == 0 ? QString() : QStringLiteral("sudo ");
  const auto install = [&](const QString& packages) {
    return apt ? sudo + "apt-get install -y " + packages
               : QStringLiteral("your system's package manager (") + packages + ")";
  };
  QStringList missing;
  if (cmake.isEmpty())
    missing
        << QStringLiteral("The host has no cmake; install it with: %1, or pip install cmake.").arg(install("cmake"));
  else if (cmakeTooOld(cmake))
    missing << QStringLiteral(
                   "The host's cmake %1 is older than %2, which the trainer needs; install a newer one "
                   "with: pip install cmake.")
                   .arg(cmake, kMinCmake);
  if (gxx.isEmpty())
    missing << QStringLiteral("The host has no C++ compiler; install it with: %1.").arg(install("g++"));
  if (libtorchChoice().isEmpty()) {
    if (!torch.isEmpty())
      missing << QStringLiteral(
                     "The host's torch %1 uses the pre-C++11 string ABI, which the trainer cannot link "
                     "with; install a newer one with: pip install 'torch>=2.7'.")
                     .arg(torch);
    else
      missing << QStringLiteral("The host has no LibTorch; install it with: pip install torch (or %1).")
                     .arg(install("libtorch-dev libgloo-dev"));
  }
  if (diskFreeKiB > 0 && diskFreeKiB < kMinFreeDiskKiB)
    missing << QStringLiteral(
                   "Only %1 MB are free in the work folder %2 there; the trainer's build needs about %3 MB: "
                   "free some space, or choose a work folder on a bigger disk (--remote-dir, "
                   "target.remote_dir).")
                   .arg(diskFreeKiB / 1024)
                   .arg(workDir)
                   .arg(kMinFreeDiskKiB / 1024);
  if (!torchCuda.isEmpty() && libtorchChoice() == "pip" && nvcc.isEmpty())
    missing << QStringLiteral("The host's torch was built with CUDA %1 but the host has no nvcc; install it with: %2.")
                   .arg(torchCuda,
                        install("cuda-toolkit-" + torchCuda.section('.', 0, 0) + "-" + torchCuda.section('.', 1, 1)));
  return missing;
}

}  // namespace traindeck
