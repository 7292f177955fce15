// Sync rules: the YAML text is the truth. A form edit becomes a minimal edit of the YAML and
// is parsed at once; typing in the YAML is parsed 300 ms after the last key. A YAML that
// cannot be read at all leaves the form, plan and config() at the last readable one.
#include "setup_page.h"

#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QInputDialog>
#include <QLabel>
#include <QListWidget>
#include <QLocale>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSaveFile>
#include <QScrollBar>
#include <QSplitter>
#include <QTextBlock>
#include <QTimer>
#include <QVBoxLayout>

#include "config/devices.h"
#include "config/preset_files.h"
#include "config/validate.h"
#include "config_form.h"
#include "export_dialog.h"
#include "plan_panel.h"
#include "prepare_dialog.h"
#include "probed_devices.h"
#include "runlog/run_directory.h"
#include "setup_yaml_edit.h"

namespace traindeck {

namespace {

const QColor kErrorColor(0xc0, 0x39, 0x2b);
const QColor kWarningColor(0xd6, 0x8a, 0x10);

std::vector<std::string> toStd(const QStringList& list) {
  std::vector<std::string> out;
  for (const QString& s : list) out.push_back(s.toStdString());
  return out;
}

bool unreadable(const Diagnostics& problems) {  // a problem with the file as a whole
  for (const Diagnostic& d : problems)
    if (d.severity == Severity::Error && d.path.empty()) return true;
  return false;
}

// " · 2 CUDA devices", as this machine's trainer found them; nothing while not known.
QString thisMachineGpus(const std::optional<HostDevices>& devices) {
  if (!devices) return {};
  if (devices->cudaDevices == 0) return SetupPage::tr(" · no CUDA device that LibTorch can use");
  if (devices->cudaDevices == 1) return SetupPage::tr(" · 1 CUDA device");
  return SetupPage::tr(" · %1 CUDA devices").arg(devices->cudaDevices);
}

QLabel* heading(const QString& text, QWidget* parent) {
  auto* label = new QLabel("<b>" + text + "</b>", parent);
  return label;
}

}  // namespace

SetupPage::SetupPage(const QStringList& presetDirs, QWidget* parent)
    : QWidget(parent), m_presetDirs(presetDirs), m_baseDir(QDir::currentPath()) {
  setObjectName("setupPage");
  auto* layout = new QVBoxLayout(this);

  auto* where = new QHBoxLayout;
  where->addWidget(new QLabel(tr("Where to run:"), this));
  m_target = new QComboBox(this);
  m_target->setObjectName("targetChooser");
  m_target->setToolTip(tr("This machine, or a host saved under Hosts… (target.kind, target.host)."));
  m_target->setSizeAdjustPolicy(QComboBox::AdjustToContents);
  where->addWidget(m_target);
  auto* hosts = new QPushButton(tr("Hosts…"), this);
  hosts->setObjectName("hostsButton");
  hosts->setToolTip(tr("Add, edit and test SSH hosts (cloud VMs, Colab runtimes)."));
  where->addWidget(hosts);
  m_targetInfo = new QLabel(this);
  m_targetInfo->setObjectName("targetProbe");
  m_targetInfo->setTextInteractionFlags(Qt::TextSelectableByMouse);
  where->addWidget(m_targetInfo, 1);
  layout->addLayout(where);
  connect(hosts, &QPushButton::clicked, this, &SetupPage::hostsRequested);
  connect(m_target, &QComboBox::activated, this, &SetupPage::chooseTarget);

  auto* top = new QHBoxLayout;
  top->addWidget(new QLabel(tr("Preset:"), this));
  m_presets = new QComboBox(this);
  m_presets->setObjectName("presetChooser");
  m_presets->setPlaceholderText(tr("Start from a preset…"));
  m_presets->setToolTip(tr("A bundled job to start from; choosing one replaces the YAML."));
  for (const std::string& name : listPresets(toStd(m_presetDirs))) m_presets->addItem(QString::fromStdString(name));
  m_presets->setCurrentIndex(-1);
  top->addWidget(m_presets);
  auto* open = new QPushButton(tr("Open…"), this);
  open->setObjectName("openButton");
  open->setToolTip(tr("Open a job YAML file."));
  auto* fromRun = new QPushButton(tr("From run…"), this);
  fromRun->setToolTip(tr("Start a new job from an old run's config.yaml."));
  auto* save = new QPushButton(tr("Save…"), this);
  save->setObjectName("saveButton");
  save->setToolTip(tr("Save the YAML to a file."));
  auto* exportJob = new QPushButton(tr("Export…"), this);
  exportJob->setObjectName("exportJobButton");
  exportJob->setToolTip(
      tr("The job as a notebook and a script for Colab, Kaggle or a VM: TrainDeck's trainer, PyTorch DDP, "
         "PyTorch/XLA or Keras."));
  top->addWidget(open);
  top->addWidget(fromRun);
  top->addWidget(save);
  top->addWidget(exportJob);
  m_fileLabel = new QLabel(this);
  m_fileLabel->setObjectName("fileLabel");
  m_fileLabel->setForegroundRole(QPalette::PlaceholderText);
  top->addWidget(m_fileLabel, 1);
  layout->addLayout(top);

  auto* splitter = new QSplitter(Qt::Horizontal, this);
  m_form = new ConfigForm(splitter);

  auto* yamlSide = new QWidget(splitter);
  auto* yamlLayout = new QVBoxLayout(yamlSide);
  yamlLayout->setContentsMargins(0, 0, 0, 0);
  yamlLayout->addWidget(heading(tr("YAML"), yamlSide));
  m_yaml = new QPlainTextEdit(yamlSide);
  m_yaml->setObjectName("yaml");
  m_yaml->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  m_yaml->setLineWrapMode(QPlainTextEdit::NoWrap);
  m_yaml->setToolTip(tr("The job as YAML, as traindeck-train reads it; edits here update the form."));
  yamlLayout->addWidget(m_yaml, 1);
  m_yamlError = new QLabel(yamlSide);
  m_yamlError->setObjectName("yamlError");
  m_yamlError->setWordWrap(true);
  m_yamlError->setStyleSheet(QStringLiteral("QLabel { color: %1; }").arg(kErrorColor.name()));
  m_yamlError->hide();
  yamlLayout->addWidget(m_yamlError);

  auto* side = new QSplitter(Qt::Vertical, splitter);
  auto* problemsBox = new QWidget(side);
  auto* problemsLayout = new QVBoxLayout(problemsBox);
  problemsLayout->setContentsMargins(0, 0, 0, 0);
  problemsLayout->addWidget(heading(tr("Problems"), problemsBox));
  m_problemList = new QListWidget(problemsBox);
  m_problemList->setObjectName("problems");
  m_problemList->setWordWrap(true);
  m_problemList->setToolTip(tr("Everything wrong with the job; click one to go to its field."));
  problemsLayout->addWidget(m_problemList, 1);
  m_plan = new PlanPanel(side);
  side->addWidget(problemsBox);
  side->addWidget(m_plan);
  side->setStretchFactor(0, 1);
  side->setStretchFactor(1, 2);
  splitter->addWidget(m_form);
  splitter->addWidget(yamlSide);
  splitter->addWidget(side);
  // The form first: its labels and path fields need the room; the YAML reads fine narrower.
  splitter->setStretchFactor(0, 5);
  splitter->setStretchFactor(1, 3);
  splitter->setStretchFactor(2, 3);
  splitter->setSizes({560, 320, 380});  // proportions; the real widths follow the page's
  layout->addWidget(splitter, 1);

  m_debounce = new QTimer(this);
  m_debounce->setSingleShot(true);
  m_debounce->setInterval(300);
  connect(m_debounce, &QTimer::timeout, this, [this] { reparse(); });
  connect(m_yaml, &QPlainTextEdit::textChanged, this, [this] {
    if (!m_settingText) m_debounce->start();
  });
  connect(m_form, &ConfigForm::fieldEdited, this, &SetupPage::applyFieldEdit);
  connect(m_problemList, &QListWidget::itemClicked, this, &SetupPage::problemActivated);
  connect(m_problemList, &QListWidget::itemActivated, this, &SetupPage::problemActivated);
  connect(m_form, &ConfigForm::prepareRequested, this, [this] { openPrepareDialog(); });
  connect(m_presets, &QComboBox::activated, this, [this](int index) { choosePreset(m_presets->itemText(index)); });
  connect(open, &QPushButton::clicked, this, [this] { openFile(); });
  connect(fromRun, &QPushButton::clicked, this, [this] { newFromConfig(); });
  connect(save, &QPushButton::clicked, this, [this] { saveFile(m_filePath); });
  connect(exportJob, &QPushButton::clicked, this, [this] { openExportDialog(); });

  loadText(QString::fromStdString(saveConfigText(RunConfig{})), {}, QDir::currentPath());
}

QString SetupPage::yamlText() const {
  return m_yaml->toPlainText();
}

void SetupPage::setYamlText(const QString& text) {
  m_settingText = true;
  m_yaml->setPlainText(text);
  m_settingText = false;
  m_debounce->stop();
  reparse();
}

bool SetupPage::mayReplaceEdits() {
  if (!isModified() || !isVisible()) return true;
  const auto answer =
      QMessageBox::question(this, tr("Unsaved changes"), tr("The job has changes that are not saved. Save them first?"),
                            QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel, QMessageBox::Save);
  if (answer == QMessageBox::Cancel) return false;
  return answer == QMessageBox::Discard || saveFile(m_filePath);
}

void SetupPage::loadText(const QString& text, const QString& filePath, const QString& baseDir) {
  m_filePath = filePath;
  m_baseDir = baseDir;
  m_fileLabel->setText(filePath.isEmpty() ? tr("(not saved)") : QDir::toNativeSeparators(filePath));
  setYamlText(text);
  m_savedText = yamlText();
}

std::optional<QString> SetupPage::readFile(const QString& file) {
  QFile in(file);
  if (!in.open(QIODevice::ReadOnly)) {
    m_fileLabel->setText(tr("Could not open %1: %2").arg(file, in.errorString()));
    return std::nullopt;
  }
  return QString::fromUtf8(in.readAll());
}

void SetupPage::openFile(const QString& path) {
  const QString file = path.isEmpty() ? QFileDialog::getOpenFileName(this, tr("Open job"), m_baseDir,
                                                                     tr("YAML files (*.yaml *.yml);;All files (*)"))
                                      : path;
  if (file.isEmpty() || !mayReplaceEdits()) return;
  if (const auto text = readFile(file)) {
    loadText(*text, QFileInfo(file).absoluteFilePath(), QFileInfo(file).absolutePath());
    const QSignalBlocker block(m_presets);
    m_presets->setCurrentIndex(-1);  // a file, not a preset
    m_presetName.clear();
  }
}

bool SetupPage::saveFile(const QString& path) {
  const QString file =
      path.isEmpty() ? QFileDialog::getSaveFileName(this, tr("Save job"), m_baseDir, tr("YAML files (*.yaml *.yml)"))
                     : path;
  if (file.isEmpty()) return false;
  QSaveFile out(file);  // temp file + rename, as saveConfigFile does
  QString text = yamlText();
  if (!text.endsWith('\n')) text += '\n';
  if (!out.open(QIODevice::WriteOnly) || out.write(text.toUtf8()) < 0 || !out.commit()) {
    m_fileLabel->setText(tr("Could not save %1: %2").arg(file, out.errorString()));
    return false;
  }
  m_filePath = QFileInfo(file).absoluteFilePath();
  m_baseDir = QFileInfo(file).absolutePath();
  m_fileLabel->setText(QDir::toNativeSeparators(m_filePath));
  m_savedText = yamlText();
  return true;
}

PrepareDialog* SetupPage::openPrepareDialog() {
  const RunConfig expanded = withExpandedPaths(m_loaded.config, m_baseDir.toStdString(), processEnvironment());
  auto* dialog = new PrepareDialog(m_trainBinary, expanded.data, QDir(m_baseDir).filePath("tokens"), this);
  dialog->setAttribute(Qt::WA_DeleteOnClose);
  connect(dialog, &PrepareDialog::prepared, this,
          [this](const QString& dir) { applyFieldEdit("data.train", yamlScalar(dir)); });
  dialog->open();
  return dialog;
}

ExportDialog* SetupPage::openExportDialog() {
  ExportRequest request;
  request.config = m_loaded.config;
  request.baseDir = m_baseDir.toStdString();
  request.source = m_filePath.isEmpty()
                       ? (m_presetName.isEmpty() ? std::string("the Setup page") : m_presetName.toStdString())
                       : QFileInfo(m_filePath).fileName().toStdString();
  request.trainerSources = m_trainerSources.toStdString();
  auto* dialog = new ExportDialog(request, QDir(m_baseDir).filePath("exports"), this);
  dialog->setAttribute(Qt::WA_DeleteOnClose);
  dialog->open();
  return dialog;
}

void SetupPage::setRunsRoot(const QString& dir) {
  m_runsRoot = dir;
  m_form->setFieldNote("runs_root", dir.isEmpty() ? QString()
                                                  : tr("This app keeps its runs in %1 (--runs-root); runs_root is "
                                                       "where traindeck-train run puts them without --run-dir.")
                                                        .arg(QDir::toNativeSeparators(dir)));
}

QList<QPair<QString, QString>> SetupPage::runChoices() const {
  QList<QPair<QString, QString>> out;
  if (m_runsRoot.isEmpty()) return out;
  const QDir root(m_runsRoot);
  QStringList ids = root.entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name | QDir::Reversed);
  for (const QString& id : ids) {
    const QString dir = root.filePath(id);
    if (!QFileInfo::exists(dir + "/config.yaml")) continue;
    const RunInfoReadResult read = readRunInfo(RunPaths{dir.toStdString()});
    const QString name = read.ok() ? QString::fromStdString(read.info.name) : id;
    out.append({QStringLiteral("%1 — %2").arg(name, id), dir});
  }
  return out;
}

