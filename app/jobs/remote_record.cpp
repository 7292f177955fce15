#include "remote_record.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSaveFile>

#include "config/config_io.h"

namespace traindeck {

SshTarget RemoteRecord::target(bool batch) const {
  SshTarget t;
  t.alias = host;
  t.host = host;
  t.user = user;
  t.port = port;
  t.identityFiles = identityFiles;
  t.proxyCommand = proxyCommand;
  t.knownHostsFile = knownHostsFile;
  t.proxyJump = proxyJump;
  t.hostKeyAlias = hostKeyAlias;
  t.identityAgent = identityAgent;
  t.loginShell = loginShell;
  t.identitiesOnly = identitiesOnly;
  t.batch = batch;
  t.applyDefaults();
  return t;
}

RemoteRecord RemoteRecord::fromTarget(const QString& spec, const SshTarget& target) {
  RemoteRecord r;
  r.spec = spec;
  r.host = target.host;
  r.user = target.user;
  r.port = target.port;
  r.identityFiles = target.identityFiles;
  r.proxyCommand = target.proxyCommand;
  r.knownHostsFile = target.knownHostsFile;
  r.proxyJump = target.proxyJump;
  r.hostKeyAlias = target.hostKeyAlias;
  r.identityAgent = target.identityAgent;
  r.loginShell = target.loginShell;
  r.identitiesOnly = target.identitiesOnly;
  return r;
}

QString jobTargetYaml(const TargetConfig& target) {
  RunConfig holder;
  holder.target = target;
  const QStringList lines = QString::fromStdString(saveConfigText(holder)).split('\n');
  QStringList section;
  for (const QString& line : lines) {
    if (!section.isEmpty() && !line.isEmpty() && !line.front().isSpace()) break;  // the next top-level key
    if (!section.isEmpty() || line == QLatin1String("target:")) section << line;
  }
  return section.join('\n');
}

TargetConfig targetFromYaml(const QString& yaml) {
  const LoadedConfig loaded = loadConfigText(yaml.toStdString(), "remote.json");
  return hasErrors(loaded.problems) || !yaml.startsWith(QLatin1String("target:")) ? TargetConfig{} : loaded.config.target;
}

QString writeRemoteRecord(const QString& runDir, const RemoteRecord& r) {
  QJsonObject o{{"spec", r.spec},
                {"host", r.host},
                {"user", r.user},
                {"port", r.port},
                {"identity_files", QJsonArray::fromStringList(r.identityFiles)},
                {"proxy_command", r.proxyCommand},
                {"known_hosts", r.knownHostsFile},
                {"proxy_jump", r.proxyJump},
                {"host_key_alias", r.hostKeyAlias},
                {"identity_agent", r.identityAgent},
                {"login_shell", r.loginShell},
                {"identities_only", r.identitiesOnly},
                {"work_dir", r.workDir},
                {"remote_run_dir", r.remoteRunDir},
                {"train_binary", r.trainBinary},
                {"helper", r.helper},
                {"pid", r.pid},
                {"start_time", r.startTime},
                {"boot_id", r.bootId},
                {"watch_only", r.watchOnly}};
  if (!r.slurmJobId.isEmpty()) o["slurm_job"] = r.slurmJobId;
  if (!r.jobTarget.isEmpty()) o["job_target"] = r.jobTarget;
  QJsonObject local;
  for (auto it = r.localPaths.begin(); it != r.localPaths.end(); ++it) local[it.key()] = it.value();
  o["local_paths"] = local;
  QDir().mkpath(runDir);
  QSaveFile out(QDir(runDir).filePath(kRemoteRecordFile));
  const QByteArray bytes = QJsonDocument(o).toJson();
  if (!out.open(QIODevice::WriteOnly) || out.write(bytes) != bytes.size() || !out.commit())
    return QStringLiteral("could not write %1: %2").arg(out.fileName(), out.errorString());
  return {};
}

bool readRemoteRecord(const QString& runDir, RemoteRecord* r, QString* error) {
  QFile in(QDir(runDir).filePath(kRemoteRecordFile));
  if (!in.exists()) return false;
  QJsonParseError parseError;
  const QJsonDocument doc =
      in.open(QIODevice::ReadOnly) ? QJsonDocument::fromJson(in.read(1 << 20), &parseError) : QJsonDocument();
  if (!doc.isObject() || doc.object().value("remote_run_dir").toString().isEmpty()) {
    if (error) *error = QStringLiteral("%1 is not a readable remote record").arg(in.fileName());
    return false;
  }
  const QJsonObject o = doc.object();
  r->spec = o.value("spec").toString();
  r->host = o.value("host").toString();
  r->user = o.value("user").toString();
  r->port = o.value("port").toInt(22);
  for (const QJsonValue& v : o.value("identity_files").toArray()) r->identityFiles << v.toString();
  r->proxyCommand = o.value("proxy_command").toString();
  r->knownHostsFile = o.value("known_hosts").toString();
  r->proxyJump = o.value("proxy_jump").toString();
  r->hostKeyAlias = o.value("host_key_alias").toString();
  r->identityAgent = o.value("identity_agent").toString();
  r->loginShell = o.value("login_shell").toString();
  r->identitiesOnly = o.value("identities_only").toBool();
  r->workDir = o.value("work_dir").toString();
  r->remoteRunDir = o.value("remote_run_dir").toString();
  r->trainBinary = o.value("train_binary").toString();
  r->helper = o.value("helper").toString();
  r->pid = o.value("pid").toInteger();
  r->startTime = o.value("start_time").toString();
  r->bootId = o.value("boot_id").toString();
  r->watchOnly = o.value("watch_only").toBool();
  r->slurmJobId = o.value("slurm_job").toString();
  r->jobTarget = o.value("job_target").toString();
  const QJsonObject local = o.value("local_paths").toObject();
  for (auto it = local.begin(); it != local.end(); ++it) r->localPaths[it.key()] = it.value().toString();
  return true;
}

}  // namespace traindeck
