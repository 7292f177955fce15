// <run>/supervisor.log, where `traindeck-train run` prints (locally and on a host, where the
// mirror copies it): its last lines, for a job's recentOutput().
#pragma once

#include <QString>
#include <QStringList>

namespace traindeck {

// The last `lines` non-empty lines of the run's supervisor.log (read from its last 64 KiB),
// oldest first; empty when there is none.
QStringList supervisorLogTail(const QString& runDir, int lines);

}  // namespace traindeck
