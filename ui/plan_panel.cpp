// What it shows is the document's plan, remade there on every change; this only words it.
#include "plan_panel.h"

#include <QComboBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QVBoxLayout>

#include "config/devices.h"
#include "config/planner.h"
#include "job_document.h"
#include "kind_fits_table.h"
#include "memory_bar.h"
#include "progress_text.h"
#include "runs/human_duration.h"
#include "value_label.h"

namespace traindeck {

namespace {
QString str(const std::string& s) {
  return QString::fromStdString(s);
}
void addDevice(QComboBox* chooser, const QString& name, const QString& description, int at = -1) {
  if (at < 0) at = chooser->count();
  chooser->insertItem(at, name, description);
  chooser->setItemData(at, description, Qt::ToolTipRole);
}
// Steps x step time, and what that costs in device-hours (every rank holds a device).
QString wholeRunText(const JobPlan& job) {
  const Plan& plan = job.plan;
  if (plan.stepSeconds <= 0 || job.totalSteps <= 0) return PlanPanel::tr("unknown");
  const double seconds = plan.stepSeconds * static_cast<double>(job.totalSteps);
  const double deviceHours = seconds * static_cast<double>(plan.worldSize) / 3600.0;
  return PlanPanel::tr("%1 for %2 steps · %3 %4")
      .arg(formatSeconds(seconds), str(formatThousands(job.totalSteps)))
      .arg(deviceHours, 0, 'g', 3)
      .arg(plan.device.isCpu ? PlanPanel::tr("CPU-hours (ranks × hours)") : PlanPanel::tr("GPU-hours"));
}
}  // namespace

PlanPanel::PlanPanel(JobDocument* document, QWidget* parent) : QWidget(parent), m_document(document) {
  setObjectName("plan");
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  auto* top = new QHBoxLayout;
  top->addWidget(new QLabel(tr("<b>Plan</b> for"), this));
  m_device = new QComboBox(this);
  m_device->setObjectName("planDevice");
  m_device->setToolTip(tr("The device each rank runs on, for the memory and speed estimates."));
  for (const DeviceSpec& d : knownDevices()) addDevice(m_device, str(d.name), str(d.description));
  addDevice(m_device, QStringLiteral("CPU"), str(thisMachineCpu().description));
  top->addWidget(m_device);
  top->addStretch(1);
  layout->addLayout(top);

  m_status = valueLabel("plan.status", this);
  layout->addWidget(m_status);
  m_details = new QWidget(this);
  auto* form = new QFormLayout(m_details);
  form->setContentsMargins(0, 0, 0, 0);
  m_parameters = valueLabel("plan.parameters", m_details);
  m_memory = valueLabel("plan.memory", m_details);
  m_tokensPerStep = valueLabel("plan.tokensPerStep", m_details);
  m_stepTime = valueLabel("plan.stepTime", m_details);
  m_throughput = valueLabel("plan.tokensPerSecond", m_details);
  m_wholeRun = valueLabel("plan.wholeRun", m_details);
  form->addRow(tr("Parameters"), m_parameters);
  form->addRow(tr("Memory per rank"), m_memory);
  m_bar = new MemoryBar(m_details);
  form->addRow(m_bar);
  m_kinds = new KindFitsTable(m_details);
  form->addRow(tr("By kind"), m_kinds);
  form->addRow(tr("Tokens per step"), m_tokensPerStep);
  form->addRow(tr("Step time (est.)"), m_stepTime);
  form->addRow(tr("Tokens/s (est.)"), m_throughput);
  form->addRow(tr("Whole run (est.)"), m_wholeRun);
  layout->addWidget(m_details);
  m_warning = valueLabel("plan.warning", this);
  m_warning->setStyleSheet(QStringLiteral("QLabel { color: #c0392b; font-weight: bold; }"));
  layout->addWidget(m_warning);
  m_notes = valueLabel("plan.notes", this);
  m_notes->setForegroundRole(QPalette::PlaceholderText);
  layout->addWidget(m_notes);
  layout->addStretch(1);

  connect(m_device, &QComboBox::currentTextChanged, m_document, &JobDocument::setPlanDevice);
  connect(m_document, &JobDocument::changed, this, &PlanPanel::showDocument);
  showDocument();
}

QString PlanPanel::deviceName() const {
  return m_device->currentText();
}

void PlanPanel::setDeviceName(const QString& name) {
  m_device->setCurrentText(name);
}

void PlanPanel::showDocument() {
  showDevices();
  m_warning->clear();
  m_notes->clear();
  const std::optional<JobPlan>& plan = m_document->plan();
  m_details->setVisible(plan.has_value());
  if (plan)
    showPlan(*plan);
  else
    m_status->setText(tr("Fix the model and strategy sections to see a plan."));
}

// The chooser: "host" first while the target is a probed host, and the document's device chosen.
void PlanPanel::showDevices() {
  const QSignalBlocker block(m_device);
  const std::optional<ProbedDevices>& host = m_document->targetHost();
  const bool hasHostItem = m_device->itemText(0) == JobDocument::kHostDevice;
  if (hasHostItem) m_device->removeItem(0);
  if (host)
    addDevice(m_device, JobDocument::kHostDevice, tr("%1: %2").arg(m_document->targetHostSpec(), host->label), 0);
  m_device->setCurrentText(m_document->planDevice());
}

void PlanPanel::showPlan(const JobPlan& job) {
  const Plan& plan = job.plan;
  const DeviceSpec& device = plan.device;
  const bool onHost = !job.hostSpec.isEmpty();
  auto bytes = [](std::int64_t b) { return str(formatBytes(b)); };
  m_status->setText(onHost ? tr("%1 rank(s) on %2 (%3)").arg(plan.worldSize).arg(job.hostSpec, job.hostLabel)
                           : tr("%1 rank(s) on %2").arg(plan.worldSize).arg(str(device.description)));
  m_parameters->setText(str(formatThousands(plan.parameters)));
  m_memory->setText(
      tr("%1 of %2 (%3)")
          .arg(bytes(plan.memory.total()), bytes(plan.memoryAvailable), plan.fits ? tr("fits") : tr("does not fit")));
  m_bar->setMemory(plan.memory, plan.memoryAvailable);
  const std::optional<LoadedConfig>& values = m_document->lastReadable();
  m_kinds->setFits(job.kinds, values ? values->config.strategy.kind : StrategyKind::Single);
  m_tokensPerStep->setText(str(formatThousands(plan.tokensPerStep)));
  const bool timed = plan.stepSeconds > 0;
  // Under a minute in seconds with 3 digits ("0.412 s"); longer as people say it ("1h59m", not "7.16e+03 s").
  const QString step = plan.stepSeconds < 60 ? tr("%1 s").arg(plan.stepSeconds, 0, 'g', 3) : humanDuration(plan.stepSeconds);
  m_stepTime->setText(timed ? tr("%1 at %2% utilization").arg(step).arg(plan.utilization * 100)
                            : tr("unknown (no peak for this precision on %1)").arg(str(device.name)));
  m_throughput->setText(timed ? str(formatThousands(static_cast<std::int64_t>(plan.tokensPerSecond))) : tr("unknown"));
  m_wholeRun->setText(wholeRunText(job));
  if (!plan.fits) {
    const QString usable = bytes(static_cast<std::int64_t>(plan.memoryAvailable * kUsableMemoryFraction));
    const QString head =
        tr("Does not fit: %1 per rank, %2 usable on %3.").arg(bytes(plan.memory.total()), usable, str(device.name));
    const QString change = plan.largestMicroBatch > 0
                               ? tr("The largest micro_batch that fits is %1.").arg(plan.largestMicroBatch)
                               : tr("Not even micro_batch 1 fits: try zero1, activation checkpointing, "
                                    "more ranks or a bigger device.");
    m_warning->setText(head + " " + change);
  }
  QStringList notes;
  if (onHost && !job.hostKnown)
    notes << tr("The host's GPU is not in the planner's table: memory as the host reports it, no speed estimate.");
  for (const std::string& n : plan.notes) notes << str(n);
  m_notes->setText(notes.join('\n'));
}

QString PlanPanel::summaryText() const {
  QStringList out{m_status->text()};
  if (m_document->plan()) {
    out << tr("Parameters: ") + m_parameters->text() << tr("Memory per rank: ") + m_memory->text()
        << tr("By kind: ") + m_kinds->rowTexts().join(QStringLiteral("; "))
        << tr("Tokens per step: ") + m_tokensPerStep->text() << tr("Step time: ") + m_stepTime->text()
        << tr("Tokens/s: ") + m_throughput->text() << tr("Whole run: ") + m_wholeRun->text();
  }
  if (!m_warning->text().isEmpty()) out << m_warning->text();
  if (!m_notes->text().isEmpty()) out << m_notes->text();
  return out.join('\n');
}

}  // namespace traindeck
