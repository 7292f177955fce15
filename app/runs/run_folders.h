// What the app does to an ended run's folder itself: its name in run.json, and the folder to the
// desktop's trash (restorable there). The window asks and shows; these decide and write.
#pragma once

#include <QString>
#include <QStringList>
#include <functional>

namespace traindeck {

// The run's name in its run.json, trimmed. Empty string, or why not (no name, run.json not
// readable, the run still going: its trainer writes run.json).
QString renameRun(const QString& runDir, const QString& name);

// Moves each folder to the trash, except those `isGoing` says are going and other tools' runs
// (no run.json or remote.json: the app only reads those). What was not moved,
// each with why, as sentences' parts ("20261203-x (still going)").
QStringList moveRunsToTrash(const QStringList& runDirs, const std::function<bool(const QString&)>& isGoing);

}  // namespace traindeck
