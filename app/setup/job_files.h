// Where a job's files are: ${TRAINDECK_DATA}, where the app writes by default; the presets
// folders, where nothing is ever written; and the runs whose settings a new job can start from.
#pragma once

#include <QList>
#include <QPair>
#include <QString>
#include <QStringList>

namespace traindeck {

// ${TRAINDECK_DATA}, as set or by its default.
QString appDataDir();

// Whether `path` is `dir` or inside it (both made absolute and clean first).
bool isInside(const QString& path, const QString& dir);
bool isInAny(const QString& path, const QStringList& dirs);

// The runs under `runsRoot` that have a config.yaml: "name — id" and the run's folder, newest first.
QList<QPair<QString, QString>> runsWithConfigs(const QString& runsRoot);

}  // namespace traindeck
