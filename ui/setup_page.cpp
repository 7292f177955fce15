// Wiring only: the document holds the job and says when it changed; each view shows it and
// edits it. Prepare…, Get… (GPT-2's files) and Export… start from here, on the document's values.
#include "setup_page.h"

#include <QDir>
#include <QFileInfo>
#include <QMessageBox>
#include <QPushButton>
#include <QSplitter>
#include <QTabWidget>
#include <QToolButton>
#include <QVBoxLayout>

#include "config/config_io.h"
#include "config/path_expand.h"
#include "config_form.h"
#include "export_dialog.h"
#include "gpt2_files_fetch.h"
#include "job_document.h"
#include "job_files.h"
#include "job_yaml_edit.h"
#include "plan_panel.h"
#include "prepare_dialog.h"
#include "runlog/run_directory.h"
#include "setup_file_bar.h"
#include "setup_problem_list.h"
#include "setup_sweep_tab.h"
#include "setup_target_bar.h"
#include "setup_yaml_pane.h"
#include "sweep_document.h"

namespace traindeck {

SetupPage::SetupPage(const QStringList& presetDirs, QWidget* parent)
    : QWidget(parent), m_document(new JobDocument(this)), m_presetDirs(presetDirs) {
  setObjectName("setupPage");
  auto* layout = new QVBoxLayout(this);
  m_target = new SetupTargetBar(m_document, this);
  layout->addWidget(m_target);
  m_files = new SetupFileBar(m_document, presetDirs, this);
  layout->addWidget(m_files);

  auto* splitter = new QSplitter(Qt::Horizontal, this);
  m_form = new ConfigForm(splitter);
  m_yaml = new SetupYamlPane(m_document, splitter);
  auto* side = new QSplitter(Qt::Vertical, splitter);
  auto* problems = new SetupProblemList(m_document, side);
  m_plan = new PlanPanel(m_document, side);
  side->addWidget(problems);
  side->addWidget(m_plan);
  side->setStretchFactor(0, 1);
  side->setStretchFactor(1, 2);
  splitter->addWidget(m_form);
  splitter->addWidget(m_yaml);
  splitter->addWidget(side);
  // The form first: its labels and path fields need the room; the YAML reads fine narrower.
  splitter->setStretchFactor(0, 5);
  splitter->setStretchFactor(1, 3);
  splitter->setStretchFactor(2, 3);
  splitter->setSizes({560, 320, 380});  // proportions; the real widths follow the page's
  m_tabs = new QTabWidget(this);
  m_tabs->setObjectName("setupTabs");
  m_tabs->setDocumentMode(true);
  m_tabs->addTab(splitter, tr("Job"));
  m_sweep = new SweepDocument(m_document, this);
  m_sweepTab = new SetupSweepTab(m_sweep, m_tabs);
  m_sweepTab->setForbiddenDirs(presetDirs);
  m_tabs->addTab(m_sweepTab, tr("Sweep"));
  m_tabs->setTabToolTip(1, tr("The job's sweep: trials of it with some keys varied, how many and what they cost."));
  layout->addWidget(m_tabs, 1);

  connect(m_document, &JobDocument::changed, this, &SetupPage::showInForm);
  connect(m_document, &JobDocument::valuesChanged, this, &SetupPage::configChanged);
  connect(m_document, &JobDocument::startableChanged, this, &SetupPage::validityChanged);
  connect(m_form, &ConfigForm::fieldEdited, this, &SetupPage::editField);
  connect(m_form, &ConfigForm::prepareRequested, this, [this] { openPrepareDialog(); });
  connect(m_form, &ConfigForm::gpt2FilesRequested, this, &SetupPage::fetchGpt2Files);
  connect(problems, &SetupProblemList::problemChosen, this, &SetupPage::goToProblem);
  connect(m_target, &SetupTargetBar::hostsRequested, this, &SetupPage::hostsRequested);
  connect(m_files, &SetupFileBar::exportRequested, this, [this] { openExportDialog(); });
  connect(m_sweepTab, &SetupSweepTab::sweepStartRequested, this, &SetupPage::sweepStartRequested);

  m_document->load(QString::fromStdString(saveConfigText(RunConfig{})), {}, QDir::currentPath());
}

void SetupPage::showSweepTab(bool shown) {
  m_tabs->setCurrentWidget(shown ? static_cast<QWidget*>(m_sweepTab) : m_tabs->widget(0));
}

RunConfig SetupPage::config() const {
  const std::optional<LoadedConfig>& job = m_document->lastReadable();
  return job ? job->config : RunConfig{};
}

QString SetupPage::yamlText() const {
  m_document->takePendingEdits();
  return m_document->text();
}

void SetupPage::setYamlText(const QString& text) {
  m_document->resetText(text);
}

bool SetupPage::isStartable() const {
  return m_document->isStartable();
}

Diagnostics SetupPage::problems() const {
  return m_document->problems();
}

QString SetupPage::filePath() const {
  return m_document->filePath();
}

bool SetupPage::isModified() const {
  m_document->takePendingEdits();
  return m_document->isModified();
}

const std::optional<HostDevices>& SetupPage::thisMachine() const {
  return m_document->thisMachine();
}

void SetupPage::setThisMachine(const std::optional<HostDevices>& devices) {
  m_document->setThisMachine(devices);
}

void SetupPage::setHosts(const QList<HostEntry>& hosts, const QMap<QString, HostStore::StoredProbe>& probes) {
  m_target->setHosts(hosts, probes);
  m_sweepTab->setHosts(hosts);
  QMap<QString, HostProbe> bySpec;
  for (auto it = probes.cbegin(); it != probes.cend(); ++it) bySpec.insert(it.key(), it->probe);
  m_document->setHostProbes(bySpec);  // validated against what the target host has
}

void SetupPage::openFile(const QString& path) {
  m_files->openFile(path);
}

bool SetupPage::saveFile(const QString& path) {
  return m_files->saveFile(path);
}

void SetupPage::newFromConfig(const QString& path) {
  m_files->newFromConfig(path);
}

void SetupPage::newFromText(const QString& text, const QString& baseDir) {
  m_files->newFromText(text, baseDir);
}

void SetupPage::choosePreset(const QString& name) {
  m_files->choosePreset(name);
}

void SetupPage::undoEdit() {
  m_yaml->moveInHistory(true);
}

void SetupPage::redoEdit() {
  m_yaml->moveInHistory(false);
}

QString SetupPage::defaultSaveFile() const {
  return m_files->defaultSaveFile();
}

bool SetupPage::isInPresets(const QString& path) const {
  return m_files->isInPresets(path);
}

QString SetupPage::historyNote() const {
  return m_yaml->historyNote();
}

QList<QPair<QString, QString>> SetupPage::runChoices() const {
  return m_files->runChoices();
}

std::optional<SetupPage::JobToStart> SetupPage::jobToStart() {
  const QString file = filePath();
  if (file.isEmpty()) return JobToStart{{}, yamlText()};
  if (!isModified()) return JobToStart{file, {}};
  if (window()->isVisible() && !isInPresets(file)) {
    QMessageBox box(QMessageBox::Question, tr("Unsaved edits"),
                    tr("The job has edits that are not saved in %1.").arg(QDir::toNativeSeparators(file)),
                    QMessageBox::NoButton, this);
    box.setObjectName("unsavedEditsQuestion");
    box.setInformativeText(
        tr("Save them into the file and run it, or run with a copy of the job that only this "
           "run keeps (the file stays as it is)?"));
    QAbstractButton* save = box.addButton(tr("Save into the file"), QMessageBox::AcceptRole);
    save->setObjectName("saveIntoFileButton");
    QPushButton* copy = box.addButton(tr("Run this copy only"), QMessageBox::ActionRole);
    copy->setObjectName("runCopyOnlyButton");
    box.addButton(QMessageBox::Cancel)->setObjectName("cancelStartButton");
    box.setDefaultButton(copy);
    box.exec();
    if (box.clickedButton() == save) return saveFile(file) ? std::optional(JobToStart{file, {}}) : std::nullopt;
    if (box.clickedButton() != copy) return std::nullopt;
  }
  // Relative paths in the copy would mean the runs folder: made absolute, they mean what they did.
  return JobToStart{{}, m_document->textWithAbsolutePaths()};
}

void SetupPage::setRunsRoot(const QString& dir) {
  m_files->setRunsRoot(dir);
  m_form->setFieldNote("runs_root", dir.isEmpty() ? QString()
                                                  : tr("This app keeps its runs in %1 (--runs-root); runs_root is "
                                                       "where traindeck-train run puts them without --run-dir.")
                                                        .arg(QDir::toNativeSeparators(dir)));
}

void SetupPage::showInForm() {
  const std::optional<LoadedConfig>& job = m_document->loaded();
  // Never the defaults in place of values: with no text ever read, the form has nothing to show.
  m_form->setEnabled(m_document->lastReadable().has_value());
  if (job) {
    QSet<QString> keep = m_document->unreadableKeys();
    keep.insert(m_typedField);
    m_form->setConfig(job->config, keep);
  }
  // An unreadable file empties the form (it shows no values the file does not hold).
  m_form->setProblems(m_document->problems());
}

void SetupPage::editField(const QString& path, const QString& valueYaml) {
  m_typedField = path;
  m_document->setValues({{path, valueYaml}});
  m_typedField.clear();
}

void SetupPage::goToProblem(const QString& path, int line) {
  if (m_form->editor(path))
    m_form->focusField(path);
  else if (line > 0)
    m_yaml->goToLine(line);
}

PrepareDialog* SetupPage::openPrepareDialog() {
  const RunConfig job = config();
  const RunConfig expanded = withExpandedPaths(job, m_document->baseDir().toStdString(), processEnvironment());
  // Into the folder data.train names while it is not a dataset yet; else a new one beside it,
  // or in ${TRAINDECK_DATA}: never in the presets folder.
  const QString data = appDataDir();
  const QString named = QString::fromStdString(expanded.data.train);
  QString out;
  if (!named.isEmpty() && !isInPresets(named) && !QFileInfo::exists(named + "/dataset.json") &&
      !QFileInfo(named).isFile())
    out = named;
  else {
    const QString parent = named.isEmpty() || isInPresets(named) ? data : QFileInfo(named).absolutePath();
    QString slug = QString::fromStdString(slugify(job.name));
    const QString base = QDir(parent).filePath((slug.isEmpty() ? QStringLiteral("job") : slug) + "-data");
    out = base;
    for (int n = 2; QFileInfo::exists(out); ++n) out = base + "-" + QString::number(n);
  }
  auto* dialog = new PrepareDialog(m_trainBinary, expanded.data, out, this);
  dialog->setAttribute(Qt::WA_DeleteOnClose);
  dialog->setForbiddenDirs(m_presetDirs, data);
  connect(dialog, &PrepareDialog::prepared, this, [this](const QString& dir) {
    m_document->setValues({{"data.train", yamlScalar(dir)}});
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
        m_document->setValues({{"data.tokenizer", "gpt2"},
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
  m_gpt2Fetch->start(m_gpt2FilesScript, QDir(appDataDir()).filePath("gpt2"));
}

ExportDialog* SetupPage::openExportDialog() {
  ExportRequest request;
  request.config = config();
  request.baseDir = m_document->baseDir().toStdString();
  const QString& file = m_document->filePath();
  const QString& preset = m_files->presetName();
  request.source = file.isEmpty() ? (preset.isEmpty() ? std::string("the Setup page") : preset.toStdString())
                                  : QFileInfo(file).fileName().toStdString();
  request.trainerSources = m_trainerSources.toStdString();
  auto* dialog = new ExportDialog(request, defaultExportFolder(file, m_presetDirs, appDataDir()), this);
  dialog->setAttribute(Qt::WA_DeleteOnClose);
  dialog->open();
  return dialog;
}

}  // namespace traindeck
