// SshConfig: the part of OpenSSH's ssh_config(5) that TrainDeck reads itself when OpenSSH's
// client is not installed (Include, Host patterns with * ? and !, HostName, User, Port,
// IdentityFile, ProxyCommand with %h %p %r %%, ProxyJump, UserKnownHostsFile, HostKeyAlias,
// IdentitiesOnly, IdentityAgent; Match blocks never apply), resolved like ssh does: the first
// value obtained for a keyword wins. apply() is shared with `ssh -G` (see openssh_resolve.h).
#pragma once

#include <QString>
#include <utility>
#include <vector>

#include "ssh_target.h"

namespace traindeck {

class SshConfig {
 public:
  // What a config gives one host, as written (unexpanded): from SshConfig's parser or `ssh -G`.
  struct Values {
    QString hostName, user, port;
    QString proxyCommand, proxyJump;  // at most one: the first obtained wins, as in OpenSSH
    QString knownHosts;               // UserKnownHostsFile's first file
    QString hostKeyAlias, identityAgent;
    QStringList identityFiles;
    bool identitiesOnly = false;
  };

  // path: the file the text came from (handed to ProxyJump's ssh with -F; relative Includes
  // are read from ~/.ssh, as OpenSSH reads them for a user's config).
  static SshConfig fromText(const QString& text, const QString& path = QString());
  // A missing file is an empty config; an unreadable one throws SshError(Config).
  static SshConfig fromFile(const QString& path);
  // ~/.ssh/config
  static QString defaultPath();

  // Fills target's empty fields from the blocks whose Host patterns match target.alias, then
  // applies defaults and expands ProxyCommand. What the target already holds (from the command
  // line) wins over the config.
  void resolve(SshTarget& target) const;
  Values values(const QString& alias) const;
  // Fills target's empty fields from values, applies defaults, expands tokens and turns
  // ProxyJump into target.proxyCommand (an explicit ProxyCommand wins). configFile: see fromText.
  static void apply(const Values& values, SshTarget& target, const QString& configFile);

  // True if the OpenSSH-style pattern list ("a*,!ab" or separate words) accepts host.
  static bool hostMatches(const QStringList& patterns, const QString& host);

 private:
  struct Block {
    QStringList patterns;  // empty for the lines before the first Host (they apply to all)
    // The Host patterns of the blocks an Include sits in: all must match too.
    std::vector<QStringList> guards;
    bool isMatch = false;                              // a "Match" block: not supported, never applies
    std::vector<std::pair<QString, QString>> options;  // keyword in lower case, value
  };
  void parse(const QString& text, int depth);
  void include(const QString& pattern, int depth);
  std::vector<Block> m_blocks;
  QString m_path;
};

}  // namespace traindeck
