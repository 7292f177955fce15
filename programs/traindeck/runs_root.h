// The app's default runs root: the trainer's default runs_root, ${TRAINDECK_DATA}/runs, expanded
// as the trainer expands it (TRAINDECK_DATA defaults to $XDG_DATA_HOME/traindeck).
#pragma once

#include <QDir>
#include <QString>

#include "config/path_expand.h"

namespace traindeck {

inline QString defaultRunsRoot() {
  return QString::fromStdString(
      expandPath("${TRAINDECK_DATA}/runs", QDir::currentPath().toStdString(), processEnvironment()).path);
}

}  // namespace traindeck
