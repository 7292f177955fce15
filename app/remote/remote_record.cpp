// RemoteRecord: the one reader and writer of remote.json, and what a record says of its host.
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
  SshTarget t = ssh;
  t.batch = batch;
  t.applyDefaults();
  return t;
}

TargetConfig RemoteRecord::jobTargetOr(const std::optional<TargetConfig>& fromConfig) const {
  if (!jobTarget.isEmpty()) return targetFromYaml(jobTarget);
  TargetConfig target = fromConfig.value_or(TargetConfig{});
  // A config.yaml made for a remote target names its folder and shell; otherwise (unreadable,
  // or a local config sent away) the record's are the ones the run had.
  const bool configNamesThePlace = fromConfig && fromConfig->kind != TargetKind::Local;
  target.kind = slurmJobId.isEmpty() ? TargetKind::Ssh : TargetKind::Slurm;
  target.host = ssh.spec.toStdString();
  if (!configNamesThePlace && !workDir.isEmpty()) target.remote_dir = workDir.toStdString();
  if (!configNamesThePlace && !ssh.loginShell.isEmpty()) target.login_shell = ssh.loginShell.toStdString();
  return target;
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
  const LoadedConfig loaded = loadConfigText(yaml.toStdString(), kRemoteRecordFile);
  return hasErrors(loaded.problems) || !yaml.startsWith(QLatin1String("target:")) ? TargetConfig{}
                                                                                  : loaded.config.target;
}

QByteArray encodeRemoteRecord(const RemoteRecord& r) {
  const SshTarget& s = r.ssh;
  QJsonObject o{{"spec", s.spec},
                {"alias", s.alias},
                {"host", s.host},
                {"user", s.user},
                {"port", s.port},
                {"identity_files", QJsonArray::fromStringList(s.identityFiles)},
                {"proxy_command", s.proxyCommand},
                {"known_hosts", s.knownHostsFile},
                {"proxy_jump", s.proxyJump},
                {"host_key_alias", s.hostKeyAlias},
                {"identity_agent", s.identityAgent},
                {"login_shell", s.loginShell},
                {"identities_only", s.identitiesOnly},
                {"work_dir", r.workDir},
                {"remote_run_dir", r.remoteRunDir},
                {"train_binary", r.trainBinary},
                {"helper", r.helper},
                {"pid", r.pid},
                {"start_time", r.startTime},
                {"boot_id", r.bootId},
                {"watch_only", r.watchOnly}};
  if (!r.slurmJobId.isEmpty()) o["slurm_job"] = r.slurmJobId;
  if (r.slurmPacked) o["slurm_packed"] = true;
  if (!r.jobTarget.isEmpty()) o["job_target"] = r.jobTarget;
  QJsonObject local;
  for (auto it = r.localPaths.begin(); it != r.localPaths.end(); ++it) local[it.key()] = it.value();
  o["local_paths"] = local;
  return QJsonDocument(o).toJson();
}

std::optional<RemoteRecord> decodeRemoteRecord(const QByteArray& json) {
  const QJsonDocument doc = QJsonDocument::fromJson(json);
  if (!doc.isObject()) return std::nullopt;
  const QJsonObject o = doc.object();
  const auto text = [&o](const char* key) { return o.value(QLatin1String(key)).toString(); };
  RemoteRecord r;
  SshTarget& s = r.ssh;
  s.spec = text("spec");
  s.host = text("host");
  s.alias = o.contains(QLatin1String("alias")) ? text("alias") : s.host;  // older records: the host
  s.user = text("user");
  s.port = o.value(QLatin1String("port")).toInt(22);
  for (const QJsonValue& v : o.value(QLatin1String("identity_files")).toArray()) s.identityFiles << v.toString();
  s.proxyCommand = text("proxy_command");
  s.knownHostsFile = text("known_hosts");
  s.proxyJump = text("proxy_jump");
  s.hostKeyAlias = text("host_key_alias");
  s.identityAgent = text("identity_agent");
  s.loginShell = text("login_shell");
  s.identitiesOnly = o.value(QLatin1String("identities_only")).toBool();
  r.workDir = text("work_dir");
  r.remoteRunDir = text("remote_run_dir");
  r.trainBinary = text("train_binary");
  r.helper = text("helper");
  r.pid = o.value(QLatin1String("pid")).toInteger();
  r.startTime = text("start_time");
  r.bootId = text("boot_id");
  r.watchOnly = o.value(QLatin1String("watch_only")).toBool();
  r.slurmJobId = text("slurm_job");
  r.slurmPacked = o.value(QLatin1String("slurm_packed")).toBool();
  r.jobTarget = text("job_target");
  const QJsonObject local = o.value(QLatin1String("local_paths")).toObject();
  for (auto it = local.begin(); it != local.end(); ++it) r.localPaths[it.key()] = it.value().toString();
  return r;
}

QString writeRemoteRecord(const QString& runDir, const RemoteRecord& record) {
  QDir().mkpath(runDir);
  QSaveFile out(QDir(runDir).filePath(kRemoteRecordFile));
  const QByteArray bytes = encodeRemoteRecord(record);
  if (!out.open(QIODevice::WriteOnly) || out.write(bytes) != bytes.size() || !out.commit())
    return QStringLiteral("could not write %1: %2").arg(out.fileName(), out.errorString());
  return {};
}

bool readRemoteRecord(const QString& runDir, RemoteRecord* record, QString* error) {
  QFile in(QDir(runDir).filePath(kRemoteRecordFile));
  if (!in.exists()) return false;
  const std::optional<RemoteRecord> read =
      in.open(QIODevice::ReadOnly) ? decodeRemoteRecord(in.read(1 << 20)) : std::nullopt;
  if (!read || read->remoteRunDir.isEmpty()) {
    if (error) *error = QStringLiteral("%1 is not a readable remote record").arg(in.fileName());
    return false;
  }
  *record = *read;
  return true;
}

}  // namespace traindeck
