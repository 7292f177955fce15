// The connection test, shared by the CLI and the Hosts dialog.
#include "check_ssh.h"

#include <QElapsedTimer>

#include "host_model.h"
#include "sftp_transfer.h"
#include "shell_quote.h"
#include "ssh_error.h"

namespace traindeck {

CheckSshResult checkSsh(const CheckSshOptions& options, const ConnectCallbacks& callbacks) {
  QElapsedTimer timer;
  timer.start();
  try {
    // Reached as a start from a saved host with these settings would reach it.
    const HostEntry host{
        .name = {}, .spec = options.spec, .identityFile = options.identityFile, .proxyCommand = options.proxyCommand};
    const SshTarget target = sshTargetOf(targetOn(host, TargetConfig{}),
                                         {.knownHostsFile = options.knownHostsFile,
                                          .configFile = options.configFile,
                                          .batch = options.batch});
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
      return {false,
              QString("failed: %1: connected (%2, auth %3) but `true` exited with %4: %5")
                  .arg(target.display(), keyText, connection.authDescription())
                  .arg(status)
                  .arg(QString::fromUtf8(err).trimmed()),
              {}};
    // Transfers need SFTP, which minimal images may lack: the test finds that out now, not the
    // first upload of a start.
    try {
      SftpTransfer(connection).open();
    } catch (const SshError& e) {
      if (e.kind() != SshError::Kind::NoSftp) throw;
      return {false,
              QString("failed: %1: connected (%2, auth %3) and ran `true`, but %4")
                  .arg(target.display(), keyText, connection.authDescription(), e.message()),
              {}};
    }
    CheckSshResult result{true,
                          QString("ok: %1: %2, authenticated by %3, ran `true` (exit 0), opened SFTP in %4 s")
                              .arg(target.display(), keyText, connection.authDescription())
                              .arg(timer.elapsed() / 1000.0, 0, 'f', 2),
                          {}};
    if (!options.probeScript.isEmpty()) {
      QByteArray probeErr;
      result.probe = parseHostProbe(connection.execCapture(
          shellJoin({"sh", "-c", QString::fromUtf8(options.probeScript), "sh", "probe", options.probeWorkDir}), &status,
          &probeErr));
      result.line +=
          result.probe.complete
              ? QStringLiteral("\nit has: %1").arg(result.probe.summary())
              : QStringLiteral("\nbut what it has could not be learnt: %1").arg(QString::fromUtf8(probeErr).trimmed());
    }
    return result;
  } catch (const SshError& e) {
    const bool refused = e.kind() == SshError::Kind::HostKeyUnknown || e.kind() == SshError::Kind::HostKeyChanged;
    return {false, (refused ? "refused: " : "failed: ") + e.message(), {}};
  }
}

}  // namespace traindeck
