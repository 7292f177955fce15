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
#include <QKeyEvent>
#include <QLabel>
#include <QListWidget>
#include <QLocale>
#include <QMenu>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSaveFile>
#include <QScrollBar>
#include <QSplitter>
#include <QTextBlock>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>
#include <algorithm>

#include "config/devices.h"
#include "config/path_expand.h"
#include "config/preset_files.h"
#include "config/slurm_partitions.h"
#include "config/validate.h"
#include "host_model.h"
#include "config_form.h"
#include "export_dialog.h"
#include "gpt2_files_fetch.h"
#include "plan_panel.h"
#include "prepare_dialog.h"
#include "problem_colors.h"
#include "probed_devices.h"
#include "runlog/run_directory.h"
#include "setup_yaml_edit.h"

namespace traindeck {

namespace {

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

// ${TRAINDECK_DATA}, as set or by its default: where the app's own files go.
QString dataDir() {
  return QDir::cleanPath(QString::fromStdString(
      expandPath("${TRAINDECK_DATA}", QDir::currentPath().toStdString(), processEnvironment()).path));
}

bool isInside(const QString& path, const QString& dir) {
  const QString p = QDir::cleanPath(QFileInfo(path).absoluteFilePath());
  const QString d = QDir::cleanPath(QFileInfo(dir).absoluteFilePath());
  return p == d || p.startsWith(d + '/');
}

// "target.kind: ssh → local, target.host: me@box → (none)": the fields whose YAML values differ.
QString changedFields(const RunConfig& before, const RunConfig& after) {
  const QMap<QString, QString> was = fieldValueTexts(before), now = fieldValueTexts(after);
  QStringList changes;
  for (auto it = now.cbegin(); it != now.cend(); ++it) {
    const QString old = was.value(it.key());
    if (old == it.value()) continue;
    const auto shown = [](const QString& v) { return v.isEmpty() || v == "\"\"" ? SetupPage::tr("(none)") : v; };
    changes << SetupPage::tr("%1: %2 → %3").arg(it.key(), shown(old), shown(it.value()));
  }
  constexpr int kShown = 4;
  if (changes.size() > kShown)
    return changes.mid(0, kShown - 1).join(", ") +
           SetupPage::tr(" and %n more", nullptr, int(changes.size()) - kShown + 1);
  return changes.join(", ");
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
  auto* yamlTop = new QHBoxLayout;
  yamlTop->addWidget(heading(tr("YAML"), yamlSide));
  yamlTop->addStretch(1);
  m_undo = new QToolButton(yamlSide);
  m_undo->setObjectName("yamlUndo");
  m_undo->setText(tr("Undo"));
  m_undo->setToolTip(
      tr("Undo the last change to the job, made here, in the form, in Where to run or by Prepare… "
         "(Ctrl+Z in the YAML): the form and the YAML share one history."));
  m_redo = new QToolButton(yamlSide);
  m_redo->setObjectName("yamlRedo");
  m_redo->setText(tr("Redo"));
  m_redo->setToolTip(tr("Redo what Undo took back (Ctrl+Shift+Z in the YAML)."));
  m_undo->setEnabled(false);
  m_redo->setEnabled(false);
  yamlTop->addWidget(m_undo);
  yamlTop->addWidget(m_redo);
  yamlLayout->addLayout(yamlTop);
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
  m_historyNote = new QLabel(yamlSide);
  m_historyNote->setObjectName("yamlHistory");
  m_historyNote->setWordWrap(true);
  m_historyNote->setTextFormat(Qt::PlainText);
  m_historyNote->setForegroundRole(QPalette::PlaceholderText);
  m_historyNote->hide();
  yamlLayout->addWidget(m_historyNote);
  // Undo and Redo, by key, menu or button, go through moveInHistory: the form follows at once.
  m_yaml->installEventFilter(this);
  m_yaml->setContextMenuPolicy(Qt::CustomContextMenu);
  connect(m_yaml, &QPlainTextEdit::customContextMenuRequested, this, [this](const QPoint& at) {
    QMenu* menu = m_yaml->createStandardContextMenu(at);
    for (QAction* action : menu->actions()) {
      const bool undo = action->objectName() == "edit-undo";
      if (!undo && action->objectName() != "edit-redo") continue;
      disconnect(action, &QAction::triggered, nullptr, nullptr);
      connect(action, &QAction::triggered, this, [this, undo] { moveInHistory(undo); });
    }
    menu->exec(m_yaml->viewport()->mapToGlobal(at));
    delete menu;
  });
  connect(m_yaml, &QPlainTextEdit::undoAvailable, m_undo, &QToolButton::setEnabled);
  connect(m_yaml, &QPlainTextEdit::redoAvailable, m_redo, &QToolButton::setEnabled);
  connect(m_undo, &QToolButton::clicked, this, &SetupPage::undoEdit);
  connect(m_redo, &QToolButton::clicked, this, &SetupPage::redoEdit);

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
    if (m_settingText) return;
    m_historyNote->hide();
    m_debounce->start();
  });
  connect(m_plan, &PlanPanel::fitProblemChanged, this, &SetupPage::refreshProblems);
  connect(m_form, &ConfigForm::fieldEdited, this, &SetupPage::applyFieldEdit);
  connect(m_problemList, &QListWidget::itemClicked, this, &SetupPage::problemActivated);
  connect(m_problemList, &QListWidget::itemActivated, this, &SetupPage::problemActivated);
  connect(m_form, &ConfigForm::prepareRequested, this, [this] { openPrepareDialog(); });
  connect(m_form, &ConfigForm::gpt2FilesRequested, this, &SetupPage::fetchGpt2Files);
  connect(m_presets, &QComboBox::activated, this, [this](int index) { choosePreset(m_presets->itemText(index)); });
  connect(open, &QPushButton::clicked, this, [this] { openFile(); });
  connect(fromRun, &QPushButton::clicked, this, [this] { newFromConfig(); });
  // A job opened from the presets folder is saved elsewhere: Save… asks where.
  connect(save, &QPushButton::clicked, this, [this] { saveFile(isInPresets(m_filePath) ? QString() : m_filePath); });
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
  return answer == QMessageBox::Discard || saveFile(isInPresets(m_filePath) ? QString() : m_filePath);
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

QString SetupPage::writableDir() const {
  if (!m_baseDir.isEmpty() && !isInPresets(m_baseDir)) return m_baseDir;
  return dataDir();
}

bool SetupPage::isInPresets(const QString& path) const {
  if (path.isEmpty()) return false;
  for (const QString& dir : m_presetDirs)
    if (isInside(path, dir)) return true;
  return false;
}

QString SetupPage::defaultSaveFile() const {
  if (!m_filePath.isEmpty() && !isInPresets(m_filePath)) return m_filePath;
  QString name = m_presetName.isEmpty() ? QString::fromStdString(slugify(m_loaded.config.name)) : m_presetName;
  if (name.isEmpty()) name = QStringLiteral("job");
  return QDir(writableDir()).filePath(name + ".yaml");
}

QString SetupPage::historyNote() const {
  return m_historyNote->isHidden() ? QString() : m_historyNote->text();
}

bool SetupPage::saveFile(const QString& path) {
  const QString file = path.isEmpty() ? QFileDialog::getSaveFileName(this, tr("Save job"), defaultSaveFile(),
                                                                     tr("YAML files (*.yaml *.yml)"))
                                      : path;
  if (file.isEmpty()) return false;
  if (isInPresets(file)) {  // read-only once installed, and the next update would replace it
    m_fileLabel->setText(tr("Not saved: %1 is in the app's presets folder; save the job elsewhere, for example %2.")
                             .arg(QDir::toNativeSeparators(file), QDir::toNativeSeparators(defaultSaveFile())));
    return false;
  }
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
  // Into the folder data.train names while it is not a dataset yet; else a new one beside it,
  // or in ${TRAINDECK_DATA}: never in the presets folder.
  const QString data = dataDir();
  const QString named = QString::fromStdString(expanded.data.train);
  QString out;
  if (!named.isEmpty() && !isInPresets(named) && !QFileInfo::exists(named + "/dataset.json") &&
      !QFileInfo(named).isFile())
    out = named;
  else {
    const QString parent = named.isEmpty() || isInPresets(named) ? data : QFileInfo(named).absolutePath();
    QString slug = QString::fromStdString(slugify(m_loaded.config.name));
    const QString base = QDir(parent).filePath((slug.isEmpty() ? QStringLiteral("job") : slug) + "-data");
    out = base;
    for (int n = 2; QFileInfo::exists(out); ++n) out = base + "-" + QString::number(n);
  }
  auto* dialog = new PrepareDialog(m_trainBinary, expanded.data, out, this);
  dialog->setAttribute(Qt::WA_DeleteOnClose);
  dialog->setForbiddenDirs(m_presetDirs, data);
  connect(dialog, &PrepareDialog::prepared, this, [this](const QString& dir) {
    applyFieldEdits({{"data.train", yamlScalar(dir)}});
  });
  dialog->open();
  return dialog;
}

void SetupPage::fetchGpt2Files() {
  if (m_gpt2Fetch && m_gpt2Fetch->isRunning()) return;
  if (!m_gpt2Fetch) {
    m_gpt2Fetch = new Gpt2FilesFetch(this);
    connect(m_gpt2Fetch, &Gpt2FilesFetch::finished, this, [this](bool ok, const QString& folder, const QString& why) {
      if (auto* button = m_form->findChild<QToolButton*>("fetch:data.vocab")) button->setEnabled(true);
      if (ok) {
        applyFieldEdits({{"data.tokenizer", "gpt2"},
                         {"data.vocab", yamlScalar(Gpt2Files::vocabInJob())},
                         {"data.merges", yamlScalar(Gpt2Files::mergesInJob())}});
      } else {
        auto* box = new QMessageBox(QMessageBox::Warning, tr("GPT-2's files were not fetched"),
                                    tr("GPT-2's tokenizer files could not be fetched into %1.")
                                        .arg(QDir::toNativeSeparators(folder)),
                                    QMessageBox::Ok, this);
        box->setInformativeText(why);
        box->setAttribute(Qt::WA_DeleteOnClose);
        box->open();
      }
      emit gpt2FilesFetched(ok, why);
    });
  }
  if (auto* button = m_form->findChild<QToolButton*>("fetch:data.vocab")) button->setEnabled(false);
  m_gpt2Fetch->start(m_gpt2FilesScript, QDir(dataDir()).filePath("gpt2"));
}

ExportDialog* SetupPage::openExportDialog() {
  ExportRequest request;
  request.config = m_loaded.config;
  request.baseDir = m_baseDir.toStdString();
  request.source = m_filePath.isEmpty()
                       ? (m_presetName.isEmpty() ? std::string("the Setup page") : m_presetName.toStdString())
                       : QFileInfo(m_filePath).fileName().toStdString();
  request.trainerSources = m_trainerSources.toStdString();
  auto* dialog = new ExportDialog(request, defaultExportFolder(m_filePath, m_presetDirs, dataDir()), this);
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
    if (!QFileInfo::exists(QDir(dir).filePath(run_file::kConfig))) continue;
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
  return QDir(runs.at(static_cast<int>(items.indexOf(item))).second).filePath(run_file::kConfig);
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
  // "Where to run" is the user's choice, not the preset's: a preset that names no target keeps
  // the one chosen (every target.* value that is not the default), and the file label says so.
  QString text = QString::fromUtf8(in.readAll());
  const TargetConfig chosen = m_loaded.config.target;
  QString kept;
  if (isRemote(chosen.kind)) {
    const std::string presetsBase = QFileInfo(in).absolutePath().toStdString();
    const LoadedConfig preset = loadConfigText(text.toStdString(), "<yaml>", presetsBase);
    if (preset.places.count("target.kind") == 0) {
      RunConfig withTarget = preset.config;
      withTarget.target = chosen;
      const QMap<QString, QString> defaults = fieldValueTexts(RunConfig{});
      QList<QPair<QString, QString>> edits;
      const QMap<QString, QString> values = fieldValueTexts(withTarget);
      for (auto it = values.cbegin(); it != values.cend(); ++it)
        if (it.key().startsWith("target.") && it.value() != defaults.value(it.key()))
          edits.append({it.key(), it.value()});
      text = withFieldValues(text, edits);
      kept = QString::fromStdString(chosen.host);
    }
  }
  // A preset is a starting point: saving it asks for a file of its own.
  loadText(text, {}, QFileInfo(in).absolutePath());
  if (!kept.isEmpty()) m_fileLabel->setText(tr("(not saved) · Where to run kept: %1").arg(kept));
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
    // A Slurm login node as last probed: its partitions say which jobs can never run there.
    if (probe != m_probes.constEnd() && m_loaded.config.target.kind == TargetKind::Slurm && !probe->probe.sinfo.isEmpty())
      context.slurmPartitions = parseSinfo(probe->probe.sinfo.toStdString());
    problems = checkConfig(m_loaded, context);
    QSet<QString> keep{editedField};
    for (const Diagnostic& d : m_loaded.problems) keep.insert(QString::fromStdString(d.path));  // unreadable value
    m_form->setConfig(m_loaded.config, keep);
    m_configProblems = problems;  // before the plan, which may report a fit problem at once
    const bool planable = !hasErrors(problemsIn(problems, {"model", "strategy"}));
    m_plan->setConfig(planable ? std::optional<RunConfig>(m_loaded.config) : std::nullopt);
  }
  m_configProblems = problems;
  showTarget();
  refreshProblems();
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
    m_target->addItem(chosen && slurm ? tr("Slurm through %1 (%2)").arg(h.name, h.spec) : tr("%1 (%2)").arg(h.name, h.spec),
                      h.spec);
    if (chosen) current = m_target->count() - 1;
  }
  if (remote && current == 0) {  // a host the config names that is not saved under Hosts…
    m_target->addItem(slurm ? tr("Slurm through %1 (not under Hosts…)").arg(spec) : tr("%1 (not under Hosts…)").arg(spec),
                      spec);
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
    applyFieldEdits({{"target.kind", "local"}});
    return;
  }
  // One choice, one edit: a single Undo takes all of it back.
  const QString spec = m_target->itemData(index).toString();
  // A Slurm job stays one: the host chosen is its login node.
  const QString kind = m_loaded.config.target.kind == TargetKind::Slurm ? QStringLiteral("slurm") : QStringLiteral("ssh");
  QList<QPair<QString, QString>> edits{{"target.kind", kind}, {"target.host", yamlScalar(spec)}};
  for (const HostEntry& h : m_hosts) {
    if (h.spec != spec) continue;
    // Another saved host, as a continue aims at one (targetOn): its key and proxy, and no user,
    // port or node list left from the host chosen before (the same one chosen again keeps them).
    const TargetConfig before = m_loaded.config.target;
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
  applyFieldEdits(edits);
}