void SetupPage::newFromConfig(const QString& path) {
  const QString file = path.isEmpty() ? chooseRunConfig() : path;
  if (file.isEmpty() || !mayReplaceEdits()) return;
  {
    const QSignalBlocker block(m_presets);
    m_presets->setCurrentIndex(-1);
    m_presetName.clear();
  }
  // Its paths are already absolute (a run records them expanded); saving asks for a new file.
  if (const auto text = readFile(file)) loadText(*text, {}, QFileInfo(file).absolutePath());
}

QString SetupPage::chooseRunConfig() {
  const QList<QPair<QString, QString>> runs = runChoices();
  if (runs.isEmpty())  // no runs here yet: any run's config.yaml, from a file dialog
    return QFileDialog::getOpenFileName(this, tr("Start from a run's config"),
                                        m_runsRoot.isEmpty() ? m_baseDir : m_runsRoot,
                                        tr("Run config (config.yaml);;YAML files (*.yaml)"));
  QStringList items;
  for (const auto& run : runs) items << run.first;
  bool ok = false;
  const QString item =
      QInputDialog::getItem(this, tr("From run"), tr("Start a new job from the settings of:"), items, 0, false, &ok);
  if (!ok) return {};
  return runs.at(static_cast<int>(items.indexOf(item))).second + "/config.yaml";
}

