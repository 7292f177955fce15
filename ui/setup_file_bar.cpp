// Files are read and written whole: a job is a few kilobytes. A preset or an old run's settings
// are starting points with no file of their own, so saving one asks where.
#include "setup_file_bar.h"

#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QInputDialog>
#include <QLabel>
#include <QMessageBox>
#include <QPushButton>

#include "config/preset_files.h"
#include "config/validate.h"
#include "job_document.h"
#include "job_files.h"
#include "job_yaml_edit.h"
#include "runlog/run_directory.h"

namespace traindeck {

namespace {

std::vector<std::string> toStd(const QStringList& list) {
  std::vector<std::string> out;
  for (const QString& s : list) out.push_back(s.toStdString());
  return out;
}

QPushButton* button(const QString& text, const QString& name, const QString& tip, QWidget* parent) {
  auto* b = new QPushButton(text, parent);
  b->setObjectName(name);
  b->setToolTip(tip);
  return b;
}

}  // namespace

SetupFileBar::SetupFileBar(JobDocument* document, const QStringList& presetDirs, QWidget* parent)
    : QWidget(parent), m_document(document), m_presetDirs(presetDirs) {
  auto* layout = new QHBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(new QLabel(tr("Preset:"), this));
  m_presets = new QComboBox(this);
  m_presets->setObjectName("presetChooser");
  m_presets->setPlaceholderText(tr("Start from a preset…"));
  m_presets->setToolTip(tr("A bundled job to start from; choosing one replaces the YAML."));
  for (const std::string& name : listPresets(toStd(m_presetDirs))) m_presets->addItem(QString::fromStdString(name));
  m_presets->setCurrentIndex(-1);
  layout->addWidget(m_presets);
  auto* open = button(tr("Open…"), "openButton", tr("Open a job YAML file."), this);
  auto* fromRun = button(tr("From run…"), "fromRunButton", tr("Start a new job from an old run's config.yaml."), this);
  auto* save = button(tr("Save…"), "saveButton", tr("Save the YAML to a file."), this);
  auto* exportJob = button(tr("Export…"), "exportJobButton",
                           tr("The job as a notebook and a script for Colab, Kaggle or a VM: TrainDeck's trainer, "
                              "PyTorch DDP, PyTorch/XLA or Keras."),
                           this);
  for (QPushButton* b : {open, fromRun, save, exportJob}) layout->addWidget(b);
  m_label = new QLabel(this);
  m_label->setObjectName("fileLabel");
  m_label->setForegroundRole(QPalette::PlaceholderText);
  layout->addWidget(m_label, 1);
  connect(m_presets, &QComboBox::activated, this, [this](int index) { choosePreset(m_presets->itemText(index)); });
  connect(open, &QPushButton::clicked, this, [this] { openFile(); });
  connect(fromRun, &QPushButton::clicked, this, [this] { newFromConfig(); });
  // A job opened from the presets folder is saved elsewhere: Save… asks where.
  connect(save, &QPushButton::clicked, this,
          [this] { saveFile(isInPresets(m_document->filePath()) ? QString() : m_document->filePath()); });
  connect(exportJob, &QPushButton::clicked, this, &SetupFileBar::exportRequested);
}

bool SetupFileBar::mayReplaceEdits() {
  m_document->takePendingEdits();
  if (!m_document->isModified() || !isVisible()) return true;
  const auto answer =
      QMessageBox::question(this, tr("Unsaved changes"), tr("The job has changes that are not saved. Save them first?"),
                            QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel, QMessageBox::Save);
  if (answer == QMessageBox::Cancel) return false;
  return answer == QMessageBox::Discard ||
         saveFile(isInPresets(m_document->filePath()) ? QString() : m_document->filePath());
}

void SetupFileBar::load(const QString& text, const QString& filePath, const QString& baseDir) {
  m_document->load(text, filePath, baseDir);
  m_label->setText(filePath.isEmpty() ? tr("(not saved)") : QDir::toNativeSeparators(filePath));
}

std::optional<QString> SetupFileBar::readFile(const QString& file) {
  QFile in(file);
  if (!in.open(QIODevice::ReadOnly)) {
    m_label->setText(tr("Could not open %1: %2").arg(file, in.errorString()));
    return std::nullopt;
  }
  return QString::fromUtf8(in.readAll());
}

void SetupFileBar::showPreset(const QString& name) {
  m_presetName = name;
  const QSignalBlocker block(m_presets);
  m_presets->setCurrentIndex(m_presets->findText(name));  // -1: a file, not a preset
}

void SetupFileBar::openFile(const QString& path) {
  const QString file = path.isEmpty() ? QFileDialog::getOpenFileName(this, tr("Open job"), m_document->baseDir(),
                                                                     tr("YAML files (*.yaml *.yml);;All files (*)"))
                                      : path;
  if (file.isEmpty() || !mayReplaceEdits()) return;
  if (const auto text = readFile(file)) {
    load(*text, QFileInfo(file).absoluteFilePath(), QFileInfo(file).absolutePath());
    showPreset({});
  }
}

QString SetupFileBar::writableDir() const {
  const QString base = m_document->baseDir();
  if (!base.isEmpty() && !isInPresets(base)) return base;
  return appDataDir();
}

bool SetupFileBar::isInPresets(const QString& path) const {
  return isInAny(path, m_presetDirs);
}

QString SetupFileBar::defaultSaveFile() const {
  const QString& file = m_document->filePath();
  if (!file.isEmpty() && !isInPresets(file)) return file;
  const std::optional<LoadedConfig>& job = m_document->lastReadable();
  QString name = m_presetName.isEmpty() && job ? QString::fromStdString(slugify(job->config.name)) : m_presetName;
  if (name.isEmpty()) name = QStringLiteral("job");
  return QDir(writableDir()).filePath(name + ".yaml");
}

bool SetupFileBar::saveFile(const QString& path) {
  const QString file = path.isEmpty() ? QFileDialog::getSaveFileName(this, tr("Save job"), defaultSaveFile(),
                                                                     tr("YAML files (*.yaml *.yml)"))
                                      : path;
  if (file.isEmpty()) return false;
  if (isInPresets(file)) {  // read-only once installed, and the next update would replace it
    m_label->setText(tr("Not saved: %1 is in the app's presets folder; save the job elsewhere, for example %2.")
                         .arg(QDir::toNativeSeparators(file), QDir::toNativeSeparators(defaultSaveFile())));
    return false;
  }
  m_document->takePendingEdits();
  if (const QString why = m_document->saveTo(file); !why.isEmpty()) {
    m_label->setText(tr("Could not save %1: %2").arg(file, why));
    return false;
  }
  m_label->setText(QDir::toNativeSeparators(m_document->filePath()));
  return true;
}

QList<QPair<QString, QString>> SetupFileBar::runChoices() const {
  return runsWithConfigs(m_runsRoot);
}

void SetupFileBar::newFromConfig(const QString& path) {
  const QString file = path.isEmpty() ? chooseRunConfig() : path;
  if (file.isEmpty() || !mayReplaceEdits()) return;
  showPreset({});
  // Its paths are already absolute (a run records them expanded); saving asks for a new file.
  if (const auto text = readFile(file)) load(*text, {}, QFileInfo(file).absolutePath());
}

void SetupFileBar::newFromText(const QString& text, const QString& baseDir) {
  if (!mayReplaceEdits()) return;
  showPreset({});
  load(text, {}, baseDir);
}

QString SetupFileBar::chooseRunConfig() {
  const QList<QPair<QString, QString>> runs = runChoices();
  if (runs.isEmpty())  // no runs here yet: any run's config.yaml, from a file dialog
    return QFileDialog::getOpenFileName(this, tr("Start from a run's config"),
                                        m_runsRoot.isEmpty() ? m_document->baseDir() : m_runsRoot,
                                        tr("Run config (config.yaml);;YAML files (*.yaml)"));
  QStringList items;
  for (const auto& run : runs) items << run.first;
  bool ok = false;
  const QString item =
      QInputDialog::getItem(this, tr("From run"), tr("Start a new job from the settings of:"), items, 0, false, &ok);
  if (!ok) return {};
  return QDir(runs.at(static_cast<int>(items.indexOf(item))).second).filePath(run_file::kConfig);
}

void SetupFileBar::choosePreset(const QString& name) {
  const auto path = resolveConfigPath(name.toStdString(), toStd(m_presetDirs));
  if (!path || !mayReplaceEdits()) {
    showPreset(m_presetName);
    return;
  }
  QFile in(QString::fromStdString(*path));
  if (!in.open(QIODevice::ReadOnly)) return;
  showPreset(name);
  // "Where to run" is the user's choice, not the preset's: a preset that names no target keeps
  // the one chosen (every target.* value that is not the default), and the label says so.
  QString text = QString::fromUtf8(in.readAll());
  const TargetConfig chosen = m_document->lastReadable() ? m_document->lastReadable()->config.target : TargetConfig{};
  QString kept;
  if (isRemote(chosen.kind)) {
    const std::string presetsBase = QFileInfo(in).absolutePath().toStdString();
    const LoadedConfig preset = loadConfigText(text.toStdString(), "<yaml>", presetsBase);
    if (preset.places.count("target.kind") == 0) {
      RunConfig withTarget = preset.config;
      withTarget.target = chosen;
      const QMap<QString, QString> defaults = fieldValueTexts(RunConfig{});
      KeyEdits edits;
      const QMap<QString, QString> values = fieldValueTexts(withTarget);
      for (auto it = values.cbegin(); it != values.cend(); ++it)
        if (it.key().startsWith("target.") && it.value() != defaults.value(it.key()))
          edits.append({it.key(), it.value()});
      text = m_document->withValues(text, edits);
      kept = QString::fromStdString(chosen.host);
    }
  }
  // A preset is a starting point: saving it asks for a file of its own.
  load(text, {}, QFileInfo(in).absolutePath());
  if (!kept.isEmpty()) m_label->setText(tr("(not saved) · Where to run kept: %1").arg(kept));
}

}  // namespace traindeck