void SetupPage::applyFieldEdit(const QString& path, const QString& valueYaml) {
  applyFieldEdits({{path, valueYaml}}, path);
}

QString SetupPage::withFieldValues(QString text, const QList<QPair<QString, QString>>& edits) const {
  for (const auto& [path, valueYaml] : edits) {
    const LoadedConfig loaded = loadConfigText(text.toStdString(), "<yaml>", m_baseDir.toStdString());
    std::optional<QString> edited = withFieldValue(text, loaded.places, path, valueYaml);
    if (!edited)  // not editable in place: regenerate from the config with the new value
      edited =
          QString::fromStdString(saveConfigText(loadConfigText(text.toStdString(), "<yaml>", m_baseDir.toStdString(),
                                                               {path.toStdString() + "=" + valueYaml.toStdString()})
                                                    .config));
    text = *edited;
  }
  return text;
}

void SetupPage::applyFieldEdits(const QList<QPair<QString, QString>>& edits, const QString& typedField) {
  if (m_debounce->isActive()) {  // the YAML has unparsed typing: read it first
    m_debounce->stop();
    reparse();
  }
  m_historyNote->hide();
  // While the YAML is unreadable, the edit applies to the last readable text.
  replaceYaml(withFieldValues(m_textUsable ? yamlText() : m_goodText, edits));
  reparse(typedField);  // every other editor shows what the YAML now says
}

