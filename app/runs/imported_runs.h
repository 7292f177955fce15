// Other tools' runs as the app addresses and watches them: one text address per run (its path,
// and for a store that holds several runs, "#" and the run's key), the badge that names its
// source, what on disk says it changed, and the RunSummary the run list and Compare show.
// Reading goes through core/imports; these run in the thread that calls them.
#pragma once

#include <QString>
#include <QStringList>
#include <optional>

#include "config/config_flatten.h"
#include "imports/run_discovery.h"
#include "run_summary.h"

namespace traindeck {

QString importedRunAddress(const RunSource& source);
// The file or folder an address names: the address itself, or for a run of a store that holds
// several, the store's file (the address without "#" and the run's key). Either side may hold
// '#': the store is the longest part before a '#' that exists.
QString importedRunPath(const QString& address);
// The run at an address, if one of another tool is there now (TrainDeck's own runs are not).
std::optional<RunSource> importedRunSource(const QString& address);
// "TensorBoard", "HF Trainer", "MLflow", "W&B", "CSV", "llm.c", "Trackio", "DVCLive", "Optuna" (the
// importer table's badges); empty for TrainDeck's own runs.
QString sourceBadge(SourceKind kind);
// A folder of TrainDeck's own: run.json or a remote start's remote.json in it.
bool isTrainDeckRunFolder(const QString& dir);

// Sizes and times of the files a run's reader reads: the run's file, or the files of its
// folder and of the folders directly in it (train/, checkpoint-N/). Cheap to take every second.
struct ImportSignature {
  qint64 bytes = -1;
  qint64 newestMs = 0;
  int files = 0;
  bool operator==(const ImportSignature&) const = default;
};
ImportSignature importSignature(const QString& path);

// What the run list shows of an imported run: no status (it is read-only here), `created` from
// its first record's time, the last step and the last finite train loss. `id` is `listName`.
RunSummary importedRunSummary(const ImportedRun& run, const QString& address, const QString& listName);
FlatConfig importedRunConfig(const ImportedRun& run);

}  // namespace traindeck
