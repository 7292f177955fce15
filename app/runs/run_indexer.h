// Builds and brings up to date one run's summary index entry, in whichever thread calls it (the
// index's worker thread in the app; tests call it directly). A TrainDeck run's metrics.jsonl is
// read on from where the entry left it; a file that shrank or whose first bytes changed (it was
// replaced) is read again from its start. Another tool's run is summarized from what its reader
// read whole. The cache files of runs that are gone are removed here too.
#pragma once

#include <QString>
#include <atomic>

#include "imported_runs.h"
#include "run_index_entry.h"

namespace traindeck {

// How much of metrics.jsonl is parsed per read: bounded memory for any size of file.
inline constexpr qint64 kRunIndexChunkBytes = 8 << 20;
// The first bytes hashed to tell a replaced metrics.jsonl from a grown one.
inline constexpr qint64 kRunIndexHeadBytes = 256;

// Brings `entry` (default-constructed for a first build) up to date with the run folder's
// metrics.jsonl and config.yaml; returns how many bytes of metrics.jsonl it parsed. Stops early
// (the entry keeps what was read) when `stop` becomes true.
qint64 updateTrainDeckRunEntry(RunIndexEntry& entry, const QString& runDir, const std::atomic<bool>* stop = nullptr);

// The entry of another tool's run, from its reader's result.
RunIndexEntry importedRunEntry(const ImportedRun& run, const QString& address, const QString& badge,
                               const ImportSignature& signature);
// The run list's row of an imported run from its entry (`id` is `listName`).
RunSummary indexedImportedRunSummary(const RunIndexEntry& entry, const QString& listName);

// Removes the cache files in `cacheDir` of runs that are gone: a TrainDeck run whose folder is
// not there, another tool's run whose file or folder (importedRunPath) is not. A file that is not
// an entry of this version is left alone (another version's app may share the folder). Returns
// how many were removed; stops early when `stop` becomes true.
int removeGoneRunIndexEntries(const QString& cacheDir, const std::atomic<bool>* stop = nullptr);

}  // namespace traindeck
