// ssh_config parsing and resolution. Only the keywords TrainDeck uses are read; the others
// are kept by ssh itself and ignored here, as are Match blocks.
#include "ssh_config.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QRegularExpression>
#include <algorithm>

#include "proxy_jump.h"
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

constexpr int kMaxIncludeDepth = 16;  // OpenSSH's READCONF_MAX_DEPTH

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

// IdentityAgent's value as a socket path: empty for $SSH_AUTH_SOCK, "none" for no agent.
QString agentSocket(const QString& value, const SshTarget& t) {
  if (value.isEmpty() || value == "SSH_AUTH_SOCK") return QString();
  if (value.compare("none", Qt::CaseInsensitive) == 0) return "none";
  if (value.startsWith('$')) {
    QString name = value.mid(1);
    if (name.startsWith('{') && name.endsWith('}')) name = name.mid(1, name.size() - 2);
    const QString socket = qEnvironmentVariable(name.toLocal8Bit().constData());
    return socket.isEmpty() ? QString("none") : socket;  // OpenSSH: an unset variable means no agent
  }
  return expandTilde(expandTokens(value, t));
}

}  // namespace

SshConfig SshConfig::fromText(const QString& text, const QString& path) {
  SshConfig config;
  config.m_path = path;
  config.m_blocks.push_back(Block{});
  config.parse(text, 0);
  return config;
}

void SshConfig::parse(const QString& text, int depth) {
  for (const QString& raw : text.split('\n')) {
    const QString line = raw.trimmed();
    if (line.isEmpty() || line.startsWith('#')) continue;
    QStringList words = splitWords(line);
    if (words.isEmpty()) continue;
    const QString key = words.takeFirst().toLower();
    // A block opened inside an included file keeps the conditions of the block the Include is in.
    Block b;
    b.guards = m_blocks.back().guards;
    if (key == "host") {
      for (const QString& w : words) b.patterns << w.split(',', Qt::SkipEmptyParts);
      m_blocks.push_back(b);
    } else if (key == "match") {
      b.isMatch = true;
      m_blocks.push_back(b);
    } else if (key == "include") {
      const Block outer = m_blocks.back();
      Block inner = outer;
      inner.options.clear();
      if (!outer.patterns.isEmpty()) inner.guards.push_back(outer.patterns);
      if (outer.isMatch) inner.guards.push_back({"!*"});  // never matches, as the Match block
      inner.patterns.clear();
      inner.isMatch = false;
      m_blocks.push_back(inner);
      for (const QString& w : words) include(w, depth + 1);
      Block after = outer;  // back in the block that holds the Include
      after.options.clear();
      m_blocks.push_back(after);
    } else if (!words.isEmpty()) {
      // ProxyCommand keeps the rest of the line as written (it is a shell command).
      QString value = words.join(' ');
      if (key == "proxycommand") {
        const QRegularExpressionMatch m =
            QRegularExpression("^\\s*proxycommand\\s*=?\\s*", QRegularExpression::CaseInsensitiveOption).match(raw);
        if (m.hasMatch()) value = raw.mid(m.capturedEnd()).trimmed();
      }
      m_blocks.back().options.emplace_back(key, value);
    }
  }
}

void SshConfig::include(const QString& pattern, int depth) {
  if (depth > kMaxIncludeDepth)
    throw SshError(SshError::Kind::Config,
                   QString("The SSH config %1 includes files more than %2 deep (an Include loop?).")
                       .arg(m_path)
                       .arg(kMaxIncludeDepth));
  QString path = expandTilde(pattern);
  if (QFileInfo(path).isRelative()) path = QDir::homePath() + "/.ssh/" + path;
  // Wildcards in the file name, as glob(3) would expand them (in name order).
  const QFileInfo info(path);
  const QStringList names =
      info.fileName().contains(QRegularExpression("[*?\\[]"))
          ? QDir(info.path()).entryList({info.fileName()}, QDir::Files | QDir::Readable, QDir::Name)
          : QStringList{info.fileName()};
  for (const QString& name : names) {
    QFile f(QDir(info.path()).filePath(name));
    if (f.open(QIODevice::ReadOnly)) parse(QString::fromUtf8(f.readAll()), depth);  // missing: ignored, as OpenSSH does
  }
}

