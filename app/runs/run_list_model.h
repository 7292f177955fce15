// Every run directory under a runs root (a folder holding run.json or a remote run's remote.json,
// or one a job here is starting), newest first by run.json "created" (else the id's time), then
// by folder name. Lives in the GUI thread; rescans on file-system events and
// every second, updating rows in place (dataChanged) and inserting, moving or removing only
// the rows that changed, so views keep their selection. Besides its own columns it can show
// config keys as columns ("optimizer.lr"), read once from each run's config.yaml.
// Other tools' runs in the root (TensorBoard, Hugging Face, MLflow, W&B, CSV, llm.c: core/imports)
// are rows too, with their source's badge in the Source column: read-only, re-read when their
// files change. Their path is their address (imported_runs.h). Metrics by name are columns too
// ("val_loss min"), and with config keys drawn from the summary index (run_index.h): a run whose
// entry is current is listed without opening its metrics.jsonl, and a row whose entry arrives
// later is drawn again. Another tool's run is never read here: the index's worker reads it, and
// until its entry arrives its row is the one it had (a run never read: its name and badge only).
// Folders opened with openFolder are listed beside the root until closeOpenedFolders.
#pragma once

#include <QAbstractTableModel>
#include <QDateTime>
#include <QHash>
#include <QMap>
#include <QSet>
#include <QString>
#include <QStringList>
#include <vector>

#include "imported_runs.h"
#include "metric_column.h"
#include "run_index.h"
#include "run_summary.h"

class QFileInfo;
class QFileSystemWatcher;
class QTimer;

namespace traindeck {

class RunListModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum Column {
    IdColumn,
    NameColumn,
    StatusColumn,
    StepColumn,
    TotalStepsColumn,
    LastLossColumn,
    CreatedColumn,
    PathColumn,
    WhereColumn,
    SourceColumn,  // the badge of another tool's run ("TensorBoard"); empty for TrainDeck's own
    ColumnCount
  };
  // The same fields as roles on any column, for list views and delegates.
  enum Role {
    IdRole = Qt::UserRole + 1,
    NameRole,
    StatusRole,
    StepRole,
    TotalStepsRole,
    LastLossRole,
    CreatedRole,
    PathRole,
    WhereRole,
    SourceRole
  };
  static constexpr int kRescanMs = 1000;
  // Folders of the root that are not TrainDeck runs are searched for other tools' runs again
  // when their time changes, and this often (a run added deeper down) when a search is quick:
  // a big tree (a dataset beside the runs) is searched again only when its own time changes.
  static constexpr int kImportSearchMs = 10000;
  static constexpr int kQuickImportSearchMs = 50;

  // The summary index is cached in `indexCacheDir` (empty: in memory only).
  explicit RunListModel(QObject* parent = nullptr, const QString& indexCacheDir = RunIndex::defaultCacheDir());
  ~RunListModel() override;

  RunIndex* runIndex() const { return m_index; }
  // Bytes of metrics.jsonl files the list itself read (the ends of runs whose index entry was not
  // current): 0 when every row was drawn from the index.
  qint64 metricsBytesRead() const { return m_metricsBytesRead; }

  // Empties the model and starts watching `root` (which may not exist yet).
  void setRunsRoot(const QString& root);
  QString runsRoot() const { return m_root; }
  const RunSummary& runAt(int row) const { return m_rows.at(static_cast<std::size_t>(row)); }
  int rowOfPath(const QString& runDir) const;
  // What the Where column adds for a remote run while its job follows it ("reconnecting ...").
  void setLinkNote(const QString& runDir, const QString& note);
  // Whether a job here drives the run (starting, running or stopping): until its run.json is
  // written, such a run's status is "starting", not "unknown".
  void setJobActive(const QString& runDir, bool active);
  // The hosts a job here runs it on (Job::hosts(): empty for this machine), known before the
  // run's remote.json is: a remote start is "on <host>" from its first step.
  void setJobHosts(const QString& runDir, const QStringList& hosts);
  // The status shown for a run everywhere (list, header, progress text).
  QString statusOf(const RunSummary& run) const;
  // Where it runs, the same everywhere (list, header): the host as the user named it (remote.json,
  // the job's hosts, or run.json's host for a start that failed before remote.json), or empty
  // for this machine.
  QString whereOf(const RunSummary& run) const;
  // Another tool's run: shown, compared, never continued, renamed or trashed from here.
  bool isImported(const QString& runDir) const;
  // Config keys shown as columns after the model's own (ColumnCount + i), in this order.
  void setConfigColumns(const QStringList& keys);
  QStringList configColumns() const { return m_configKeys; }
  // Metrics shown as columns after the config keys' (firstMetricColumn() + i), in this order.
  void setMetricColumns(const QList<MetricColumn>& columns);
  QList<MetricColumn> metricColumns() const { return m_metricColumns; }
  int firstMetricColumn() const { return ColumnCount + static_cast<int>(m_configKeys.size()); }

