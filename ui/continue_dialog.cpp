#include "continue_dialog.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QFileInfo>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QVBoxLayout>
#include <algorithm>

#include "host_model.h"
#include "jobs/checkpoint_sync.h"

namespace traindeck {

ContinueDialog::ContinueDialog(const QString& runDir, const QList<HostEntry>& hosts, const QString& workDir,
                               const TargetConfig& runTarget, QWidget* parent)
    : QDialog(parent), m_hosts(hosts), m_runTarget(runTarget) {
  setObjectName("continueDialog");
  setWindowTitle(tr("Continue on another host"));
  auto* layout = new QVBoxLayout(this);
  auto* intro = new QLabel(tr("%1 continues from its last checkpoint here, %2.")
                               .arg(QFileInfo(runDir).fileName(), CheckpointSync::newestCheckpoint(runDir)),
                           this);
  intro->setWordWrap(true);
  layout->addWidget(intro);
  auto* form = new QFormLayout;
  m_host = new QComboBox(this);
  m_host->setObjectName("continueHost");
  for (const HostEntry& h : hosts) m_host->addItem(QStringLiteral("%1 (%2)").arg(h.name, h.spec));
  form->addRow(tr("Host:"), m_host);
  m_workDir = new QLineEdit(workDir, this);
  m_workDir->setObjectName("continueWorkDir");
  m_workDir->setToolTip(
      tr("The folder on that host for the trainer, the job's data and the run (the job's target.remote_dir). "
         "Pick one on a disk with room for the checkpoints."));
  form->addRow(tr("Work folder there:"), m_workDir);
  m_slurm = new QCheckBox(tr("Submit as a Slurm job (the host is the cluster's login node)"), this);
  m_slurm->setObjectName("continueAsSlurm");
  m_slurm->setChecked(runTarget.kind == TargetKind::Slurm);
  m_slurm->setToolTip(tr("The run's own Slurm settings (partition, account, time limit, GPUs per node) are kept; "
                         "its work folder must be on the cluster's shared file system."));
  form->addRow(QString(), m_slurm);
  layout->addLayout(form);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
  buttons->button(QDialogButtonBox::Ok)->setText(tr("Continue"));
  connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  connect(m_workDir, &QLineEdit::textChanged, this, [buttons](const QString& text) {
    buttons->button(QDialogButtonBox::Ok)->setEnabled(!text.trimmed().isEmpty());
  });
  layout->addWidget(buttons);
}

TargetConfig ContinueDialog::target() const {
  const HostEntry& host = m_hosts.at(std::max(0, m_host->currentIndex()));
  TargetConfig target = targetOn(host, m_runTarget);  // its login shell and Slurm settings kept
  target.kind = m_slurm->isChecked() ? TargetKind::Slurm : TargetKind::Ssh;
  return target;
}

QString ContinueDialog::workDir() const {
  return m_workDir->text().trimmed();
}

}  // namespace traindeck
