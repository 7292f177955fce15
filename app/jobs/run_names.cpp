#include "run_names.h"

#include <QDir>
#include <QFile>
#include <QRegularExpression>
#include <QStringList>
#include <map>

#include "config/config_flatten.h"
#include "config/config_io.h"
#include "config/validate.h"
#include "runlog/run_paths.h"

namespace traindeck {

namespace {

constexpr int kMaxDifferences = 3;  // more than this reads as a different job: the count says it

QString readAll(const QString& path) {
  QFile f(path);
  return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : QString();
}

// Keys whose values are the run's, not the job's.
bool describesTheRunItself(const std::string& key) {
  return key == "name" || key.rfind("target.", 0) == 0 || key == "runs_root" || key == "checkpoint.resume";
}

}  // namespace

QString jobNameOf(const QString& runName) {
  QString name = runName.section(QString::fromUtf8(kRunNameSeparator), 0, 0);
  name.remove(QRegularExpression(QStringLiteral(" #[0-9]+$")));
  return name;
}

QString distinctRunName(const RunConfig& config, const QString& runsRoot, const QString& baseDir) {
  const QString job = QString::fromStdString(config.name);
  // The runs of this job, newest last (run ids start with their time).
  QStringList dirs = QDir(runsRoot).entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name);
  QString newestText;
  int earlier = 0;
  for (const QString& dir : dirs) {
    const QString text = readAll(QDir(QDir(runsRoot).filePath(dir)).filePath(run_file::kConfig));
    if (text.isEmpty()) continue;
    if (jobNameOf(QString::fromStdString(loadConfigText(text.toStdString()).config.name)) != job) continue;
    ++earlier;
    newestText = text;
  }
  if (earlier == 0) return job;
  // Both as the trainer records them: every key, paths expanded.
  const EnvLookup env = processEnvironment();
  const std::string base = baseDir.toStdString();
  const LoadedConfig newest = loadConfigText(newestText.toStdString());
  std::map<std::string, std::string> before;
  for (const auto& [key, value] : flattenYaml(saveConfigText(withExpandedPaths(newest.config, base, env))).entries)
    before[key] = value;
  QStringList differences;
  for (const auto& [key, value] : flattenYaml(saveConfigText(withExpandedPaths(config, base, env))).entries) {
    if (describesTheRunItself(key)) continue;
    const auto was = before.find(key);
    if (was != before.end() && was->second == value) continue;
    const QString shortKey = QString::fromStdString(key).section('.', -1);
    differences << shortKey + "=" + QString::fromStdString(value);
  }
  if (differences.isEmpty() || differences.size() > kMaxDifferences)
    return QStringLiteral("%1 #%2").arg(job).arg(earlier + 1);
  return job + QString::fromUtf8(kRunNameSeparator) + differences.join(QStringLiteral(", "));
}

QStringList nameOverrideArgs(const std::string& name) {
  QString quoted = QString::fromStdString(name);
  quoted.replace('\\', "\\\\").replace('"', "\\\"");
  return {QStringLiteral("--set"), "name=\"" + quoted + "\""};
}

}  // namespace traindeck
