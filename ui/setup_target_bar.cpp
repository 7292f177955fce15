// Choosing another saved host aims the job at it as a continue does (targetOn): its key and
// proxy, and nothing left of the host chosen before; a Slurm job stays one, through the host.
#include "setup_target_bar.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QPushButton>

#include "config/devices.h"
#include "host_model.h"
#include "job_document.h"
#include "job_yaml_edit.h"

namespace traindeck {

namespace {

// " · 2 CUDA devices", as this machine's trainer found them; nothing while not known.
QString thisMachineGpus(const std::optional<HostDevices>& devices) {
  if (!devices) return {};
  if (devices->cudaDevices == 0) return SetupTargetBar::tr(" · no CUDA device that LibTorch can use");
  if (devices->cudaDevices == 1) return SetupTargetBar::tr(" · 1 CUDA device");
  return SetupTargetBar::tr(" · %1 CUDA devices").arg(devices->cudaDevices);
}

}  // namespace

SetupTargetBar::SetupTargetBar(JobDocument* document, QWidget* parent) : QWidget(parent), m_document(document) {
  auto* layout = new QHBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(new QLabel(tr("Where to run:"), this));
  m_target = new QComboBox(this);
  m_target->setObjectName("targetChooser");
  m_target->setToolTip(tr("This machine, or a host saved under Hosts… (target.kind, target.host)."));
  m_target->setSizeAdjustPolicy(QComboBox::AdjustToContents);
  layout->addWidget(m_target);
  auto* hosts = new QPushButton(tr("Hosts…"), this);
  hosts->setObjectName("hostsButton");
  hosts->setToolTip(tr("Add, edit and test SSH hosts (cloud VMs, Colab runtimes)."));
  layout->addWidget(hosts);
  m_info = new QLabel(this);
  m_info->setObjectName("targetProbe");
  m_info->setTextInteractionFlags(Qt::TextSelectableByMouse);
  layout->addWidget(m_info, 1);
  connect(hosts, &QPushButton::clicked, this, &SetupTargetBar::hostsRequested);
  connect(m_target, &QComboBox::activated, this, &SetupTargetBar::choose);
  connect(m_document, &JobDocument::changed, this, &SetupTargetBar::showDocument);
  showDocument();
}

void SetupTargetBar::setHosts(const QList<HostEntry>& hosts, const QMap<QString, HostStore::StoredProbe>& probes) {
  m_hosts = hosts;
  m_probes = probes;
  showDocument();
}

void SetupTargetBar::showDocument() {
  const TargetConfig t = m_document->lastReadable() ? m_document->lastReadable()->config.target : TargetConfig{};
  const bool remote = isRemote(t.kind);
  const bool slurm = t.kind == TargetKind::Slurm;
  const QString spec = QString::fromStdString(t.host);
  const QSignalBlocker block(m_target);
  m_target->clear();
  m_target->addItem(tr("This machine"));
  int current = 0;
  for (const HostEntry& h : m_hosts) {
    const bool chosen = remote && h.spec == spec;
    // The login node of a Slurm job says so: the job goes to its cluster, not to it.
    m_target->addItem(
        chosen && slurm ? tr("Slurm through %1 (%2)").arg(h.name, h.spec) : tr("%1 (%2)").arg(h.name, h.spec), h.spec);
    if (chosen) current = m_target->count() - 1;
  }
  if (remote && current == 0) {  // a host the config names that is not saved under Hosts…
    m_target->addItem(
        slurm ? tr("Slurm through %1 (not under Hosts…)").arg(spec) : tr("%1 (not under Hosts…)").arg(spec), spec);
    current = m_target->count() - 1;
  }
  m_target->setCurrentIndex(current);
  const auto probe = m_probes.constFind(spec);
  if (!remote)
    m_info->setText(QString::fromStdString(thisMachineCpu().description) + thisMachineGpus(m_document->thisMachine()));
  else if (probe == m_probes.constEnd())
    m_info->setText(tr("not probed yet: Test it under Hosts…, or Start probes it"));
  else
    m_info->setText(
        tr("%1 (as of %2)")
            .arg(probedDevices(probe->probe).label, QLocale().toString(probe->at.toLocalTime(), QLocale::ShortFormat)));
}

void SetupTargetBar::choose(int index) {
  if (index <= 0) {
    m_document->setValues({{"target.kind", "local"}});
    return;
  }
  // One choice, one edit: a single Undo takes all of it back.
  const QString spec = m_target->itemData(index).toString();
  const TargetConfig before = m_document->lastReadable() ? m_document->lastReadable()->config.target : TargetConfig{};
  // A Slurm job stays one: the host chosen is its login node.
  const QString kind = before.kind == TargetKind::Slurm ? QStringLiteral("slurm") : QStringLiteral("ssh");
  KeyEdits edits{{"target.kind", kind}, {"target.host", yamlScalar(spec)}};
  for (const HostEntry& h : m_hosts) {
    if (h.spec != spec) continue;
    // Another saved host, as a continue aims at one (targetOn): its key and proxy, and no user,
    // port or node list left from the host chosen before (the same one chosen again keeps them).
    const TargetConfig aimed = targetOn(h, before);
    edits.append({"target.identity", yamlScalar(QString::fromStdString(aimed.identity))});
    edits.append({"target.proxy_command", yamlScalar(QString::fromStdString(aimed.proxy_command))});
    if (before.host == aimed.host) break;
    if (before.user != aimed.user) edits.append({"target.user", yamlScalar(QString::fromStdString(aimed.user))});
    if (before.port != aimed.port) edits.append({"target.port", QString::number(aimed.port)});
    if (before.hosts != aimed.hosts) edits.append({"target.hosts", yamlScalar(QString::fromStdString(aimed.hosts))});
    if (before.node_address != aimed.node_address)
      edits.append({"target.node_address", yamlScalar(QString::fromStdString(aimed.node_address))});
  }
  m_document->setValues(edits);
}

}  // namespace traindeck
