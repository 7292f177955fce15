// One host model: a host as the user names it (a saved HostEntry, a job's target.*, the options
// of --check-ssh) becomes the SshTarget a connection uses here, and nowhere else. A mirror's
// RemoteRecord keeps that SshTarget as it was resolved, so re-attaching converts nothing.
#pragma once

#include <QString>

#include "config/run_config.h"
#include "host_store.h"
#include "ssh_target.h"

namespace traindeck {

// Where the SSH config's answers come from, and whether anything may be asked.
struct SshLookup {
  QString knownHostsFile;  // empty: the config's UserKnownHostsFile, else ~/.ssh/known_hosts
  QString configFile;      // empty: ~/.ssh/config
  bool batch = false;      // refuse unknown host keys, ask for nothing
};

// target.host parsed ([user@]host[:port] or an alias from the SSH config), then target.user,
// target.port (where the spec names none), target.identity (tried first), target.proxy_command
// and target.login_shell over it, then the SSH config's values. Throws SshError(Config).
SshTarget sshTargetOf(const TargetConfig& target, const SshLookup& lookup);

// `place` (a job's target: its kind, work folder, login shell, Slurm settings) aimed at `host`:
// its spec, key file and ProxyCommand; the user, port and the hosts of several nodes are the
// spec's now. A local place becomes an ssh one; a Slurm job stays one (the host is its login node).
TargetConfig targetOn(const HostEntry& host, TargetConfig place);

}  // namespace traindeck
