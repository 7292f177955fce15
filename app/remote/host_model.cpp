// The host model's conversions into an SshTarget, in one place.
#include "host_model.h"

#include "openssh_resolve.h"

namespace traindeck {

SshTarget sshTargetOf(const TargetConfig& target, const SshLookup& lookup) {
  SshTarget t = SshTarget::parse(QString::fromStdString(target.host));
  if (!target.user.empty()) t.user = QString::fromStdString(target.user);
  if (target.port != TargetConfig{}.port && t.port == 0) t.port = static_cast<int>(target.port);
  if (!target.identity.empty()) t.identityFiles << QString::fromStdString(target.identity);
  t.proxyCommand = QString::fromStdString(target.proxy_command);
  t.loginShell = QString::fromStdString(target.login_shell);
  t.knownHostsFile = lookup.knownHostsFile;
  t.batch = lookup.batch;
  resolveSshTarget(t, lookup.configFile);
  return t;
}

TargetConfig targetOn(const HostEntry& host, TargetConfig place) {
  const TargetConfig fresh;
  if (place.kind != TargetKind::Slurm) place.kind = TargetKind::Ssh;
  place.host = host.spec.trimmed().toStdString();
  place.user = fresh.user;
  place.port = fresh.port;
  place.identity = host.identityFile.toStdString();
  place.proxy_command = host.proxyCommand.toStdString();
  place.hosts = fresh.hosts;
  place.node_address = fresh.node_address;
  return place;
}

}  // namespace traindeck
