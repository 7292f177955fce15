// The answer is config/machine_facts.h's one JSON line on stdout; anything else (no trainer, a
// crash, garbage) leaves the facts unknown and says why.
#include "local_devices.h"

#include "config/machine_facts.h"

namespace traindeck {

LocalDevicesProbe::LocalDevicesProbe(QObject* parent) : QObject(parent) {
  m_timeout.setSingleShot(true);
  m_timeout.setInterval(kTimeoutMs);
  connect(&m_timeout, &QTimer::timeout, this, [this] {
    fail(tr("traindeck-train did not say what this machine has within %1 s").arg(kTimeoutMs / 1000));
    m_process.kill();
  });
  connect(&m_process, &QProcess::errorOccurred, this, [this](QProcess::ProcessError error) {
    if (error == QProcess::FailedToStart)
      fail(tr("traindeck-train could not be started: %1").arg(m_process.errorString()));
  });
  connect(&m_process, &QProcess::finished, this, &LocalDevicesProbe::finish);
}

LocalDevicesProbe::~LocalDevicesProbe() {
  m_process.disconnect(this);
  if (m_process.state() == QProcess::NotRunning) return;
  m_process.kill();
  m_process.waitForFinished(3000);
}

void LocalDevicesProbe::start(const QString& trainBinary) {
  if (m_process.state() != QProcess::NotRunning || m_done) return;
  m_process.setStandardInputFile(QProcess::nullDevice());
  m_timeout.start();
  m_process.start(trainBinary, {QStringLiteral("validate"), QStringLiteral("--machine")});  // argv, never a shell
}

void LocalDevicesProbe::finish(int code, QProcess::ExitStatus status) {
  if (m_done) return;
  if (status != QProcess::NormalExit || code != 0) {
    const QString err = QString::fromUtf8(m_process.readAllStandardError()).trimmed().section('\n', -1);
    fail(tr("traindeck-train validate --machine failed (exit %1)%2").arg(code).arg(err.isEmpty() ? "" : ": " + err));
    return;
  }
  const MachineFactsReadResult read = parseMachineFacts(m_process.readAllStandardOutput().toStdString());
  if (!read.ok()) return fail(QString::fromStdString(read.error));
  m_done = true;
  m_timeout.stop();
  m_devices = read.host;
  emit devicesAvailable(m_devices);
}

void LocalDevicesProbe::fail(const QString& why) {
  if (m_done) return;
  m_done = true;
  m_timeout.stop();
  emit devicesFailed(why);
}

}  // namespace traindeck
