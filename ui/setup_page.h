// The Setup page: the job as one document (app/setup's JobDocument) shown by views side by side:
// the form, the YAML pane, the problem list and the plan, under the "Where to run" and file rows;
// and, in its Sweep tab, the job's sweep (app/setup's SweepDocument), its trials and their cost.
// Every form edit, "Where to run" choice and Prepare result is one undoable edit of the document,
// and every view follows it. It never starts anything itself.
#pragma once

#include <QList>
#include <QMap>
#include <QPair>
#include <QStringList>
#include <QWidget>
#include <optional>

class QTabWidget;

#include "config/diagnostic.h"
#include "config/run_config.h"
#include "config/validate.h"
#include "host_store.h"

namespace traindeck {

class ConfigForm;
class ExportDialog;
class Gpt2FilesFetch;
class JobDocument;
class PlanPanel;
class PrepareDialog;
class SetupFileBar;
class SetupTargetBar;
class SetupYamlPane;

class SetupSweepTab;
class SweepDocument;

class SetupPage : public QWidget {
  Q_OBJECT
 public:
  // `presetDirs`: where the preset chooser finds its presets.
  explicit SetupPage(const QStringList& presetDirs, QWidget* parent = nullptr);

  JobDocument* document() const { return m_document; }
  // The job's sweep, and its tab beside the job's form and YAML.
  SweepDocument* sweep() const { return m_sweep; }
  SetupSweepTab* sweepTab() const { return m_sweepTab; }
  void showSweepTab(bool shown);
  // The last config the YAML could be read into (while the YAML is broken: the one before).
  RunConfig config() const;
  QString yamlText() const;
  // A new text for the job, its history starting from it (the file stays).
  void setYamlText(const QString& text);
  // True when the config has no errors (warnings allowed).
  bool isStartable() const;
  Diagnostics problems() const;
  // The file the YAML came from and is saved to; empty for a preset or an old run's config.
  QString filePath() const;
  // The YAML differs from what was last opened or saved.
  bool isModified() const;
  // What Start runs: the job's file as it is on disk, or (`file` empty) the run's own copy of
  // `text`, written beside the run.
  struct JobToStart {
    QString file;
    QString text;
  };
  // The job's file is never written without asking: with edits not saved into it, while the
  // window is shown, this asks whether to save them into the file, run with the run's own copy
  // only (the file stays as it is), or not start (nullopt); unasked, the run gets its own copy.
  std::optional<JobToStart> jobToStart();
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
  const std::optional<HostDevices>& thisMachine() const;

 public slots:
  // Each takes a path, or asks for one with a file dialog when it is empty.
  void openFile(const QString& path = {});
  bool saveFile(const QString& path = {});
  // Starts a new job from an old run's config.yaml: its settings, not its file. Without a path,
  // the runs under the runs root are offered (newest first).
  void newFromConfig(const QString& path = {});
  // A new job of this text, not saved (a sweep trial's job): Save… asks where.
  void newFromText(const QString& text, const QString& baseDir);
  void choosePreset(const QString& name);
  // Undo or Redo in the job's one history (Ctrl+Z, Ctrl+Shift+Z in the YAML, its menu, the
  // buttons above it): every view follows at once and the line under the YAML says what changed.
  void undoEdit();
  void redoEdit();

 signals:
  void validityChanged(bool startable);
  void configChanged();
  void hostsRequested();  // the Hosts… button
  void gpt2FilesFetched(bool ok, const QString& why);
  // Run sweep: a saved sweep file without errors, how many trials to run at once on the job's
  // target, and on which saved hosts too (by name: trials at once there).
  void sweepStartRequested(const QString& sweepFile, int localSlots, int pack, const QMap<QString, int>& hostSlots);

 private:
  // The form shows the document's values, except while its text cannot be read.
  void showInForm();
  void editField(const QString& path, const QString& valueYaml);
  void goToProblem(const QString& path, int line);

  JobDocument* m_document = nullptr;
  QStringList m_presetDirs;
  QString m_trainBinary = QStringLiteral("traindeck-train");
  QString m_trainerSources;
  QString m_gpt2FilesScript;
  QString m_typedField;  // the form field whose edit is being applied: its editor keeps what it shows
  Gpt2FilesFetch* m_gpt2Fetch = nullptr;
  SetupFileBar* m_files = nullptr;
  SetupTargetBar* m_target = nullptr;
  ConfigForm* m_form = nullptr;
  SetupYamlPane* m_yaml = nullptr;
  PlanPanel* m_plan = nullptr;
  SweepDocument* m_sweep = nullptr;
  QTabWidget* m_tabs = nullptr;
  SetupSweepTab* m_sweepTab = nullptr;
};

}  // namespace traindeck
