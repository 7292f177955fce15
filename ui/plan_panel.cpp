// Planning is cheap (closed-form arithmetic in core/config/planner.cpp), so it runs on the GUI
// thread on every change.
#include "plan_panel.h"

#include <QComboBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QVBoxLayout>

#include "config/devices.h"
#include "config/planner.h"
#include "config/run_steps.h"
#include "kind_fits_table.h"
#include "memory_bar.h"
#include "progress_text.h"
#include "runs/human_duration.h"

namespace traindeck {

namespace {
QString str(const std::string& s) {
  return QString::fromStdString(s);
}
QLabel* valueLabel(const QString& name, QWidget* parent) {
  auto* label = new QLabel(parent);
  label->setObjectName(name);
  label->setTextInteractionFlags(Qt::TextSelectableByMouse);
  label->setWordWrap(true);
  return label;
}
}  // namespace

PlanPanel::PlanPanel(QWidget* parent) : QWidget(parent) {
  setObjectName("plan");
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  auto* top = new QHBoxLayout;
  top->addWidget(new QLabel(tr("<b>Plan</b> for"), this));
  m_device = new QComboBox(this);
  m_device->setObjectName("planDevice");
  m_device->setToolTip(tr("The device each rank runs on, for the memory and speed estimates."));
  for (const DeviceSpec& d : knownDevices()) m_device->addItem(str(d.name), str(d.description));
  m_device->addItem(QStringLiteral("CPU"), str(thisMachineCpu().description));
  for (int i = 0; i < m_device->count(); ++i) m_device->setItemData(i, m_device->itemData(i), Qt::ToolTipRole);
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

  connect(m_device, &QComboBox::currentTextChanged, this, [this] { replan(); });
  setConfig(std::nullopt);
}

QString PlanPanel::deviceName() const {
  return m_device->currentText();
}
void PlanPanel::setDeviceName(const QString& name) {
  m_device->setCurrentText(name);
}

namespace {
const QString kHostItem = QStringLiteral("host");
}

void PlanPanel::setHost(const std::optional<ProbedDevices>& devices, const QString& spec) {
  const bool had = m_host.has_value();
  if (had == devices.has_value() && m_hostSpec == spec && (!devices || devices->label == m_host->label)) return;
  m_host = devices;
  m_hostSpec = spec;
  const QSignalBlocker block(m_device);
  if (had) m_device->removeItem(0);
  if (devices) {
    const QString description = tr("%1: %2").arg(spec, devices->label);
    m_device->insertItem(0, kHostItem, description);
    m_device->setItemData(0, description, Qt::ToolTipRole);
    m_device->setCurrentIndex(0);
  } else if (had) {
    m_plannedKind.reset();  // the default device is picked again
  }
  if (m_config && !devices) setConfig(m_config);
  replan();
}

void PlanPanel::setConfig(const std::optional<RunConfig>& config) {
  m_config = config;
  // CPU jobs are planned on this machine, CUDA (or auto) jobs on an H100, until the user picks.
  if (config && m_plannedKind != config->strategy.device && !m_host) {
    m_plannedKind = config->strategy.device;
    const QSignalBlocker block(m_device);
    m_device->setCurrentText(config->strategy.device == DeviceKind::Cpu ? QStringLiteral("CPU")
                                                                        : QStringLiteral("H100"));
  }
  replan();
}

QString PlanPanel::wholeRunText(const Plan& plan, const DeviceSpec& device) const {
  // Steps x step time, and what that costs in device-hours (every rank holds a device).
  const std::int64_t steps = totalSteps(*m_config);
  if (plan.stepSeconds <= 0 || steps <= 0) return tr("unknown");
  const double seconds = plan.stepSeconds * static_cast<double>(steps);
  const double deviceHours = seconds * static_cast<double>(plan.worldSize) / 3600.0;
  return tr("%1 for %2 steps · %3 %4")
      .arg(formatSeconds(seconds), str(formatThousands(steps)))
      .arg(deviceHours, 0, 'g', 3)
      .arg(device.isCpu ? tr("CPU-hours (ranks × hours)") : tr("GPU-hours"));
}

void PlanPanel::replan() {
  m_details->setVisible(m_config.has_value());
  m_warning->clear();
  m_notes->clear();
  FitProblem fit;
  const auto announce = [this](const FitProblem& now) {
    if (now == m_fitProblem) return;
    m_fitProblem = now;
    emit fitProblemChanged();
  };
  if (!m_config) {
    m_status->setText(tr("Fix the model and strategy sections to see a plan."));
    announce(fit);
    return;
  }
  const QString name = m_device->currentText();
  const bool onHost = m_host && name == kHostItem;
  const DeviceSpec device = onHost          ? m_host->device
                            : name == "CPU" ? thisMachineCpu()
                                            : findDevice(name.toStdString()).value_or(thisMachineCpu());
  const Plan plan = makePlan(*m_config, device);
  auto bytes = [](std::int64_t b) { return str(formatBytes(b)); };
  m_status->setText(onHost ? tr("%1 rank(s) on %2 (%3)").arg(plan.worldSize).arg(m_hostSpec, m_host->label)
                           : tr("%1 rank(s) on %2").arg(plan.worldSize).arg(str(device.description)));
  m_parameters->setText(str(formatThousands(plan.parameters)));
  m_memory->setText(
      tr("%1 of %2 (%3)")
          .arg(bytes(plan.memory.total()), bytes(plan.memoryAvailable), plan.fits ? tr("fits") : tr("does not fit")));
  m_bar->setMemory(plan.memory, plan.memoryAvailable);
  m_kinds->setFits(planEachKind(*m_config, device), m_config->strategy.kind);
  m_tokensPerStep->setText(str(formatThousands(plan.tokensPerStep)));
  const bool timed = plan.stepSeconds > 0;
  // Under a minute in seconds with 3 digits ("0.412 s"); longer as people say it ("1h59m", not "7.16e+03 s").
  const QString step = plan.stepSeconds < 60 ? tr("%1 s").arg(plan.stepSeconds, 0, 'g', 3) : humanDuration(plan.stepSeconds);
  m_stepTime->setText(timed ? tr("%1 at %2% utilization").arg(step).arg(plan.utilization * 100)
                            : tr("unknown (no peak for this precision on %1)").arg(str(device.name)));
  m_throughput->setText(timed ? str(formatThousands(static_cast<std::int64_t>(plan.tokensPerSecond))) : tr("unknown"));
  m_wholeRun->setText(wholeRunText(plan, device));
  if (!plan.fits) {
    const QString usable = bytes(static_cast<std::int64_t>(plan.memoryAvailable * kUsableMemoryFraction));
    const QString head =
        tr("Does not fit: %1 per rank, %2 usable on %3.").arg(bytes(plan.memory.total()), usable, str(device.name));
    const QString change = plan.largestMicroBatch > 0
                               ? tr("The largest micro_batch that fits is %1.").arg(plan.largestMicroBatch)
                               : tr("Not even micro_batch 1 fits: try zero1, activation checkpointing, "
                                    "more ranks or a bigger device.");
    m_warning->setText(head + " " + change);
    fit.message = tr("does not fit in memory as planned: %1 per rank, %2 usable on %3")
                      .arg(bytes(plan.memory.total()), usable, onHost ? m_hostSpec : str(device.name));
    fit.hint = plan.largestMicroBatch > 0 ? tr("use micro_batch %1 or less, or a bigger device (the plan's device "
                                               "chooser)")
                                                .arg(plan.largestMicroBatch)
                                          : tr("try zero1, activation checkpointing, more ranks or a bigger device");
  }
  announce(fit);
  QStringList notes;
  if (onHost && !m_host->known)
    notes << tr("The host's GPU is not in the planner's table: memory as the host reports it, no speed estimate.");
  for (const std::string& n : plan.notes) notes << str(n);
  m_notes->setText(notes.join('\n'));
}

QString PlanPanel::summaryText() const {
  QStringList out{m_status->text()};
  if (m_details->isVisibleTo(this) || m_config) {
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
