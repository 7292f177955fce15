// PrepareDialog: "Prepare data…" from the Setup page's training-data field. Text files (or every
// .txt under a folder) become a prepared dataset with the job's tokenizer (PrepareJob, that is
// `traindeck-train prepare`), with progress; when it is done, `prepared` names the folder and
// the page puts it in data.train. Closing it while it runs stops the preparation. It offers
// prepare's document separator and validation fraction, and says when the split is lopsided
// (whole files in validation) before and after preparing.
#pragma once

#include <QDialog>

#include "config/run_config.h"
#include "jobs/prepare_job.h"

class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QListWidget;
class QProgressBar;
class QPushButton;

namespace traindeck {

class PrepareDialog : public QDialog {
  Q_OBJECT
 public:
  // `data`: the job's data section with its paths expanded (the tokenizer and GPT-2's files).
  PrepareDialog(const QString& trainBinary, const DataConfig& data, const QString& defaultOutDir,
                QWidget* parent = nullptr);

  void setInputs(const QStringList& files);
  QStringList inputs() const;
  void setOutDir(const QString& dir);
  QString outDir() const;
  void setSplit(const PrepareSplit& split);
  PrepareSplit split() const;
  // Folders never prepared into (the app's presets), and where to prepare instead.
  void setForbiddenDirs(const QStringList& dirs, const QString& instead);
  void startPrepare();
  QString statusText() const;
  // The lopsided-split warning shown (empty: none).
  QString warningText() const;

 signals:
  void prepared(const QString& dir);

 protected:
  void reject() override;

 private:
  void addFiles();
  void addFolder();
  void updateWarning();

  QString m_trainBinary;
  DataConfig m_data;
  PrepareJob m_job;
  QListWidget* m_inputs = nullptr;
  QLineEdit* m_out = nullptr;
  QComboBox* m_separatorKind = nullptr;
  QLineEdit* m_separator = nullptr;
  QDoubleSpinBox* m_valPercent = nullptr;
  QLabel* m_warning = nullptr;
  QStringList m_forbidden;
  QString m_instead;
  QProgressBar* m_progress = nullptr;
  QLabel* m_status = nullptr;
  QPushButton* m_start = nullptr;
};

}  // namespace traindeck
