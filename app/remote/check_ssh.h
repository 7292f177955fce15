// checkSsh: the connection test behind `traindeck --check-ssh` and the Hosts dialog's Test
// button: resolve the host, connect, verify the host key, authenticate, run `true`, open SFTP
// (which transfers need), and say in one line what happened.
#pragma once

#include <QString>

#include "host_probe.h"
#include "ssh_connection.h"

namespace traindeck {

struct CheckSshOptions {
  QString spec;            // [user@]host[:port] or an alias from the SSH config
  QString identityFile;    // tried before the config's IdentityFile entries
  QString proxyCommand;    // overrides the config's ProxyCommand
  QString knownHostsFile;  // default: the config's UserKnownHostsFile, else ~/.ssh/known_hosts
  QString configFile;      // default: ~/.ssh/config
  bool batch = false;      // refuse unknown host keys, ask for nothing
  // When given (traindeck-remote.sh's text), the test also asks what the host has: the script
  // runs there as `sh -c SCRIPT sh probe WORKDIR`, nothing uploaded.
  QByteArray probeScript;
  QString probeWorkDir = QStringLiteral("~/.cache/traindeck");
};

struct CheckSshResult {
  bool ok = false;
  QString line;     // "ok: ..." or "failed: ..." / "refused: ..."
  HostProbe probe;  // complete when asked for and answered
};

// Never throws: every failure is a result. Callbacks run on the calling thread.
CheckSshResult checkSsh(const CheckSshOptions& options, const ConnectCallbacks& callbacks);

}  // namespace traindeck