void SetupPage::choosePreset(const QString& name) {
  const auto path = resolveConfigPath(name.toStdString(), toStd(m_presetDirs));
  if (!path || !mayReplaceEdits()) {
    const QSignalBlocker block(m_presets);
    m_presets->setCurrentIndex(m_presets->findText(m_presetName));
    return;
  }
  m_presetName = name;
  QFile in(QString::fromStdString(*path));
  if (!in.open(QIODevice::ReadOnly)) return;
  if (m_presets->currentText() != name) {
    const QSignalBlocker block(m_presets);
    m_presets->setCurrentText(name);
  }
  // A preset is a starting point: saving it asks for a file of its own.
  loadText(QString::fromUtf8(in.readAll()), {}, QFileInfo(in).absolutePath());
}

void SetupPage::reparse(const QString& editedField) {
  const QString text = yamlText();
  LoadedConfig loaded = loadConfigText(text.toStdString(), "<yaml>", m_baseDir.toStdString());
  const RunConfig before = m_loaded.config;
  Diagnostics problems;
  m_textUsable = !unreadable(loaded.problems);
  if (!m_textUsable) {
    problems = loaded.problems;  // the form, plan and config() stay as they were
  } else {
    m_loaded = std::move(loaded);
    m_goodText = text;
    // This machine's devices as its trainer says them, a host's as last probed: what the trainer's
    // own `validate` checks there. The rules pick the one the target names (an ssh target is
    // never checked against this machine); one not known skips them.
    ValidationContext context;
    context.host = m_thisMachine;
    const auto probe = m_probes.constFind(QString::fromStdString(m_loaded.config.target.host));
    if (probe != m_probes.constEnd()) context.remoteHost = probedDevices(probe->probe).forValidation();
    problems = checkConfig(m_loaded, context);
    QSet<QString> keep{editedField};
    for (const Diagnostic& d : m_loaded.problems) keep.insert(QString::fromStdString(d.path));  // unreadable value
    m_form->setConfig(m_loaded.config, keep);
    m_form->setProblems(problems);
    const bool planable = !hasErrors(problemsIn(problems, {"model", "strategy"}));
    m_plan->setConfig(planable ? std::optional<RunConfig>(m_loaded.config) : std::nullopt);
  }
  showTarget();
  showProblems(problems);
  m_problems = problems;
  const bool startable = m_textUsable && !hasErrors(problems);
  if (!(before == m_loaded.config)) emit configChanged();
  if (startable != m_startable) {
    m_startable = startable;
    emit validityChanged(startable);
  }
}

