// The connection test, shared by the CLI and the Hosts dialog.
#include "check_ssh.h"

#include <QElapsedTimer>

#include "ssh_config.h"
#include "ssh_error.h"

namespace traindeck {

CheckSshResult checkSsh(const CheckSshOptions& options, const ConnectCallbacks& callbacks) {
  QElapsedTimer timer;
  timer.start();
  try {
    SshTarget target = SshTarget::parse(options.spec);
    if (!options.identityFile.isEmpty()) target.identityFiles << options.identityFile;
    target.proxyCommand = options.proxyCommand;
    target.knownHostsFile = options.knownHostsFile;
    target.batch = options.batch;
    SshConfig::fromFile(options.configFile.isEmpty() ? SshConfig::defaultPath() : options.configFile).resolve(target);
    SshConnection connection;
    connection.connect(target, callbacks);
    int status = -1;
    QByteArray err;
    connection.execCapture("true", &status, &err);
    const HostKeyInfo& key = connection.hostKey();
    const QString keyText =
        QString("host key %1 %2 (%3 %4)")
            .arg(key.keyType, key.fingerprint, connection.hostKeyWasKnown() ? "known in" : "newly accepted, see",
                 key.knownHostsFile);
    if (status != 0)
      return {false, QString("failed: %1: connected (%2, auth %3) but `true` exited with %4: %5")
                         .arg(target.display(), keyText, connection.authDescription())
                         .arg(status)
                         .arg(QString::fromUtf8(err).trimmed())};
    return {true, QString("ok: %1: %2, authenticated by %3, ran `true` (exit 0) in %4 s")
                      .arg(target.display(), keyText, connection.authDescription())
                      .arg(timer.elapsed() / 1000.0, 0, 'f', 2)};
  } catch (const SshError& e) {
    const bool refused = e.kind() == SshError::Kind::HostKeyUnknown || e.kind() == SshError::Kind::HostKeyChanged;
    return {false, (refused ? "refused: " : "failed: ") + e.message()};
  }
}

}  // namespace traindeck