SshConfig SshConfig::fromFile(const QString& path) {
  QFile f(path);
  if (!f.exists()) return fromText(QString(), path);
  if (!f.open(QIODevice::ReadOnly))
    throw SshError(SshError::Kind::Config,
                   QString("Cannot read the SSH config %1: %2. Check its permissions.").arg(path, f.errorString()));
  return fromText(QString::fromUtf8(f.readAll()), path);
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

SshConfig::Values SshConfig::values(const QString& alias) const {
  Values v;
  bool proxySeen = false;
  QString identitiesOnly;
  for (const Block& b : m_blocks) {
    if (b.isMatch) continue;
    if (!b.patterns.isEmpty() && !hostMatches(b.patterns, alias)) continue;
    if (!std::all_of(b.guards.begin(), b.guards.end(), [&](const QStringList& g) { return hostMatches(g, alias); }))
      continue;
    for (const auto& [key, value] : b.options) {
      const auto first = [](QString& field, const QString& value) {
        if (field.isEmpty()) field = value;
      };
      if (key == "hostname")
        first(v.hostName, value);
      else if (key == "user")
        first(v.user, value);
      else if (key == "port")
        first(v.port, value);
      else if ((key == "proxycommand" || key == "proxyjump") && !proxySeen) {
        proxySeen = true;  // ProxyCommand and ProxyJump exclude each other: the first one wins
        (key == "proxycommand" ? v.proxyCommand : v.proxyJump) = value;
      } else if (key == "userknownhostsfile")
        first(v.knownHosts, value.split(' ').first());
      else if (key == "hostkeyalias")
        first(v.hostKeyAlias, value);
      else if (key == "identityagent")
        first(v.identityAgent, value);
      else if (key == "identitiesonly")
        first(identitiesOnly, value);
      else if (key == "identityfile")
        v.identityFiles << value;
    }
  }
  v.identitiesOnly = identitiesOnly.compare("yes", Qt::CaseInsensitive) == 0;
  return v;
}

void SshConfig::resolve(SshTarget& t) const {
  apply(values(t.alias), t, m_path);
}

void SshConfig::apply(const Values& v, SshTarget& t, const QString& configFile) {
  const QString givenKnownHosts = t.knownHostsFile;  // before defaults: handed to the jump's ssh
  if (!v.hostName.isEmpty() && t.host == t.alias) {
    SshTarget named;  // in HostName, %h is the name as typed
    named.alias = named.host = t.alias;
    t.host = expandTokens(v.hostName, named);
  }
  if (t.user.isEmpty()) t.user = v.user;
  if (t.port == 0 && !v.port.isEmpty()) {
    bool ok = false;
    t.port = v.port.toInt(&ok);
    if (!ok || t.port < 1 || t.port > 65535)
      throw SshError(SshError::Kind::Config,
                     QString("The SSH config gives \"Port %1\" for %2: not a port number. Fix ~/.ssh/config.")
                         .arg(v.port, t.alias));
  }
  if (t.knownHostsFile.isEmpty() && !v.knownHosts.isEmpty()) t.knownHostsFile = expandTilde(v.knownHosts);
  if (t.hostKeyAlias.isEmpty() && v.hostKeyAlias.compare("none", Qt::CaseInsensitive) != 0)
    t.hostKeyAlias = v.hostKeyAlias;
  t.identitiesOnly = t.identitiesOnly || v.identitiesOnly;
  t.applyDefaults();
  if (t.identityAgent.isEmpty()) t.identityAgent = agentSocket(v.identityAgent, t);
  for (const QString& id : v.identityFiles) {
    const QString path = expandTilde(expandTokens(id, t));
    if (!t.identityFiles.contains(path)) t.identityFiles << path;
  }
  const bool none = v.proxyCommand.compare("none", Qt::CaseInsensitive) == 0;
  if (t.proxyCommand.isEmpty() && !v.proxyCommand.isEmpty() && !none) t.proxyCommand = v.proxyCommand;
  t.proxyCommand = expandTokens(t.proxyCommand, t);
  if (t.proxyCommand.isEmpty() && !v.proxyJump.isEmpty() && v.proxyJump.compare("none", Qt::CaseInsensitive) != 0) {
    t.proxyJump = v.proxyJump;
    t.proxyCommand = proxyJumpCommand(t, configFile, givenKnownHosts);
  }
}

}  // namespace traindeck
