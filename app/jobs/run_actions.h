// What can be done to a run now, decided in one place for the run menu, Stop and Kill, and
// anything else that asks: from what its run.json says, whether a job here drives it, where it
// ran and whether a complete checkpoint of it is here. The window only shows what this says.
#pragma once

#include <QString>
#include <optional>

#include "runlog/run_directory.h"

namespace traindeck {

class Job;

struct RunFacts {
  std::optional<RunStatus> status;  // none: run.json unreadable or not there yet
  bool remote = false;              // the mirror of a run on another host
  bool hasCheckpoint = false;       // a complete one, here
  const Job* job = nullptr;         // the job this app drives it with, if any
  bool imported = false;            // another tool's run (TensorBoard, MLflow…): only read here
};

struct RunActions {
  bool stop = false, kill = false;  // a live job here that is ours to stop
  QString whyNoStop;                // when neither: why (for the status tip)
  bool continueRun = false;         // ended, with a checkpoint here: Continue…
  bool continueAsksWhere = false;   // a remote run continues on a host the user picks
  QString whyNoContinue;
  bool rename = false, trash = false;  // ended: nothing writes its folder any more
  bool fetch = false;                  // its files are elsewhere
};

RunActions runActions(const RunFacts& facts);

}  // namespace traindeck