void SetupPage::moveInHistory(bool undo) {
  if (undo ? !m_yaml->document()->isUndoAvailable() : !m_yaml->document()->isRedoAvailable()) return;
  m_debounce->stop();
  const RunConfig before = m_loaded.config;
  m_settingText = true;
  if (undo)
    m_yaml->undo();
  else
    m_yaml->redo();
  m_settingText = false;
  reparse();
  const QString changed = changedFields(before, m_loaded.config);
  m_historyNote->setText(changed.isEmpty() ? QString() : (undo ? tr("Undone: %1") : tr("Redone: %1")).arg(changed));
  m_historyNote->setVisible(!changed.isEmpty());
}

bool SetupPage::eventFilter(QObject* watched, QEvent* event) {
  if (watched == m_yaml && event->type() == QEvent::KeyPress) {
    auto* key = static_cast<QKeyEvent*>(event);
    if (key->matches(QKeySequence::Undo) || key->matches(QKeySequence::Redo)) {
      moveInHistory(key->matches(QKeySequence::Undo));
      return true;
    }
  }
  return QWidget::eventFilter(watched, event);
}

void SetupPage::refreshProblems() {
  Diagnostics all = m_configProblems;
  const PlanPanel::FitProblem fit = m_plan->fitProblem();
  if (m_textUsable && !fit.message.isEmpty()) {  // a plan that does not fit is a problem too
    Diagnostic d;
    d.severity = Severity::Warning;
    d.path = "strategy.micro_batch";
    if (const auto place = m_loaded.places.find(d.path); place != m_loaded.places.end()) {
      d.line = place->second.line;
      d.column = place->second.column;
    }
    d.message = fit.message.toStdString();
    d.hint = fit.hint.toStdString();
    const auto after =
        std::find_if(all.begin(), all.end(), [&](const Diagnostic& o) { return d.line > 0 && o.line > d.line; });
    all.insert(after, d);
  }
  m_problems = all;
  m_form->setProblems(all);
  showProblems(all);
}

// Replaces the YAML as one undoable edit, keeping the scroll position.
void SetupPage::replaceYaml(const QString& text) {
  if (text == yamlText()) return;
  const int scroll = m_yaml->verticalScrollBar()->value();
  m_settingText = true;
  QTextCursor cursor(m_yaml->document());
  cursor.beginEditBlock();  // one step in the undo history, whatever the edit
  cursor.select(QTextCursor::Document);
  cursor.insertText(text);
  cursor.endEditBlock();
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
                  tr(" — the form shows no values until it can be read.");
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
