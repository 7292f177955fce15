// Continue on another host: which host (from Hosts…) and the work folder there. The folder is
// the job's own (config.yaml's target.remote_dir, as the run used it), shown and editable, so a
// run never lands in a default folder unasked.
#pragma once

#include <QDialog>
#include <QList>

#include "config/run_config.h"
#include "host_store.h"

class QCheckBox;
class QComboBox;
class QLineEdit;

namespace traindeck {

class ContinueDialog : public QDialog {
  Q_OBJECT
 public:
  // `workDir`: the folder shown first (JobController::workDirOf); `runTarget`: the run's own
  // target (JobController::targetOf), whose Slurm settings a Slurm continue keeps.
  ContinueDialog(const QString& runDir, const QList<HostEntry>& hosts, const QString& workDir,
                 const TargetConfig& runTarget, QWidget* parent = nullptr);

  // The host picked, as a target for JobController::continueOn (ssh, or slurm through that host
  // as the login node with the run's Slurm settings; its identity and proxy), and the work folder.
  TargetConfig target() const;
  QString workDir() const;

 private:
  QList<HostEntry> m_hosts;
  TargetConfig m_runTarget;
  QComboBox* m_host;
  QCheckBox* m_slurm;
  QLineEdit* m_workDir;
};

}  // namespace traindeck
