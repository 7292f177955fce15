// Lines before the helper's own (a chatty .bashrc) are ignored: key=value parsing skips what
// has no '=', and the framed answers start at their first keyword.
#include "remote_helper_answers.h"

#include <QList>
#include <algorithm>

namespace traindeck {

HelperStatus HelperStatus::from(const RemoteHost::ExecResult& r) {
  HelperStatus s;
  s.linkFailure = r.failure;
  if (!r.failure.isEmpty()) return s;
  s.exitStatus = r.status;
  s.keys = parseKeyValues(r.out);
  s.helperMissing = r.status == kMissingStatus && s.keys.value("helper") == QLatin1String("missing");
  s.error = s.keys.value("error");
  s.stderrText = QString::fromUtf8(r.err).trimmed();
  return s;
}

QString HelperStatus::why() const {
  if (error.isEmpty() || stderrText.isEmpty()) return error.isEmpty() ? stderrText : error;
  return error + ": " + stderrText.split('\n').last().trimmed();
}

FolderAnswer FolderAnswer::fromPwd(const RemoteHost::ExecResult& r) {
  FolderAnswer a;
  static_cast<HelperStatus&>(a) = HelperStatus::from(r);
  const QString last = QString::fromUtf8(r.out).trimmed().split('\n').last().trimmed();
  if (a.ok() && last.startsWith('/')) a.path = last;
  return a;
}

FolderAnswer FolderAnswer::from(const RemoteHost::ExecResult& r) {
  FolderAnswer a;
  static_cast<HelperStatus&>(a) = HelperStatus::from(r);
  const QString dir = a.keys.value("run_dir");
  if (a.ok() && dir.startsWith('/')) a.path = dir;
  return a;
}

YesNoAnswer YesNoAnswer::from(const RemoteHost::ExecResult& r, const QString& key) {
  YesNoAnswer a;
  static_cast<HelperStatus&>(a) = HelperStatus::from(r);
  a.yes = a.ok() && a.keys.value(key) == QLatin1String("yes");
  return a;
}

ProbeAnswer ProbeAnswer::from(const RemoteHost::ExecResult& r) {
  ProbeAnswer a;
  static_cast<HelperStatus&>(a) = HelperStatus::from(r);
  if (a.reached()) a.probe = parseHostProbe(r.out);
  return a;
}

MadeAnswer MadeAnswer::from(const RemoteHost::ExecResult& r, const QString& key) {
  MadeAnswer a;
  static_cast<HelperStatus&>(a) = HelperStatus::from(r);
  a.made = a.ok() && a.keys.contains(key);
  a.value = a.keys.value(key);
  a.cached = a.made && a.value == QLatin1String("cached");
  return a;
}

LaunchAnswer LaunchAnswer::from(const RemoteHost::ExecResult& r) {
  LaunchAnswer a;
  static_cast<HelperStatus&>(a) = HelperStatus::from(r);
  a.pid = std::max<qint64>(0, a.keys.value("pid").toLongLong());
  a.startTime = a.keys.value("start_time");
  a.bootId = a.keys.value("boot_id");
  return a;
}

SubmitAnswer SubmitAnswer::from(const RemoteHost::ExecResult& r) {
  SubmitAnswer a;
  static_cast<HelperStatus&>(a) = HelperStatus::from(r);
  if (a.ok()) a.jobId = a.keys.value("job");
  return a;
}

QueueAnswer QueueAnswer::from(const RemoteHost::ExecResult& r) {
  QueueAnswer a;
  static_cast<HelperStatus&>(a) = HelperStatus::from(r);
  a.complete = a.ok() && a.keys.value("queue") == QLatin1String("ok");
  if (a.complete) a.jobs = parseSlurmQueue(QString::fromUtf8(r.out));
  return a;
}

SeedAnswer SeedAnswer::from(const RemoteHost::ExecResult& r) {
  SeedAnswer a;
  static_cast<HelperStatus&>(a) = HelperStatus::from(r);
  a.seeded = a.ok() && a.keys.contains("seeded");
  a.movedAside = a.keys.value("moved_aside");
  return a;
}

AliveAnswer AliveAnswer::from(const RemoteHost::ExecResult& r) {
  AliveAnswer a;
  static_cast<HelperStatus&>(a) = HelperStatus::from(r);
  a.alive = a.reached() && a.keys.value("alive") == QLatin1String("yes");
  a.bootId = a.keys.value("boot_id");
  return a;
}

SignalAnswer SignalAnswer::from(const RemoteHost::ExecResult& r) {
  SignalAnswer a;
  static_cast<HelperStatus&>(a) = HelperStatus::from(r);
  const QString said = a.keys.value("signalled");
  a.sent = a.ok() && said == QLatin1String("yes");
  a.ended = a.ok() && said == QLatin1String("gone");
  a.waiting = a.ok() && said == QLatin1String("waiting");
  return a;
}

ReadAnswer ReadAnswer::from(const RemoteHost::ExecResult& r) {
  ReadAnswer a;
  static_cast<HelperStatus&>(a) = HelperStatus::from(r);
  if (!a.reached()) return a;
  a.run = parseRemoteReadAnswer(r.out);
  if (a.exitStatus != 0 && !a.run.complete) a.run.error = a.why();
  return a;
}

ListingAnswer ListingAnswer::from(const RemoteHost::ExecResult& r) {
  ListingAnswer a;
  static_cast<HelperStatus&>(a) = HelperStatus::from(r);
  if (!a.reached()) return a;
  bool ended = false;
  for (const QByteArray& line : r.out.split('\n')) {
    const QList<QByteArray> words = line.split(' ');
    if (words.value(0) == "dir" && words.size() == 2) a.dir = QString::fromUtf8(words[1]);
    if (words.value(0) == "file" && words.size() == 3)
      a.files.push_back({QString::fromUtf8(words[1]), words[2].toLongLong()});
    if (line == "end") ended = true;
  }
  a.complete = a.exitStatus == 0 && ended;
  a.noCheckpoint = a.keys.value("checkpoint") == QLatin1String("none");
  return a;
}

}  // namespace traindeck
