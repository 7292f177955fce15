// The SSH options every headless command of traindeck takes (--check-ssh, --launch, --attach,
// --stop), defined once so they read and mean the same in each.
#pragma once

#include <QCommandLineOption>
#include <QCommandLineParser>

namespace traindeck {

struct SshCliOptions {
  QCommandLineOption identity{"identity", "Private key file.", "FILE"};
  QCommandLineOption proxyCommand{"proxy-command", "ProxyCommand (%h %p %r expanded).", "CMD"};
  QCommandLineOption knownHosts{"known-hosts", "known_hosts file.", "FILE"};
  QCommandLineOption sshConfig{"ssh-config", "SSH config file (default ~/.ssh/config).", "FILE"};
  QCommandLineOption batch{"batch", "Ask nothing; refuse unknown host keys."};

  void addTo(QCommandLineParser& parser) const {
    parser.addOptions({identity, proxyCommand, knownHosts, sshConfig, batch});
  }
};

}  // namespace traindeck
