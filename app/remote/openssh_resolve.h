// Which ssh_config reader resolves a host: OpenSSH's own client (`ssh -G -F FILE ALIAS`, its
// answer after Include, Match, Host and its defaults) where it is installed, else SshConfig's
// parser. Both end in SshConfig::apply, so what the command line gives wins the same way.
#pragma once

#include <QString>
#include <optional>

#include "ssh_config.h"

namespace traindeck {

// `ssh -G`'s values for target (its alias, with -l and -p when the target has them), or nullopt
// when ssh is not installed, fails (a bad config) or takes more than a few seconds.
std::optional<SshConfig::Values> openSshValues(const SshTarget& target, const QString& configFile,
                                               QString* why = nullptr);

// Resolves target from configFile (empty: SshConfig::defaultPath(); a missing file is an empty
// config). Throws SshError(Config) as SshConfig does.
void resolveSshTarget(SshTarget& target, const QString& configFile);

}  // namespace traindeck
