// ExportDialog: the Setup page's "Export…": the job as a runnable script and a Colab-ready
// notebook for one framework path and one place (core/export, as `traindeck-train
// export-notebook` writes them), with what that place really gives and whether our tests run
// that path, said before anything is written.
#pragma once

#include <QDialog>

#include "export/job_export.h"

class QComboBox;
class QLabel;
class QLineEdit;

namespace traindeck {

class ExportDialog : public QDialog {
  Q_OBJECT
 public:
  // `request` carries the job, its base folder and source name and the trainer's sources; the
  // dialog picks the framework and place.
  ExportDialog(const ExportRequest& request, const QString& defaultOutDir, QWidget* parent = nullptr);

  void choose(const QString& framework, const QString& place);
  void setOutDir(const QString& dir);
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
};

}  // namespace traindeck