  // Lists the runs found in `folder` (TrainDeck's and other tools', core/imports' findRuns) beside
  // the root's for this session, and says which they are: TrainDeck run folders and imported
  // runs' addresses. A folder with none is not added; `problem` then says so, naming the folder
  // and the formats looked for.
  struct FolderRuns {
    QStringList runs;
    QString problem;
  };
  FolderRuns openFolder(const QString& folder);
  QStringList openedFolders() const { return m_openedFolders; }
  // Lists these folders too (those opened in an earlier session): each that still exists, once,
  // without looking for runs first or a message for one that has none now.
  void reopenFolders(const QStringList& folders);
  // Lists the root's runs only again.
  void closeOpenedFolders();

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
  QHash<int, QByteArray> roleNames() const override;

 public slots:
  void rescan();

 signals:
  void openedFoldersChanged();

 private:
  // One rescan's rows as they are found, and the import searches and reads it keeps.
  struct Scan;
  std::vector<RunSummary> scan();
  void addTrainDeckRow(Scan& scan, const QString& runDir);
  // Other tools' runs in one entry of the root or an opened folder; with `withTrainDeck`, the
  // TrainDeck runs found deeper down are rows too (an opened folder's, not the root's).
  void scanEntry(Scan& scan, const QFileInfo& entry, bool withTrainDeck);
  void takeIndexEntries();  // redraws the rows whose index entries arrived (or could not be built)
  void setOpenedFolders(const QStringList& folders);
  void merge(std::vector<RunSummary> fresh);
  void updateWatches();
  QVariant field(const RunSummary& run, int column, bool forDisplay) const;
  QString configValue(const RunSummary& run, const QString& key) const;

  QString m_root;
  std::vector<RunSummary> m_rows;
  QHash<QString, QString> m_linkNotes;     // by run directory
  QSet<QString> m_activeJobs;              // run directories a job here drives
  QHash<QString, QStringList> m_jobHosts;  // by run directory: a job's hosts
  QStringList m_configKeys;
  QList<MetricColumn> m_metricColumns;
  QStringList m_openedFolders;  // absolute, in the order opened
  RunIndex* m_index = nullptr;
  QSet<QString> m_indexArrived;     // rows to draw again when m_indexRedraw fires
  QTimer* m_indexRedraw = nullptr;  // one redraw for a burst of entries
  qint64 m_metricsBytesRead = 0;
  bool m_goneEntriesAsked = false;  // the index's cache files of runs that are gone: once, after the first scan
  // Runs the last scan found behind their index entries: asked after the merge, so that the
  // index's thread does not compete with the rows' first draw.
  struct ImportToRead {
    QString address;
    RunSource source;
    ImportSignature signature;
  };
  QStringList m_toIndex;
  std::vector<ImportToRead> m_importsToRead;
  mutable QHash<QString, QHash<QString, QString>> m_configValues;  // by run directory, then key
  // Other tools' runs: what each folder or file at the root holds (searched again when its time
  // changes or kImportSearchMs passed), and each run read, by address, until its files change.
  struct ImportSearch {
    QDateTime time;
    qint64 searchedMs = 0;  // when (ms since the epoch)
    qint64 tookMs = 0;      // how long the search took
    std::vector<RunSource> sources;
  };
  struct ImportedRow {
    bool fromEntry = false;     // summary and config are an index entry's; else a name and badge only
    ImportSignature signature;  // the entry's: of the files when they were read
    // When its read was last asked for: a run being written is read again by the periodic rescan
    // (about once per kRescanMs), not by the rescan each arrival of its entry makes.
    qint64 askedMs = 0;
    QString badge;
    RunSummary summary;
    QMap<QString, QString> config;
  };
  QHash<QString, ImportSearch> m_importSearches;  // by absolute path of the root's entry
  QHash<QString, ImportedRow> m_imported;         // by address
  QFileSystemWatcher* m_watcher = nullptr;
  QTimer* m_timer = nullptr;     // the periodic rescan
  QTimer* m_coalesce = nullptr;  // one rescan shortly after a burst of file events
};

}  // namespace traindeck
