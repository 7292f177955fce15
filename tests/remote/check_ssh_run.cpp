// One way to run `traindeck --check-ssh` for kbdint, ssh_resolve and check_ssh_cli.
#include "check_ssh_run.h"

#include <QProcess>

namespace traindeck::test {

CheckSshRun runCheckSsh(const QString& traindeck, const QString& home, const QStringList& args,
                        const QByteArray& input) {
  QProcess p;
  QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
  env.insert("HOME", home);
  env.remove("SSH_AUTH_SOCK");
  env.remove("DISPLAY");
  env.remove("WAYLAND_DISPLAY");
  env.remove("QT_QPA_PLATFORM");  // no display needed at all
  p.setProcessEnvironment(env);
  p.start(traindeck, QStringList{"--check-ssh"} + args);
  p.write(input);
  p.closeWriteChannel();
  if (!p.waitForFinished(30000)) {
    p.kill();
    p.waitForFinished(5000);
    return {};
  }
  return {p.exitCode(), QString::fromUtf8(p.readAllStandardOutput()), QString::fromUtf8(p.readAllStandardError())};
}

}  // namespace traindeck::test
