// The Setup page's file row: the preset chooser, Open…, From run…, Save…, Export…, and a label
// that says which file the job is (or why one was not read or saved). It loads texts into the
// job document and saves it; unsaved edits are never dropped without a question.
#pragma once

#include <QList>
#include <QPair>
#include <QStringList>
#include <QWidget>
#include <optional>

class QComboBox;
class QLabel;

namespace traindeck {

class JobDocument;

class SetupFileBar : public QWidget {
  Q_OBJECT
 public:
  SetupFileBar(JobDocument* document, const QStringList& presetDirs, QWidget* parent = nullptr);

  // Where runs go (the app's --runs-root): "From run…" offers the runs there.
  void setRunsRoot(const QString& dir) { m_runsRoot = dir; }
  // The preset shown, while the text is one (else empty).
  const QString& presetName() const { return m_presetName; }
  // Each takes a path, or asks for one with a file dialog when it is empty.
  void openFile(const QString& path = {});
  bool saveFile(const QString& path = {});
  void newFromConfig(const QString& path = {});
  // A new job of this text, not saved (its relative paths meaning `baseDir`); asks first when
  // the job shown has edits not saved.
  void newFromText(const QString& text, const QString& baseDir);
  void choosePreset(const QString& name);
  // Where Save… proposes to save the job: its own file, else beside it, else (a preset, an old
  // run's settings) in ${TRAINDECK_DATA}, never in the app's presets folder.
  QString defaultSaveFile() const;
  // Whether `path` is in one of the app's presets folders, where nothing is ever written.
  bool isInPresets(const QString& path) const;
  // A folder to write into by default: the job's own, or ${TRAINDECK_DATA} for a preset.
  QString writableDir() const;
  QList<QPair<QString, QString>> runChoices() const;

 signals:
  void exportRequested();

 private:
  // Before the text is replaced: unsaved edits are saved, dropped or kept (Cancel: false).
  // Asked only while the bar is shown.
  bool mayReplaceEdits();
  QString chooseRunConfig();  // a run's config.yaml, or empty
  // The file's text, or nullopt after saying on the label why it could not be read.
  std::optional<QString> readFile(const QString& file);
  void load(const QString& text, const QString& filePath, const QString& baseDir);
  void showPreset(const QString& name);

  JobDocument* m_document;
  QStringList m_presetDirs;
  QString m_runsRoot;
  QString m_presetName;
  QComboBox* m_presets = nullptr;
  QLabel* m_label = nullptr;
};

}  // namespace traindeck
