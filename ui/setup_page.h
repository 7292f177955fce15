// The Setup page: a job's config as a form and as YAML side by side, kept in sync both ways,
// with every problem shown at its field and line, a problems list, presets, open/save, and the
// plan. The config being edited is its only state; it never starts anything itself. The YAML
// document is the one truth and holds the one undo history: every form edit, "Where to run"
// choice and Prepare result is one undoable edit of it, and the form re-reads it after each.
#pragma once

#include <QList>
#include <QMap>
#include <QPair>
#include <QStringList>
#include <QWidget>
#include <optional>

#include "config/config_io.h"
#include "config/diagnostic.h"
#include "config/validate.h"
#include "host_store.h"

class QComboBox;
class QLabel;
class QListWidget;
class QListWidgetItem;
class QPlainTextEdit;
class QTimer;
class QToolButton;

namespace traindeck {

class ConfigForm;
class Gpt2FilesFetch;
class ExportDialog;
class PrepareDialog;
class PlanPanel;

class SetupPage : public QWidget {
  Q_OBJECT
 public:
  // `presetDirs`: where the preset chooser finds its presets.
  explicit SetupPage(const QStringList& presetDirs, QWidget* parent = nullptr);

  // The last config the YAML could be read into (while the YAML is broken: the one before).
  RunConfig config() const { return m_loaded.config; }
  QString yamlText() const;
  void setYamlText(const QString& text);
  // True when the config has no errors (warnings allowed).
  bool isStartable() const { return m_startable; }
  Diagnostics problems() const { return m_problems; }
  // The file the YAML came from and is saved to; empty for a preset or an old run's config.
  QString filePath() const { return m_filePath; }
  // The YAML differs from what was last opened or saved.
  bool isModified() const { return yamlText() != m_savedText; }
  // Where runs go (the app's --runs-root): "From run…" offers the runs there.
  void setRunsRoot(const QString& dir);
  // traindeck-train, for Prepare data…
  void setTrainBinary(const QString& path) { m_trainBinary = path; }
  // trainer-sources.tar.gz, which the TrainDeck notebook export carries.
  void setTrainerSources(const QString& path) { m_trainerSources = path; }
  // packaging/fetch-gpt2-tokenizer.sh as installed, for Get… beside data.vocab.
  void setGpt2FilesScript(const QString& path) { m_gpt2FilesScript = path; }
  // Get… beside data.vocab: fetches GPT-2's files into ${TRAINDECK_DATA}/gpt2; once they are
  // there the job's tokenizer is gpt2 and data.vocab / data.merges name them. Why it failed is
  // said in a message box; gpt2FilesFetched says either way.
  void fetchGpt2Files();
  // Export…: the job as a script and a notebook for a framework path and a place.
  ExportDialog* openExportDialog();
  // Prepare data… (also the button beside data.train): a dialog, shown and returned; when it has
  // prepared a dataset, data.train names it.
  PrepareDialog* openPrepareDialog();
  // Where Save… proposes to save the job: its own file, else beside it, else (a preset, an old
  // run's settings) in ${TRAINDECK_DATA}, never in the app's presets folder.
  QString defaultSaveFile() const;
  // Whether `path` is in one of the app's presets folders, where nothing is ever written.
  bool isInPresets(const QString& path) const;
  // The line under the YAML that says what the last Undo or Redo changed (empty: none).
  QString historyNote() const;
  // The runs "From run…" offers: "name — id" and the run's folder, newest first.
  QList<QPair<QString, QString>> runChoices() const;
  // The saved hosts for "Where to run", and what each was last found to have (by spec).
  void setHosts(const QList<HostEntry>& hosts, const QMap<QString, HostStore::StoredProbe>& probes);
  // What this machine has, as its traindeck-train says (LocalDevicesProbe): local jobs are
  // checked against it as `traindeck-train validate` checks them. Until it is set (or where the
  // trainer cannot tell), the rules about this machine's devices are skipped.
  void setThisMachine(const std::optional<HostDevices>& devices);
  const std::optional<HostDevices>& thisMachine() const { return m_thisMachine; }

