// The main window. In this first version it shows one job: a preset chooser, the job's YAML,
// every problem in it, and its plan. Later versions add the Setup, Monitor and Logs pages.
#pragma once

#include <QMainWindow>
#include <QStringList>

class QComboBox;
class QLabel;
class QListWidget;
class QPlainTextEdit;

namespace traindeck {

class MainWindow : public QMainWindow {
  Q_OBJECT
 public:
  // `presetDirs`: where presets are looked up; `configPath`: the job to show first.
  MainWindow(const QStringList& presetDirs, const QString& configPath, QWidget* parent = nullptr);

  QString currentConfigPath() const { return m_configPath; }

 public slots:
  void openConfig(const QString& path);

 private:
  void showProblemsAndPlan();

  QStringList m_presetDirs;
  QString m_configPath;
  QComboBox* m_presets = nullptr;
  QPlainTextEdit* m_yaml = nullptr;
  QListWidget* m_problems = nullptr;
  QLabel* m_plan = nullptr;
};

}  // namespace traindeck
