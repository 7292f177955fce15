// Continue on another host: which host (from Hosts…) and the work folder there. The folder is
// the job's own (config.yaml's target.remote_dir, as the run used it), shown and editable, so a
// run never lands in a default folder unasked.
#pragma once

#include <QDialog>
#include <QList>

#include "config/run_config.h"
#include "host_store.h"

class QComboBox;
class QLineEdit;

namespace traindeck {

class ContinueDialog : public QDialog {
  Q_OBJECT
 public:
  // `workDir`: the folder shown first (JobController::workDirOf).
  ContinueDialog(const QString& runDir, const QList<HostEntry>& hosts, const QString& workDir,
                 QWidget* parent = nullptr);

  // The host picked, as a target for JobController::continueOn (kind ssh, identity, proxy), and
  // the work folder there.
  TargetConfig target() const;
  QString workDir() const;

 private:
  QList<HostEntry> m_hosts;
  QComboBox* m_host;
  QLineEdit* m_workDir;
};

}  // namespace traindeck
