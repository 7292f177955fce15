// HostStore: the hosts the user saved (name, [user@]host[:port], key file, ProxyCommand) in
// QSettings under "remoteHosts". Never a password or passphrase: those are asked each time.
#pragma once

#include <QList>
#include <QSettings>
#include <QString>

namespace traindeck {

struct HostEntry {
  QString name;          // shown in lists; unique
  QString spec;          // [user@]host[:port] or an alias from ~/.ssh/config
  QString identityFile;  // optional
  QString proxyCommand;  // optional, e.g. cloudflared access ssh --hostname %h
  bool operator==(const HostEntry&) const = default;
};

class HostStore {
 public:
  static QList<HostEntry> load(QSettings& settings);
  static void save(QSettings& settings, const QList<HostEntry>& hosts);
  // Empty when the entry can be saved, else what to fix (also checks the spec parses).
  static QString problem(const HostEntry& entry, const QList<HostEntry>& others);
};

}  // namespace traindeck
