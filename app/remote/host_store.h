// HostStore: the hosts the user saved (name, [user@]host[:port], key file, ProxyCommand) in
// QSettings under "remoteHosts". Never a password or passphrase: those are asked each time.
// Also what each host was last found to have (its probe answer and when), under "hostProbes",
// by the spec it was reached with: the Hosts dialog's test and every remote start update it.
#pragma once

#include <QDateTime>
#include <QList>
#include <QMap>
#include <QSettings>
#include <QString>
#include <optional>

#include "host_probe.h"

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

  struct StoredProbe {
    HostProbe probe;
    QDateTime at;
  };
  static void saveProbe(QSettings& settings, const QString& spec, const HostProbe& probe);
  static std::optional<StoredProbe> probeFor(QSettings& settings, const QString& spec);
  static QMap<QString, StoredProbe> probes(QSettings& settings);  // by spec
};

}  // namespace traindeck
