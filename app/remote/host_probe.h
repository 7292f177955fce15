// What a remote host has, from one `traindeck-remote.sh probe` (key=value lines): OS, CPUs,
// memory, free disk in the work folder, GPUs, Python's torch and the build tools. Said in one
// line for the Hosts dialog and the Setup page ("8× H100 80GB · torch 2.11+cu128 · CUDA
// 12.8"), and checked for what building the trainer there needs. A plain value.
#pragma once

#include <QByteArray>
#include <QString>
#include <QStringList>
#include <QVector>

namespace traindeck {

struct HostProbe {
  struct Gpu {
    QString name;
    qint64 memoryMiB = 0;
    QString driver;
  };
  bool complete = false;  // the answer ended with its end marker
  QByteArray answer;      // as the host said it (what is stored: parseHostProbe reads it again)
  QString hostname, os, glibc, bootId, user, workDir;
  QString arch;     // uname -m: x86_64, aarch64
  QString gpuArch;  // the first GPU's compute capability ("8.0"), when nvidia-smi says it
  int uid = -1;
  int cpus = 0;
  QString cpuFlags;  // /proc/cpuinfo's first flags line
  double cpuMhz = 0;
  qint64 memoryKiB = 0, diskFreeKiB = 0;
  QVector<Gpu> gpus;
  bool tpu = false, colab = false, apt = false, ninja = false;
  QString python, torch, torchCuda, torchPrefix, systemLibtorch, nvcc, cmake, gxx;
  bool torchCxx11Abi = false;
  // A Slurm login node's partitions, `sinfo -h -o '%P|%D|%G|%l'` lines (parseSinfo reads them).
  QString sinfo;

  // "8× H100 80GB · torch 2.11+cu128 · CUDA 12.8", or for a CPU host "2 CPUs · 24 GB · torch 1.13".
  QString summary() const;
  // What building the trainer there lacks: one sentence each, naming the command that installs it
  // (with sudo unless the account is root). Empty when nothing is missing.
  QStringList missingForBuild() const;
  // The build tools among those that apt-get can install there ("cmake", "g++ make"); empty
  // unless the account is root and the host has apt-get. LibTorch is not among them (pip is).
  QStringList packagesToInstall() const;
  static constexpr const char* kMinCmake = "3.22";        // the trainer's cmake_minimum_required
  static constexpr qint64 kMinFreeDiskKiB = 1024 * 1024;  // sources, build tree and a first run
  // Which LibTorch the build will use: "pip" (Python's torch), "system", or empty for none.
  QString libtorchChoice() const;
};

HostProbe parseHostProbe(const QByteArray& answer);

}  // namespace traindeck
