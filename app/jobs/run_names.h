// Names that tell runs apart. Every run of one job would be called the job's name ("demo-cpu")
// in the list, on Compare's legend and in its diff; a new run is named the job's name plus what
// differs from the newest earlier run of that job ("demo-cpu · lr=0.002, micro_batch=16"), or
// "demo-cpu #3" when nothing does. The first run of a job keeps the job's name.
#pragma once

#include <QString>
#include <QStringList>
#include <string>

#include "config/run_config.h"

namespace traindeck {

inline constexpr const char* kRunNameSeparator = " · ";

// The job's own name within a run's name ("demo-cpu" of "demo-cpu · lr=0.002" or "demo-cpu #3").
QString jobNameOf(const QString& runName);

// The name for a new run of `config` among the runs under `runsRoot` (by their config.yaml,
// whose paths are expanded: `config`'s are too, against `baseDir`, before they are compared).
QString distinctRunName(const RunConfig& config, const QString& runsRoot, const QString& baseDir);

// `--set name="<name>"` for traindeck-train: a YAML string, so '#' and ': ' are text in it.
QStringList nameOverrideArgs(const std::string& name);

}  // namespace traindeck
