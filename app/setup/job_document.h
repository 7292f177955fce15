// The job being set up, as one document: its YAML text (the truth), what the text says (the
// values, where each stands, the problems), where the job runs (this machine's devices, the
// hosts' probes), the plan for the device chosen, and one undo history. The Setup page's views
// show it and change it only through it. No widgets: a test builds one alone.
#pragma once

#include <QList>
#include <QMap>
#include <QObject>
#include <QPair>
#include <QSet>
#include <QString>
#include <QStringList>
#include <optional>
#include <vector>

#include "config/config_io.h"
#include "config/validate.h"
#include "host_probe.h"
#include "job_plan.h"
#include "probed_devices.h"

namespace traindeck {

using KeyEdits = QList<QPair<QString, QString>>;  // (key path, its value as YAML)

class JobDocument : public QObject {
  Q_OBJECT
 public:
  explicit JobDocument(QObject* parent = nullptr);

  const QString& text() const { return m_text; }
  // Views holding typing not handed over yet (the YAML pane's) hand it over now (editStarting).
  void takePendingEdits() { emit editStarting(); }
  // The file the text was opened from or saved to; empty for a preset or an old run's config.
  const QString& filePath() const { return m_filePath; }
  // The folder relative paths in the text mean: the file's, else where the text came from.
  const QString& baseDir() const { return m_baseDir; }
  // A new text (a file opened, a preset chosen): unmodified, its history starting from it.
  void load(const QString& text, const QString& filePath, const QString& baseDir);
  // The text replaced, its history starting again from it; the file and what was saved stay.
  void resetText(const QString& text);
  // Writes the text to `path` (atomically), which becomes its file. Empty, or why not.
  QString saveTo(const QString& path);
  // The text differs from what was last loaded or saved.
  bool isModified() const { return m_text != m_savedText; }

  // Edits, each one undoable step. setText: the text as typed. setValues: each key set where it
  // stands, keeping the text's comments, key order and style (a key the text lacks is added to
  // its section); while the text cannot be read they apply to the last text that could, and
  // with none they do nothing (false).
  void setText(const QString& text);
  bool setValues(const KeyEdits& edits);
  // `text` with the edits made as setValues makes them.
  QString withValues(QString text, const KeyEdits& edits) const;
  // The text with every relative path made absolute against baseDir(): a copy that means the
  // same wherever it is saved (a run's own copy of the job).
  QString textWithAbsolutePaths() const;

  bool canUndo() const { return m_at > 0; }
  bool canRedo() const { return m_at + 1 < static_cast<int>(m_history.size()); }
  void undo() { moveInHistory(-1); }
  void redo() { moveInHistory(+1); }

  // What the text says; nullopt while it cannot be read: never the defaults in its place.
  const std::optional<LoadedConfig>& loaded() const { return m_loaded; }
  // What the last text that could be read says (nullopt: none could yet).
  const std::optional<LoadedConfig>& lastReadable() const { return m_lastReadable; }
  // Keys the text has whose value could not be read.
  QSet<QString> unreadableKeys() const;
  // Everything wrong: the text's, the values', what the target lacks, and a plan that does not fit.
  const Diagnostics& problems() const { return m_problems; }
  // The text can be read and nothing in it is an error (warnings allowed).
  bool isStartable() const { return m_startable; }

  // Where the job runs: this machine's devices as its trainer says them (nullopt: not known,
  // and the rules about them are skipped), and each saved host's last probe, by spec.
  void setThisMachine(const std::optional<HostDevices>& devices);
  const std::optional<HostDevices>& thisMachine() const { return m_thisMachine; }
  void setHostProbes(const QMap<QString, HostProbe>& probes);

  // The device planned for: "CPU", a name from knownDevices(), or kHostDevice (the probed
  // target host). It follows the job's strategy.device (CPU, else the GPU its name says, else
  // H100) and a probed target until one is chosen.
  static const QString kHostDevice;
  const QString& planDevice() const { return m_planDevice; }
  void setPlanDevice(const QString& name);
  // The target host's devices as last probed (nullopt: this machine, or not probed).
  const std::optional<ProbedDevices>& targetHost() const { return m_targetHost; }
  const QString& targetHostSpec() const { return m_targetHostSpec; }
  // The plan for the device chosen; nullopt only while the job's own model or strategy are
  // wrong (what the target lacks is a problem of the target, not of the plan).
  const std::optional<JobPlan>& plan() const { return m_plan; }
  // What a job like this one is checked against where it runs: this machine's devices, or its
  // target host's as last probed (a sweep's trials are checked as the job is).
  ValidationContext contextFor(const RunConfig& config) const;

 signals:
  // After every change: the text, the values, the problems, where it runs or the plan.
  void changed();
  // The last readable values differ from before.
  void valuesChanged();
  void startableChanged(bool startable);
  // After undo or redo, the keys it changed ("target.kind: ssh → local").
  void historyMoved(bool undone, const QStringList& changes);
  // Before an edit from anywhere: a view holding typing not yet in the text hands it over now.
  void editStarting();

 private:
  void commit(const QString& text);
  void moveInHistory(int step);
  // Reads the text again, then replans; says what changed.
  void update();
  void reparse();
  void replan();

  QString m_text;
  QString m_savedText;
  QString m_filePath;
  QString m_baseDir;
  std::vector<QString> m_history;  // texts, oldest first; m_at is the one shown
  int m_at = 0;

  std::optional<LoadedConfig> m_loaded;
  std::optional<LoadedConfig> m_lastReadable;
  QString m_lastReadableText;
  bool m_planable = false;       // the last readable job's model and strategy have no errors
  Diagnostics m_configProblems;  // as loading and validation found them
  Diagnostics m_problems;        // and the plan's
  bool m_startable = false;

  std::optional<HostDevices> m_thisMachine;
  QMap<QString, HostProbe> m_probes;
  std::optional<ProbedDevices> m_targetHost;
  QString m_targetHostSpec;
  QString m_planDevice = QStringLiteral("H100");
  std::optional<DeviceKind> m_plannedKind;  // the strategy.device the default device was picked for
  std::optional<JobPlan> m_plan;
};

}  // namespace traindeck
