// This machine's devices as its traindeck-train sees them (`validate --machine`): the facts that
// the trainer's `validate` and `run` check a local job against, read from LibTorch, which the
// app never links. Asked once, in the background (starting LibTorch takes about a second, more
// with CUDA). GUI thread; the process ends with the object.
#pragma once

#include <QObject>
#include <QProcess>
#include <QString>
#include <QTimer>
#include <optional>

#include "config/validate.h"

namespace traindeck {

class LocalDevicesProbe : public QObject {
  Q_OBJECT
 public:
  static constexpr int kTimeoutMs = 60000;

  explicit LocalDevicesProbe(QObject* parent = nullptr);
  ~LocalDevicesProbe() override;

  // Runs `TRAIN validate --machine`; once per object.
  void start(const QString& trainBinary);
  // After devicesAvailable; nullopt before, after devicesFailed, and where the trainer cannot
  // tell (built without LibTorch).
  const std::optional<HostDevices>& devices() const { return m_devices; }

 signals:
  // The facts, or nullopt where the trainer cannot tell (its validation skips those rules too).
  void devicesAvailable(const std::optional<traindeck::HostDevices>& devices);
  void devicesFailed(const QString& why);

 private:
  void finish(int code, QProcess::ExitStatus status);
  void fail(const QString& why);

  QProcess m_process;
  QTimer m_timeout;
  std::optional<HostDevices> m_devices;
  bool m_done = false;
};

}  // namespace traindeck
