// ExportDialog: the Setup page's "Export…": the job as a runnable script and a Colab-ready
// notebook for one framework path and one place (core/export, as `traindeck-train
// export-notebook` writes them), with what that place really gives and whether our tests run
// that path, said before anything is written. It starts on the place the job was made for, and
// refuses, before writing, what cannot carry the job's strategy.
#pragma once

#include <QDialog>
#include <QStringList>

#include "export/export_defaults.h"
#include "export/job_export.h"

class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;

namespace traindeck {

// defaultExportDir for the Setup page's job: its file (empty: none), the presets folders and
// ${TRAINDECK_DATA} expanded.
QString defaultExportFolder(const QString& jobFile, const QStringList& presetDirs, const QString& dataDir);

class ExportDialog : public QDialog {
  Q_OBJECT
 public:
  // `request` carries the job, its base folder and source name and the trainer's sources; the
  // dialog picks the framework and place (first: suggestedPlace). `defaultOutDir`: see
  // defaultExportDir.
  ExportDialog(const ExportRequest& request, const QString& defaultOutDir, QWidget* parent = nullptr);

  void choose(const QString& framework, const QString& place);
  QString frameworkName() const;
  QString placeName() const;
  void setOutDir(const QString& dir);
  QString outDir() const;
  // Writes the two files; the sentence shown after (what was written, or why not).
  QString exportNow();
  QString noteText() const;

 private:
  void describe();

  ExportRequest m_request;
  QComboBox* m_framework = nullptr;
  QComboBox* m_place = nullptr;
  QLineEdit* m_out = nullptr;
  QLabel* m_note = nullptr;
  QLabel* m_result = nullptr;
  QPushButton* m_exportButton = nullptr;  // enabled while the chosen pair can be exported
};

}  // namespace traindeck
