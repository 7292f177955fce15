// Parsing of "[user@]host[:port]" and the defaults OpenSSH applies when nothing else is given.
#include "ssh_target.h"

#include <QDir>

#include "ssh_error.h"

namespace traindeck {

SshTarget SshTarget::parse(const QString& spec) {
  SshTarget t;
  QString rest = spec.trimmed();
  t.spec = rest;
  const auto bad = [&](const QString& why) {
    return SshError(
        SshError::Kind::Config,
        QString("Bad host \"%1\": %2. Write [user@]host[:port], for example root@10.0.0.5:2222.").arg(spec, why));
  };
  if (rest.isEmpty()) throw bad("it is empty");
  const qsizetype at = rest.lastIndexOf('@');
  if (at >= 0) {
    t.user = rest.left(at);
    rest = rest.mid(at + 1);
    if (t.user.isEmpty()) throw bad("the user before @ is empty");
  }
  QString portText;
  if (rest.startsWith('[')) {
    const qsizetype close = rest.indexOf(']');
    if (close < 0) throw bad("a [ without ]");
    t.alias = rest.mid(1, close - 1);
    const QString after = rest.mid(close + 1);
    if (after.startsWith(':'))
      portText = after.mid(1);
    else if (!after.isEmpty())
      throw bad("unexpected text after ]");
  } else {
    const qsizetype colon = rest.indexOf(':');
    if (colon >= 0 && rest.indexOf(':', colon + 1) < 0) {
      t.alias = rest.left(colon);
      portText = rest.mid(colon + 1);
      if (portText.isEmpty()) throw bad("the port after : is empty");
    } else {
      t.alias = rest;  // a bare IPv6 address has several colons and no port
    }
  }
  if (t.alias.isEmpty()) throw bad("the host name is empty");
  // Both end up in ProxyCommand (%h, %r), a shell command line: no shell syntax allowed.
  for (QChar c : t.alias)
    if (!(c.isLetterOrNumber() || QStringView(u".-_:%").contains(c)))
      throw bad(QString("the host name holds '%1'; use letters, digits, '.', '-', '_' and ':'").arg(c));
  for (QChar c : t.user)
    if (c.isSpace() || QStringView(u"'\"`$;&|<>(){}[]*?!#~\\/").contains(c))
      throw bad(QString("the user name holds '%1'").arg(c));
  if (!portText.isEmpty()) {
    bool ok = false;
    t.port = portText.toInt(&ok);
    if (!ok || t.port < 1 || t.port > 65535) throw bad("the port must be a number from 1 to 65535");
  }
  t.host = t.alias;
  return t;
}

void SshTarget::applyDefaults() {
  if (host.isEmpty()) host = alias;
  if (user.isEmpty()) {
    user = qEnvironmentVariable("USER");
    if (user.isEmpty()) user = qEnvironmentVariable("LOGNAME");
    if (user.isEmpty()) user = "root";
  }
  if (port == 0) port = 22;
  if (knownHostsFile.isEmpty()) knownHostsFile = QDir::homePath() + "/.ssh/known_hosts";
}

QString SshTarget::display() const {
  const QString h = host.contains(':') ? "[" + host + "]" : host;
  return (user.isEmpty() ? QString() : user + "@") + h + (port != 0 && port != 22 ? ":" + QString::number(port) : "");
}

QString SshTarget::knownHostsName() const {
  if (!hostKeyAlias.isEmpty()) return hostKeyAlias;
  if (port == 0 || port == 22) return host;
  return QString("[%1]:%2").arg(host).arg(port);
}

}  // namespace traindeck