void SetupPage::setHosts(const QList<HostEntry>& hosts, const QMap<QString, HostStore::StoredProbe>& probes) {
  m_hosts = hosts;
  m_probes = probes;
  reparse();  // validated against what the target host has
}

void SetupPage::setThisMachine(const std::optional<HostDevices>& devices) {
  m_thisMachine = devices;
  reparse();  // validated against what this machine has
}

void SetupPage::showTarget() {
  const TargetConfig& t = m_loaded.config.target;
  const bool remote = t.kind == TargetKind::Ssh;
  const QString spec = QString::fromStdString(t.host);
  const QSignalBlocker block(m_target);
  m_target->clear();
  m_target->addItem(tr("This machine"));
  int current = 0;
  for (const HostEntry& h : m_hosts) {
    m_target->addItem(tr("%1 (%2)").arg(h.name, h.spec), h.spec);
    if (remote && h.spec == spec) current = m_target->count() - 1;
  }
  if (remote && current == 0) {  // a host the config names that is not saved under Hosts…
    m_target->addItem(tr("%1 (not under Hosts…)").arg(spec), spec);
    current = m_target->count() - 1;
  }
  m_target->setCurrentIndex(current);
  const auto probe = m_probes.constFind(spec);
  std::optional<ProbedDevices> devices;
  if (!remote)
    m_targetInfo->setText(QString::fromStdString(thisMachineCpu().description) + thisMachineGpus(m_thisMachine));
  else if (probe == m_probes.constEnd())
    m_targetInfo->setText(tr("not probed yet: Test it under Hosts…, or Start probes it"));
  else {
    devices = probedDevices(probe->probe);
    m_targetInfo->setText(
        tr("%1 (as of %2)").arg(devices->label, QLocale().toString(probe->at.toLocalTime(), QLocale::ShortFormat)));
  }
  m_plan->setHost(devices, spec);
}

