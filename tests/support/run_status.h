// What run.json says of a run's status, through core/runlog's reader, for Qt tests that wait
// on a run: "running", "stopped", ...; empty while run.json is missing or unreadable.
#pragma once

#include <QString>
#include <string>

#include "runlog/run_directory.h"

namespace traindeck::test_support {

inline std::string runStatus(const QString& runDir) {
  const RunInfoReadResult read = readRunInfo(RunPaths{runDir.toStdString()});
  return read.ok() ? toString(read.info.status) : "";
}

}  // namespace traindeck::test_support
