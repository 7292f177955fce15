// Reads the chosen job through core/config (load, validate, plan) and lays the results out.
#include "main_window.h"

#include <QComboBox>
#include <QFile>
#include <QFileInfo>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QSplitter>
#include <QStatusBar>
#include <QVBoxLayout>

#include "config/config_io.h"
#include "config/enum_names.h"
#include "config/planner.h"
#include "config/preset_files.h"
#include "config/validate.h"

namespace traindeck {

namespace {
std::vector<std::string> toStd(const QStringList& list) {
  std::vector<std::string> out;
  for (const QString& s : list) out.push_back(s.toStdString());
  return out;
}
}  // namespace

MainWindow::MainWindow(const QStringList& presetDirs, const QString& configPath, QWidget* parent)
    : QMainWindow(parent), m_presetDirs(presetDirs) {
  setWindowTitle(tr("TrainDeck"));
  auto* central = new QWidget(this);
  auto* layout = new QVBoxLayout(central);

  auto* top = new QHBoxLayout;
  top->addWidget(new QLabel(tr("Job preset:"), central));
  m_presets = new QComboBox(central);
  m_presets->setObjectName("presetChooser");
  m_presets->setToolTip(tr("A bundled job to start from; its YAML, problems and plan show below."));
  for (const std::string& name : listPresets(toStd(m_presetDirs))) m_presets->addItem(QString::fromStdString(name));
  top->addWidget(m_presets, 1);
  layout->addLayout(top);

  auto* splitter = new QSplitter(Qt::Horizontal, central);
  m_yaml = new QPlainTextEdit(splitter);
  m_yaml->setObjectName("yaml");
  m_yaml->setReadOnly(true);
  m_yaml->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  m_yaml->setToolTip(tr("The job as YAML, as traindeck-train reads it."));

  auto* side = new QWidget(splitter);
  auto* sideLayout = new QVBoxLayout(side);
  sideLayout->setContentsMargins(0, 0, 0, 0);
  sideLayout->addWidget(new QLabel(tr("<b>Problems</b>"), side));
  m_problems = new QListWidget(side);
  m_problems->setObjectName("problems");
  m_problems->setWordWrap(true);
  m_problems->setToolTip(tr("Everything wrong with the job, with its line in the YAML."));
  sideLayout->addWidget(m_problems, 1);
  sideLayout->addWidget(new QLabel(tr("<b>Plan</b>"), side));
  m_plan = new QLabel(side);
  m_plan->setObjectName("plan");
  m_plan->setTextFormat(Qt::RichText);
  m_plan->setAlignment(Qt::AlignTop | Qt::AlignLeft);
  m_plan->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_plan->setToolTip(tr("Parameters, memory per device and speed, before anything runs."));
  sideLayout->addWidget(m_plan, 2);
  splitter->addWidget(m_yaml);
  splitter->addWidget(side);
  splitter->setStretchFactor(0, 3);
  splitter->setStretchFactor(1, 2);
  layout->addWidget(splitter, 1);
  setCentralWidget(central);

  connect(m_presets, &QComboBox::currentTextChanged, this, [this](const QString& name) {
    if (const auto path = resolveConfigPath(name.toStdString(), toStd(m_presetDirs)))
      openConfig(QString::fromStdString(*path));
  });
  const auto first = resolveConfigPath(configPath.toStdString(), toStd(m_presetDirs));
  openConfig(first ? QString::fromStdString(*first) : configPath);
  resize(1280, 800);
}

void MainWindow::openConfig(const QString& path) {
  m_configPath = path;
  const QString stem = QFileInfo(path).completeBaseName();
  if (const int index = m_presets->findText(stem); index >= 0 && index != m_presets->currentIndex()) {
    const QSignalBlocker block(m_presets);
    m_presets->setCurrentIndex(index);
  }
  QFile file(path);
  m_yaml->setPlainText(file.open(QIODevice::ReadOnly) ? QString::fromUtf8(file.readAll()) : QString());
  showProblemsAndPlan();
}

void MainWindow::showProblemsAndPlan() {
  const LoadedConfig loaded = loadConfigFile(m_configPath.toStdString());
  ValidationContext validation;  // this app has no LibTorch: CUDA devices are not probed here
  const Diagnostics problems = checkConfig(loaded, validation);
  m_problems->clear();
  for (const Diagnostic& d : problems) {
    auto* item = new QListWidgetItem(QString::fromStdString(d.format(QFileInfo(m_configPath).fileName().toStdString())));
    item->setForeground(d.severity == Severity::Error ? QColor(0xc0, 0x39, 0x2b) : QColor(0xb9, 0x77, 0x0e));
    m_problems->addItem(item);
  }
  if (problems.empty()) m_problems->addItem(tr("No problems: the job is valid."));

  if (hasErrors(problemsIn(problems, {"model", "strategy"}))) {
    m_plan->setText(tr("Fix the model and strategy sections to see a plan."));
    return;
  }
  const RunConfig& c = loaded.config;
  const bool cuda = c.strategy.device == DeviceKind::Cuda;
  const DeviceSpec device = cuda ? *findDevice("H100") : thisMachineCpu();
  const Plan plan = makePlan(c, device);
  const MemoryBreakdown& m = plan.memory;
  auto bytes = [](std::int64_t b) { return QString::fromStdString(formatBytes(b)); };
  QString html = QStringLiteral("<table cellspacing=4>");
  auto row = [&html](const QString& k, const QString& v) { html += "<tr><td>" + k + "</td><td><b>" + v + "</b></td></tr>"; };
  row(tr("Device"), QString::fromStdString(device.description));
  row(tr("Parameters"), QString::fromStdString(formatThousands(plan.parameters)));
  row(tr("Ranks"), QString::number(plan.worldSize));
  row(tr("Tokens per step"), QString::fromStdString(formatThousands(plan.tokensPerStep)));
  row(tr("Weights + gradients"), bytes(m.weights + m.gradients));
  row(tr("Optimizer state"), bytes(m.optimizer));
  row(tr("Activations"), bytes(m.activations));
  row(tr("Total per rank"), bytes(m.total()) + " / " + bytes(plan.memoryAvailable) +
                                (plan.fits ? tr(" (fits)") : tr(" (does not fit)")));
  if (plan.stepSeconds > 0) row(tr("Step time (est.)"), QString::number(plan.stepSeconds, 'g', 3) + " s");
  html += "</table>";
  m_plan->setText(html);
  statusBar()->showMessage(m_configPath);
}

}  // namespace traindeck