void SetupPage::chooseTarget(int index) {
  if (index <= 0) {
    applyFieldEdit("target.kind", "local");
    return;
  }
  const QString spec = m_target->itemData(index).toString();
  applyFieldEdit("target.kind", "ssh");
  applyFieldEdit("target.host", yamlScalar(spec));
  for (const HostEntry& h : m_hosts) {
    if (h.spec != spec) continue;
    applyFieldEdit("target.identity", yamlScalar(h.identityFile));
    applyFieldEdit("target.proxy_command", yamlScalar(h.proxyCommand));
  }
}

void SetupPage::applyFieldEdit(const QString& path, const QString& valueYaml) {
  if (m_debounce->isActive()) {  // the YAML has unparsed typing: read it first
    m_debounce->stop();
    reparse();
  }
  // While the YAML is unreadable, the edit applies to the last readable text.
  const QString base = m_textUsable ? yamlText() : m_goodText;
  std::optional<QString> text = withFieldValue(base, m_loaded.places, path, valueYaml);
  if (!text) {  // not editable in place: regenerate from the config with the new value
    const LoadedConfig edited = loadConfigText(base.toStdString(), "<yaml>", m_baseDir.toStdString(),
                                               {path.toStdString() + "=" + valueYaml.toStdString()});
    text = QString::fromStdString(saveConfigText(edited.config));
  }
  replaceYaml(*text);
  reparse(path);
}

