// The editor's text is the document's except while typing; a text from the document (a sweep
// opened, another job's sweep) replaces it whole. Run sweep asks nothing of the runner: it says
// which saved file and how many slots, and the window starts it.
#include "setup_sweep_tab.h"

#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QLabel>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QSplitter>
#include <QTextBlock>
#include <QTimer>
#include <QVBoxLayout>

#include "job_files.h"
#include "problem_marks.h"
#include "setup_problem_list.h"
#include "sweep_document.h"
#include "sweep_hosts_picker.h"
#include "sweep_summary_panel.h"

namespace traindeck {

SetupSweepTab::SetupSweepTab(SweepDocument* sweep, QWidget* parent) : QWidget(parent), m_sweep(sweep) {
  setObjectName("sweepTab");
  auto* layout = new QVBoxLayout(this);
  auto* top = new QHBoxLayout;
  top->addWidget(new QLabel(QStringLiteral("<b>%1</b>").arg(tr("Sweep file")), this));
  m_file = new QLabel(this);
  m_file->setObjectName("sweepFile");
  m_file->setTextInteractionFlags(Qt::TextSelectableByMouse);
  top->addWidget(m_file, 1);
  const auto button = [&](const QString& name, const QString& text, const QString& tip) {
    auto* b = new QPushButton(text, this);
    b->setObjectName(name);
    b->setToolTip(tip);
    top->addWidget(b);
    return b;
  };
  QPushButton* newSweep = button("sweepNew", tr("New"), tr("A new sweep of this job: its sweep file when it has one."));
  QPushButton* open = button("sweepOpen", tr("Open…"), tr("Open a sweep.yaml."));
  QPushButton* save = button("sweepSave", tr("Save"), tr("Save the sweep (beside the job as <job>.sweep.yaml)."));
  QPushButton* saveAs = button("sweepSaveAs", tr("Save as…"), tr("Save the sweep to another file."));
  layout->addLayout(top);

  auto* splitter = new QSplitter(Qt::Horizontal, this);
  m_yaml = new QPlainTextEdit(splitter);
  m_yaml->setObjectName("sweepYaml");
  m_yaml->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  m_yaml->setLineWrapMode(QPlainTextEdit::NoWrap);
  m_yaml->setToolTip(
      tr("The sweep as YAML: the job it varies (base:), the keys and their values, the metric, "
         "the budget and early stopping (docs/sweeps.md)."));
  auto* side = new QWidget(splitter);
  auto* sideLayout = new QVBoxLayout(side);
  sideLayout->setContentsMargins(0, 0, 0, 0);
  m_problems = new SetupProblemList(
      "sweepProblems", tr("Everything wrong with the sweep and its trials; click one to go to its line."), side);
  m_summary = new SweepSummaryPanel(side);
  sideLayout->addWidget(m_problems, 1);
  sideLayout->addWidget(m_summary);
  auto* run = new QHBoxLayout;
  run->addWidget(new QLabel(tr("Trials at once on the job's target"), side));
  m_slots = new QSpinBox(side);
  m_slots->setObjectName("sweepSlots");
  m_slots->setRange(1, 64);
  m_slots->setToolTip(
      tr("How many trials run at once on the job's own target: on this machine or its host they share its GPUs, or "
         "its cores; on a Slurm cluster the new trials go as one job array, this many of them running at a time."));
  run->addWidget(m_slots);
  run->addWidget(new QLabel(tr("trials to a Slurm job"), side));
  m_pack = new QSpinBox(side);
  m_pack->setObjectName("sweepPack");
  m_pack->setRange(1, 64);
  m_pack->setToolTip(
      tr("On a Slurm cluster: this many new trials share one job's allocation, which asks for what one trial asks "
         "for this many times (cores, GPUs per node, memory); each trial takes its part of it. For clusters that "
         "give whole nodes. Trials of more than one node are not packed."));
  run->addWidget(m_pack);
  run->addStretch(1);
  sideLayout->addLayout(run);
  m_hosts = new SweepHostsPicker(side);
  m_hosts->setMaximumHeight(fontMetrics().height() * 8);
  m_hosts->hide();  // until there are saved hosts
  sideLayout->addWidget(m_hosts);
  auto* go = new QHBoxLayout;
  m_run = new QPushButton(tr("Run sweep"), side);
  m_run->setObjectName("runSweep");
  go->addWidget(m_run);
  go->addStretch(1);
  sideLayout->addLayout(go);
  m_runNote = new QLabel(side);
  m_runNote->setObjectName("runSweepNote");
  m_runNote->setWordWrap(true);
  m_runNote->setForegroundRole(QPalette::PlaceholderText);
  sideLayout->addWidget(m_runNote);
  splitter->addWidget(m_yaml);
  splitter->addWidget(side);
  splitter->setStretchFactor(0, 1);
  splitter->setStretchFactor(1, 1);
  layout->addWidget(splitter, 1);

  m_debounce = new QTimer(this);
  m_debounce->setSingleShot(true);
  m_debounce->setInterval(300);
  connect(m_debounce, &QTimer::timeout, this, [this] {
    m_shownText = m_yaml->toPlainText();
    m_sweep->setText(m_shownText);
  });
  connect(m_yaml, &QPlainTextEdit::textChanged, this, [this] {
    if (m_settingText) return;
    m_debounce->start();
    m_run->setEnabled(false);  // until the document has read what is typed
  });
  connect(newSweep, &QPushButton::clicked, this, &SetupSweepTab::newSweep);
  connect(open, &QPushButton::clicked, this, [this] { openFile(); });
  connect(save, &QPushButton::clicked, this, [this] { saveFile(m_sweep->filePath()); });
  connect(saveAs, &QPushButton::clicked, this, [this] { saveFile(); });
  connect(m_problems, &SetupProblemList::problemChosen, this, [this](const QString&, int line) {
    if (line > 0) goToLine(line);
  });
  connect(m_slots, &QSpinBox::valueChanged, this, &SetupSweepTab::updateTrialsAtOnce);
  connect(m_pack, &QSpinBox::valueChanged, this, &SetupSweepTab::updateTrialsAtOnce);
  connect(m_run, &QPushButton::clicked, this, [this] {
    flush();
    if (m_sweep->isRunnable())
      emit sweepStartRequested(m_sweep->filePath(), m_slots->value(), m_pack->isEnabled() ? m_pack->value() : 1,
                               m_hosts->chosen());
  });
  connect(m_sweep, &SweepDocument::changed, this, &SetupSweepTab::showDocument);
  showDocument();
}

// Trials at once on the job's target, for the cost: its slots, each a job of `pack` on Slurm.
void SetupSweepTab::updateTrialsAtOnce() {
  m_sweep->setLocalSlots(m_slots->value() * (m_pack->isEnabled() ? m_pack->value() : 1));
}

void SetupSweepTab::flush() {
  if (!m_debounce->isActive()) return;
  m_debounce->stop();
  m_shownText = m_yaml->toPlainText();
  m_sweep->setText(m_shownText);
}

void SetupSweepTab::setHosts(const QList<HostEntry>& hosts) {
  m_hosts->setHosts(hosts);
}

void SetupSweepTab::goToLine(int line) {
  m_yaml->setTextCursor(QTextCursor(m_yaml->document()->findBlockByNumber(line - 1)));
  m_yaml->setFocus(Qt::OtherFocusReason);
}

bool SetupSweepTab::mayReplaceEdits() {
  flush();
  if (!m_sweep->isModified() || !isVisible()) return true;
  const auto answer = QMessageBox::question(
      this, tr("Unsaved changes"), tr("The sweep has changes that are not saved. Save them first?"),
      QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel, QMessageBox::Save);
  if (answer == QMessageBox::Cancel) return false;
  return answer == QMessageBox::Discard || saveFile(m_sweep->filePath());
}

void SetupSweepTab::newSweep() {
  if (mayReplaceEdits()) m_sweep->newSweep();
}

void SetupSweepTab::openFile(const QString& path) {
  const QString file =
      path.isEmpty()
          ? QFileDialog::getOpenFileName(this, tr("Open sweep"), QFileInfo(m_sweep->defaultSaveFile()).absolutePath(),
                                         tr("YAML files (*.yaml *.yml);;All files (*)"))
          : path;
  if (file.isEmpty() || !mayReplaceEdits()) return;
  if (const QString why = m_sweep->open(file); !why.isEmpty())
    m_file->setText(tr("Could not open %1: %2").arg(QDir::toNativeSeparators(file), why));
}

bool SetupSweepTab::saveFile(const QString& path) {
  const QString file = path.isEmpty() ? QFileDialog::getSaveFileName(this, tr("Save sweep"), m_sweep->defaultSaveFile(),
                                                                     tr("YAML files (*.yaml *.yml)"))
                                      : path;
  if (file.isEmpty()) return false;
  if (isInAny(file, m_forbiddenDirs)) {
    m_file->setText(tr("Not saved: %1 is in the app's presets folder; save the job and its sweep elsewhere.")
                        .arg(QDir::toNativeSeparators(file)));
    return false;
  }
  flush();
  if (const QString why = m_sweep->saveTo(file); !why.isEmpty()) {
    m_file->setText(tr("Could not save %1: %2").arg(QDir::toNativeSeparators(file), why));
    return false;
  }
  return true;
}

void SetupSweepTab::showDocument() {
  if (m_sweep->text() != m_shownText) {  // a new text: typing not read is dropped
    m_debounce->stop();
    m_shownText = m_sweep->text();
    m_settingText = true;
    m_yaml->setPlainText(m_shownText);
    m_settingText = false;
  }
  const QString& file = m_sweep->filePath();
  m_file->setText(file.isEmpty()          ? tr("(not saved)")
                  : m_sweep->isModified() ? tr("%1 (edited)").arg(QDir::toNativeSeparators(file))
                                          : QDir::toNativeSeparators(file));
  m_yaml->setExtraSelections(problemMarks(m_yaml->document(), m_sweep->problems()));
  m_problems->showProblems(m_sweep->problems(), tr("No problems: the sweep and each of its trials check out."));
  m_summary->setSummary(m_sweep->summary(), m_sweep->localSlots());
  if (m_pack->isEnabled() != m_sweep->summary().onSlurm) {
    m_pack->setEnabled(m_sweep->summary().onSlurm);
    updateTrialsAtOnce();
  }
  m_run->setEnabled(m_sweep->isRunnable());
  m_runNote->setText(m_sweep->isRunnable()            ? QString()
                     : hasErrors(m_sweep->problems()) ? tr("Fix the errors to run the sweep.")
                                                      : tr("Save the sweep to run it: the runner reads its file."));
}

}  // namespace traindeck
