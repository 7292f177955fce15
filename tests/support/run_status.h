// What run.json says of a run's status, through core/runlog's reader, for Qt tests that wait
// on a run: "running", "stopped", ...; empty while run.json is missing or unreadable. And the
// train steps its metrics.jsonl holds, in file order (to find a step written twice), and the
// loss at each step (a step written again after a resume: the later record wins).
#pragma once

#include <QByteArray>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMap>
#include <QString>
#include <QVector>
#include <string>

#include "runlog/run_directory.h"

namespace traindeck::test_support {

inline std::string runStatus(const QString& runDir) {
  const RunInfoReadResult read = readRunInfo(RunPaths{runDir.toStdString()});
  return read.ok() ? toString(read.info.status) : "";
}

inline QVector<qint64> trainSteps(const QString& metricsPath) {
  QVector<qint64> steps;
  QFile f(metricsPath);
  if (!f.open(QIODevice::ReadOnly)) return steps;
  for (const QByteArray& line : f.readAll().split('\n')) {
    if (!line.contains("\"kind\":\"train\"")) continue;
    const qsizetype at = line.indexOf("\"step\":");
    steps << line.mid(at + 7, line.indexOf(',', at) - at - 7).toLongLong();
  }
  return steps;
}

inline QMap<qint64, double> trainLosses(const QString& metricsPath) {
  QMap<qint64, double> losses;
  QFile f(metricsPath);
  if (!f.open(QIODevice::ReadOnly)) return losses;
  for (const QByteArray& line : f.readAll().split('\n')) {
    const QJsonObject o = QJsonDocument::fromJson(line).object();
    if (o.value("kind").toString() == QLatin1String("train"))
      losses[o.value("step").toInteger()] = o.value("loss").toDouble();
  }
  return losses;
}

}  // namespace traindeck::test_support
