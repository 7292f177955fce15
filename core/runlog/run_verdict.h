// The verdicts someone other than the run's own trainer writes into run.json: a run whose
// processes are gone without one (killed), and a run the app ended (a runtime gone, a node that
// took the others down, a start that failed). Every job kind writes them through here, so each
// run.json has one status that every page and the command line read alike.
#pragma once

#include <string>

#include "run_directory.h"

namespace traindeck {

// Fills what run.json lacks when the app writes one for a run that never wrote its own.
struct RunIdentity {
  std::string id, name, host;
};

// Writes status "killed" with `reason` (and `cause`, when known: asked, cancelled, a node
// failure) when run.json holds no final verdict (starting, running, not readable, or "requeued":
// the caller found that the requeued job is not coming back); a run that said how it ended keeps
// it. True when it wrote.
bool markRunKilled(const RunPaths& paths, const std::string& reason, const RunIdentity& identity = {},
                   EndCause cause = EndCause::None);

// Writes status "failed" with `reason` (and the rank to blame, -1 for none) whatever run.json
// said: the app's verdict (a runtime gone, a node down) is the one that counts. Returns an empty
// string, or why run.json could not be written.
std::string markRunFailed(const RunPaths& paths, const std::string& reason, const RunIdentity& identity = {},
                          int failedRank = -1);

}  // namespace traindeck