// Replaces the YAML as one undoable edit, keeping the scroll position.
void SetupPage::replaceYaml(const QString& text) {
  if (text == yamlText()) return;
  const int scroll = m_yaml->verticalScrollBar()->value();
  m_settingText = true;
  QTextCursor cursor(m_yaml->document());
  cursor.select(QTextCursor::Document);
  cursor.insertText(text);
  m_settingText = false;
  m_yaml->verticalScrollBar()->setValue(scroll);
}

void SetupPage::showProblems(const Diagnostics& problems) {
  m_problemList->clear();
  QList<QTextEdit::ExtraSelection> marks;
  QString fileError;
  for (const Diagnostic& d : problems) {
    const bool error = d.severity == Severity::Error;
    const QColor color = error ? kErrorColor : kWarningColor;
    QString text = QString::fromStdString(d.format("")).mid(d.line > 0 ? 1 : 0);
    if (d.line > 0) text = tr("line %1").arg(text);
    auto* item =
        new QListWidgetItem(style()->standardIcon(error ? QStyle::SP_MessageBoxCritical : QStyle::SP_MessageBoxWarning),
                            text, m_problemList);
    item->setData(Qt::UserRole, QString::fromStdString(d.path));
    item->setData(Qt::UserRole + 1, d.line);
    item->setToolTip(text);
    if (d.line > 0) {
      QTextEdit::ExtraSelection mark;
      mark.cursor = QTextCursor(m_yaml->document()->findBlockByNumber(d.line - 1));
      QColor fill = color;
      fill.setAlpha(60);
      mark.format.setBackground(fill);
      mark.format.setProperty(QTextFormat::FullWidthSelection, true);
      mark.format.setToolTip(QString::fromStdString(d.message));
      marks << mark;
    }
    if (error && d.path.empty() && fileError.isEmpty())
      fileError = (d.line > 0 ? tr("Line %1: ").arg(d.line) : QString()) + QString::fromStdString(d.message) +
                  tr(" — the form shows the last readable version.");
  }
  if (problems.empty()) m_problemList->addItem(tr("No problems: the job can start."));
  m_yaml->setExtraSelections(marks);
  m_yamlError->setText(fileError);
  m_yamlError->setVisible(!fileError.isEmpty());
}

void SetupPage::problemActivated(QListWidgetItem* item) {
  const QString path = item->data(Qt::UserRole).toString();
  const int line = item->data(Qt::UserRole + 1).toInt();
  if (m_form->editor(path)) {
    m_form->focusField(path);
  } else if (line > 0) {
    m_yaml->setTextCursor(QTextCursor(m_yaml->document()->findBlockByNumber(line - 1)));
    m_yaml->setFocus(Qt::OtherFocusReason);
  }
}

}  // namespace traindeck
