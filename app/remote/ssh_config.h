// SshConfig: the part of OpenSSH's ssh_config(5) that TrainDeck honours (Host patterns with
// * ? and !, HostName, User, Port, IdentityFile, ProxyCommand with %h %p %r %%,
// UserKnownHostsFile), resolved like ssh does: the first value obtained for a keyword wins.
#pragma once

#include <QString>
#include <utility>
#include <vector>

#include "ssh_target.h"

namespace traindeck {

class SshConfig {
 public:
  static SshConfig fromText(const QString& text);
  // A missing file is an empty config; an unreadable one throws SshError(Config).
  static SshConfig fromFile(const QString& path);
  // ~/.ssh/config
  static QString defaultPath();

  // Fills target's empty fields from the blocks whose Host patterns match target.alias, then
  // applies defaults and expands ProxyCommand. What the target already holds (from the command
  // line) wins over the config.
  void resolve(SshTarget& target) const;

  // True if the OpenSSH-style pattern list ("a*,!ab" or separate words) accepts host.
  static bool hostMatches(const QStringList& patterns, const QString& host);

 private:
  struct Block {
    QStringList patterns;                              // empty for the lines before the first Host (they apply to all)
    bool isMatch = false;                              // a "Match" block: not supported, never applies
    std::vector<std::pair<QString, QString>> options;  // keyword in lower case, value
  };
  std::vector<Block> m_blocks;
};

}  // namespace traindeck
