// ProxyJump as OpenSSH does it: a ProxyCommand that runs OpenSSH's own client through the hops
// (`ssh -J earlier -W [host]:port last`), so each hop authenticates and checks its own host key
// by the user's ssh_config, as a plain `ssh` would.
#pragma once

#include <QString>

#include "ssh_target.h"

namespace traindeck {

// The shell command line (every word quoted) that reaches target.host:target.port through
// target.proxyJump ("a,b" or "user@a:2222,ssh://b"). configFile goes to -F (when it exists);
// knownHostsFile, when given, to every hop's UserKnownHostsFile; target.batch adds BatchMode.
// Throws SshError(Config) when ssh is not installed or a hop is not a host.
QString proxyJumpCommand(const SshTarget& target, const QString& configFile, const QString& knownHostsFile);

}  // namespace traindeck
