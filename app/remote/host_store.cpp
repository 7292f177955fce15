// HostStore: a QSettings array, rewritten whole on each save.
#include "host_store.h"

#include "ssh_error.h"
#include "ssh_target.h"

namespace traindeck {

QList<HostEntry> HostStore::load(QSettings& settings) {
  QList<HostEntry> hosts;
  const int n = settings.beginReadArray("remoteHosts");
  for (int i = 0; i < n; ++i) {
    settings.setArrayIndex(i);
    hosts.append({settings.value("name").toString(), settings.value("spec").toString(),
                  settings.value("identityFile").toString(), settings.value("proxyCommand").toString()});
  }
  settings.endArray();
  return hosts;
}

void HostStore::save(QSettings& settings, const QList<HostEntry>& hosts) {
  settings.remove("remoteHosts");
  settings.beginWriteArray("remoteHosts", static_cast<int>(hosts.size()));
  for (int i = 0; i < hosts.size(); ++i) {
    settings.setArrayIndex(i);
    settings.setValue("name", hosts[i].name);
    settings.setValue("spec", hosts[i].spec);
    settings.setValue("identityFile", hosts[i].identityFile);
    settings.setValue("proxyCommand", hosts[i].proxyCommand);
  }
  settings.endArray();
  settings.sync();
}

void HostStore::saveProbe(QSettings& settings, const QString& spec, const HostProbe& probe) {
  if (!probe.complete) return;
  QVariantMap all = settings.value("hostProbes").toMap();
  all[spec] = QVariantMap{{"answer", probe.answer}, {"at", QDateTime::currentDateTimeUtc()}};
  settings.setValue("hostProbes", all);
  settings.sync();
}

namespace {
std::optional<HostStore::StoredProbe> storedProbe(const QVariantMap& entry) {
  HostProbe probe = parseHostProbe(entry.value("answer").toByteArray());
  if (!probe.complete) return std::nullopt;
  return HostStore::StoredProbe{probe, entry.value("at").toDateTime()};
}
}  // namespace

std::optional<HostStore::StoredProbe> HostStore::probeFor(QSettings& settings, const QString& spec) {
  return storedProbe(settings.value("hostProbes").toMap().value(spec).toMap());
}

QMap<QString, HostStore::StoredProbe> HostStore::probes(QSettings& settings) {
  QMap<QString, StoredProbe> out;
  const QVariantMap all = settings.value("hostProbes").toMap();
  for (auto it = all.cbegin(); it != all.cend(); ++it)
    if (const auto stored = storedProbe(it.value().toMap())) out.insert(it.key(), *stored);
  return out;
}

QString HostStore::problem(const HostEntry& entry, const QList<HostEntry>& others) {
  if (entry.name.trimmed().isEmpty()) return "Give the host a name.";
  for (const HostEntry& o : others)
    if (o.name == entry.name) return QString("There is already a host named \"%1\".").arg(entry.name);
  try {
    SshTarget::parse(entry.spec);
  } catch (const SshError& e) {
    return e.message();
  }
  return QString();
}

}  // namespace traindeck
