// The ProxyCommand behind ProxyJump. ssh takes "[user@]host[:port]" hops after -J, but its
// destination argument takes no port: the last hop becomes an ssh:// URI when it has one.
#include "proxy_jump.h"

#include <QFileInfo>
#include <QStandardPaths>

#include "shell_quote.h"
#include "ssh_error.h"

namespace traindeck {

namespace {

// The last hop as ssh's destination argument: "user@host", or "ssh://user@host:port".
QString jumpDestination(QString hop) {
  if (hop.startsWith("ssh://")) return hop;
  const QString hostPart = hop.mid(hop.lastIndexOf('@') + 1);
  const bool hasPort = hostPart.startsWith('[') ? hostPart.contains("]:") : hostPart.count(':') == 1;
  return hasPort ? "ssh://" + hop : hop;
}

}  // namespace

QString proxyJumpCommand(const SshTarget& target, const QString& configFile, const QString& knownHostsFile) {
  const QString ssh = QStandardPaths::findExecutable("ssh");
  if (ssh.isEmpty())
    throw SshError(
        SshError::Kind::Config,
        QString("The SSH config reaches %1 through ProxyJump %2, which needs OpenSSH's client (ssh): install "
                "openssh-client, or write a ProxyCommand instead.")
            .arg(target.alias, target.proxyJump));
  QStringList hops = target.proxyJump.split(',', Qt::SkipEmptyParts);
  for (QString& hop : hops) {
    hop = hop.trimmed();
    if (hop.isEmpty() || hop.startsWith('-'))
      throw SshError(SshError::Kind::Config,
                     QString("The SSH config gives \"ProxyJump %1\" for %2: \"%3\" is not a host.")
                         .arg(target.proxyJump, target.alias, hop));
  }
  if (hops.isEmpty())
    throw SshError(SshError::Kind::Config,
                   QString("The SSH config gives an empty ProxyJump for %1.").arg(target.alias));
  QStringList argv{ssh};
  if (!configFile.isEmpty() && QFileInfo::exists(configFile)) argv << "-F" << configFile;
  if (target.batch) argv.append({"-o", "BatchMode=yes"});
  if (!knownHostsFile.isEmpty()) {  // ssh splits the value at spaces unless it is quoted
    const QString quoted = knownHostsFile.contains(' ') ? '"' + knownHostsFile + '"' : knownHostsFile;
    argv.append({"-o", "UserKnownHostsFile=" + quoted});
  }
  const QString last = hops.takeLast();
  if (!hops.isEmpty()) argv << "-J" << hops.join(',');
  argv << "-W" << QString("[%1]:%2").arg(target.host).arg(target.port) << jumpDestination(last);
  return shellJoin(argv);
}

}  // namespace traindeck