 public slots:
  // Each takes a path, or asks for one with a file dialog when it is empty.
  void openFile(const QString& path = {});
  bool saveFile(const QString& path = {});
  // Starts a new job from an old run's config.yaml: its settings, not its file. Without a path,
  // the runs under the runs root are offered (newest first).
  void newFromConfig(const QString& path = {});
  void choosePreset(const QString& name);
  // Undo or Redo in the YAML document (Ctrl+Z, Ctrl+Shift+Z there, its menu, the buttons above it):
  // the form follows at once and the line under the YAML says what changed.
  void undoEdit() { moveInHistory(true); }
  void redoEdit() { moveInHistory(false); }

 signals:
  void validityChanged(bool startable);
  void configChanged();
  void hostsRequested();  // the Hosts… button
  void gpt2FilesFetched(bool ok, const QString& why);

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  void loadText(const QString& text, const QString& filePath, const QString& baseDir);
  // Before the YAML is replaced: unsaved edits are saved, dropped or kept (Cancel: false). Asked
  // only while the page is shown.
  bool mayReplaceEdits();
  QString chooseRunConfig();  // a run's config.yaml, or empty
  // The file's text, or nullopt after saying on the file label why it could not be read.
  std::optional<QString> readFile(const QString& file);
  void reparse(const QString& editedField = {});
  // A field typed in the form (its editor keeps what it shows while the YAML follows).
  void applyFieldEdit(const QString& path, const QString& valueYaml);
  // Edits from elsewhere (Where to run, Prepare…) as one undoable edit; every editor re-reads.
  void applyFieldEdits(const QList<QPair<QString, QString>>& edits, const QString& typedField = {});
  // `text` with each (path, YAML value) set: in place where it can be, else regenerated.
  QString withFieldValues(QString text, const QList<QPair<QString, QString>>& edits) const;
  void replaceYaml(const QString& text);
  void moveInHistory(bool undo);
  // The config's problems plus the plan's (a job that does not fit), in the list and at the fields.
  void refreshProblems();
  void showProblems(const Diagnostics& problems);
  // A folder to write into by default: the job's own, or ${TRAINDECK_DATA} for a preset.
  QString writableDir() const;
  void problemActivated(QListWidgetItem* item);
  // "Where to run": the chooser and the line beside it follow the config's target.
  void showTarget();
  void chooseTarget(int index);

  QStringList m_presetDirs;
  QString m_runsRoot;
  QString m_trainBinary = QStringLiteral("traindeck-train");
  QString m_savedText;  // as last opened, chosen or saved
  QString m_trainerSources;
  QString m_gpt2FilesScript;
  Gpt2FilesFetch* m_gpt2Fetch = nullptr;
  QString m_presetName;  // the preset shown, while the YAML is one
  QString m_filePath;
  QString m_baseDir;
  LoadedConfig m_loaded;  // from m_goodText: the last YAML that could be read
  QString m_goodText;
  bool m_textUsable = true;      // the YAML as shown could be read (no file-level error)
  Diagnostics m_problems;        // m_configProblems and the plan's
  Diagnostics m_configProblems;  // as validation found them
  bool m_startable = false;
  bool m_settingText = false;

  QList<HostEntry> m_hosts;
  QMap<QString, HostStore::StoredProbe> m_probes;
  std::optional<HostDevices> m_thisMachine;  // unknown until setThisMachine
  QComboBox* m_target = nullptr;
  QLabel* m_targetInfo = nullptr;
  QComboBox* m_presets = nullptr;
  QLabel* m_fileLabel = nullptr;
  ConfigForm* m_form = nullptr;
  QPlainTextEdit* m_yaml = nullptr;
  QLabel* m_yamlError = nullptr;
  QLabel* m_historyNote = nullptr;
  QToolButton* m_undo = nullptr;
  QToolButton* m_redo = nullptr;
  QListWidget* m_problemList = nullptr;
  PlanPanel* m_plan = nullptr;
  QTimer* m_debounce = nullptr;
};

}  // namespace traindeck
