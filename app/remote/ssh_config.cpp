// ssh_config parsing and resolution. Only the keywords TrainDeck uses are read; the others
// are kept by ssh itself and ignored here, as are Match blocks and Include.
#include "ssh_config.h"

#include <QDir>
#include <QFile>
#include <QRegularExpression>

#include "ssh_error.h"

namespace traindeck {

namespace {

// Glob with * and ?, case-insensitive, as OpenSSH's match_pattern.
bool globMatch(QStringView pattern, QStringView text) {
  qsizetype p = 0, t = 0, star = -1, mark = 0;
  while (t < text.size()) {
    if (p < pattern.size() && (pattern[p] == '?' || pattern[p].toLower() == text[t].toLower())) {
      ++p;
      ++t;
    } else if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      mark = t;
    } else if (star >= 0) {
      p = star + 1;
      t = ++mark;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

// Splits a line into words, honouring double quotes, and "key=value".
QStringList splitWords(const QString& line) {
  QStringList words;
  QString current;
  bool quoted = false, any = false;
  for (qsizetype i = 0; i < line.size(); ++i) {
    const QChar c = line[i];
    if (c == '"') {
      quoted = !quoted;
      any = true;
    } else if (!quoted && (c.isSpace() || (c == '=' && words.isEmpty()))) {
      if (any) words << current;
      current.clear();
      any = false;
    } else {
      current += c;
      any = true;
    }
  }
  if (any) words << current;
  return words;
}

QString expandTilde(const QString& path) {
  if (path == "~") return QDir::homePath();
  if (path.startsWith("~/")) return QDir::homePath() + path.mid(1);
  return path;
}

// %h %p %r %u %d %% as ssh expands them in ProxyCommand and IdentityFile.
QString expandTokens(const QString& text, const SshTarget& t) {
  QString out;
  for (qsizetype i = 0; i < text.size(); ++i) {
    if (text[i] != '%' || i + 1 >= text.size()) {
      out += text[i];
      continue;
    }
    const QChar k = text[++i];
    if (k == 'h')
      out += t.host;
    else if (k == 'p')
      out += QString::number(t.port);
    else if (k == 'r')
      out += t.user;
    else if (k == 'n')
      out += t.alias;
    else if (k == 'u')
      out += qEnvironmentVariable("USER");
    else if (k == 'd')
      out += QDir::homePath();
    else if (k == '%')
      out += '%';
    else
      out += QString('%') + k;
  }
  return out;
}

}  // namespace

SshConfig SshConfig::fromText(const QString& text) {
  SshConfig config;
  config.m_blocks.push_back(Block{});
  for (const QString& raw : text.split('\n')) {
    const QString line = raw.trimmed();
    if (line.isEmpty() || line.startsWith('#')) continue;
    QStringList words = splitWords(line);
    if (words.isEmpty()) continue;
    const QString key = words.takeFirst().toLower();
    if (key == "host") {
      Block b;
      for (const QString& w : words) b.patterns << w.split(',', Qt::SkipEmptyParts);
      config.m_blocks.push_back(b);
    } else if (key == "match") {
      Block b;
      b.isMatch = true;
      config.m_blocks.push_back(b);
    } else if (!words.isEmpty()) {
      // ProxyCommand keeps the rest of the line as written (it is a shell command).
      QString value = words.join(' ');
      if (key == "proxycommand") {
        const QRegularExpressionMatch m =
            QRegularExpression("^\\s*proxycommand\\s*=?\\s*", QRegularExpression::CaseInsensitiveOption).match(raw);
        if (m.hasMatch()) value = raw.mid(m.capturedEnd()).trimmed();
      }
      config.m_blocks.back().options.emplace_back(key, value);
    }
  }
  return config;
}

SshConfig SshConfig::fromFile(const QString& path) {
  QFile f(path);
  if (!f.exists()) return fromText(QString());
  if (!f.open(QIODevice::ReadOnly))
    throw SshError(SshError::Kind::Config,
                   QString("Cannot read the SSH config %1: %2. Check its permissions.").arg(path, f.errorString()));
  return fromText(QString::fromUtf8(f.readAll()));
}

QString SshConfig::defaultPath() {
  return QDir::homePath() + "/.ssh/config";
}

bool SshConfig::hostMatches(const QStringList& patterns, const QString& host) {
  bool matched = false;
  for (const QString& p : patterns) {
    if (p.startsWith('!')) {
      if (globMatch(QStringView(p).mid(1), host)) return false;  // a negation vetoes the block
    } else if (globMatch(p, host)) {
      matched = true;
    }
  }
  return matched;
}

void SshConfig::resolve(SshTarget& t) const {
  QString hostName, user, port, proxy, knownHosts;
  QStringList identities;
  for (const Block& b : m_blocks) {
    if (b.isMatch) continue;
    if (!b.patterns.isEmpty() && !hostMatches(b.patterns, t.alias)) continue;
    for (const auto& [key, value] : b.options) {
      if (key == "hostname" && hostName.isEmpty())
        hostName = value;
      else if (key == "user" && user.isEmpty())
        user = value;
      else if (key == "port" && port.isEmpty())
        port = value;
      else if (key == "proxycommand" && proxy.isEmpty())
        proxy = value;
      else if (key == "userknownhostsfile" && knownHosts.isEmpty())
        knownHosts = value.split(' ').first();
      else if (key == "identityfile")
        identities << value;
    }
  }
  if (!hostName.isEmpty() && t.host == t.alias) {
    SshTarget named;  // in HostName, %h is the name as typed
    named.alias = named.host = t.alias;
    t.host = expandTokens(hostName, named);
  }
  if (t.user.isEmpty()) t.user = user;
  if (t.port == 0 && !port.isEmpty()) {
    bool ok = false;
    t.port = port.toInt(&ok);
    if (!ok || t.port < 1 || t.port > 65535)
      throw SshError(
          SshError::Kind::Config,
          QString("The SSH config gives \"Port %1\" for %2: not a port number. Fix ~/.ssh/config.").arg(port, t.alias));
  }
  if (t.knownHostsFile.isEmpty() && !knownHosts.isEmpty()) t.knownHostsFile = expandTilde(knownHosts);
  t.applyDefaults();
  for (const QString& id : identities) {
    const QString path = expandTilde(expandTokens(id, t));
    if (!t.identityFiles.contains(path)) t.identityFiles << path;
  }
  if (t.proxyCommand.isEmpty() && !proxy.isEmpty() && proxy.toLower() != "none") t.proxyCommand = proxy;
  t.proxyCommand = expandTokens(t.proxyCommand, t);
}

}  // namespace traindeck
