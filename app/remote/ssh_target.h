// SshTarget: everything needed to reach one host, after parsing "[user@]host[:port]" and
// applying ~/.ssh/config (see SshConfig). A plain value: copied freely between threads.
#pragma once

#include <QString>
#include <QStringList>

namespace traindeck {

struct SshTarget {
  QString spec;   // "[user@]host[:port]" or an alias, as the user gave it (shown in messages and lists)
  QString alias;  // the host as the user typed it (what Host patterns match)
  QString host;   // where to connect (HostName from the config, else alias)
  QString user;   // empty until resolved: resolve() falls back to the local user
  int port = 0;   // 0 until resolved: resolve() falls back to 22
  QStringList identityFiles;
  QString proxyCommand;  // already expanded (%h %p %r); empty for a direct connection
  // The config's ProxyJump hops ("a,b"), for messages: proxyCommand then runs OpenSSH's client
  // to reach host through them (see proxyJumpCommand), each hop checking its own host key.
  QString proxyJump;
  QString knownHostsFile;
  QString hostKeyAlias;  // the name known_hosts holds the key under, instead of host[:port]
  // Agent keys are not offered, only the identity files (libssh cannot ask the agent for one key).
  bool identitiesOnly = false;
  QString identityAgent;  // the agent's socket; empty: $SSH_AUTH_SOCK; "none": no agent
  bool batch = false;     // never ask anything: unknown host keys and missing secrets fail
  // The shell the helper runs its site-dependent commands in (probe, build, Slurm's): the job's
  // target.login_shell, e.g. "bash -l"; "none" for plain sh; empty: the helper's own default.
  QString loginShell;

  // "[user@]host[:port]", also "[user@][v6addr]:port". Throws SshError(Config).
  static SshTarget parse(const QString& spec);
  // Fills what is still empty with defaults (local user, port 22, ~/.ssh/known_hosts).
  void applyDefaults();
  // "user@host:port" for messages.
  QString display() const;
  // How known_hosts names this host: "host" on port 22, else "[host]:port"; the HostKeyAlias
  // as it is when there is one (as OpenSSH: no port added).
  QString knownHostsName() const;
  bool operator==(const SshTarget&) const = default;
};

}  // namespace traindeck
