#include "prepare_dialog.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QDirIterator>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QProgressBar>
#include <QPushButton>
#include <QVBoxLayout>

#include "job_files.h"

namespace traindeck {

namespace {
enum SeparatorKind { kNoSeparator, kEmptyLine, kThisLine };
}  // namespace

PrepareDialog::PrepareDialog(const QString& trainBinary, const DataConfig& data, const QString& defaultOutDir,
                             QWidget* parent)
    : QDialog(parent), m_trainBinary(trainBinary), m_data(data) {
  setObjectName("prepareDialog");
  setWindowTitle(tr("Prepare data"));
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(new QLabel(
      tr("Text files become token shards with this job's tokenizer (%1); data.train then names the folder.")
          .arg(data.tokenizer == TokenizerKind::Gpt2 ? QStringLiteral("GPT-2 BPE") : QStringLiteral("bytes")),
      this));
  m_inputs = new QListWidget(this);
  m_inputs->setObjectName("prepareInputs");
  layout->addWidget(m_inputs, 1);
  auto* add = new QHBoxLayout;
  auto* files = new QPushButton(tr("Add files…"), this);
  auto* folder = new QPushButton(tr("Add a folder…"), this);
  folder->setToolTip(tr("Every .txt file under it"));
  add->addWidget(files);
  add->addWidget(folder);
  add->addStretch(1);
  layout->addLayout(add);
  auto* form = new QFormLayout;
  m_out = new QLineEdit(defaultOutDir, this);
  m_out->setObjectName("prepareOut");
  form->addRow(tr("Into the folder:"), m_out);
  auto* separatorRow = new QHBoxLayout;
  m_separatorKind = new QComboBox(this);
  m_separatorKind->setObjectName("prepareSeparatorKind");
  m_separatorKind->addItems({tr("None: each file is one document"), tr("An empty line"), tr("A line holding only:")});
  m_separatorKind->setToolTip(
      tr("What ends a document inside a file (--doc-separator). Documents, not files, are "
         "split between training and validation."));
  m_separator = new QLineEdit(QStringLiteral("%"), this);
  m_separator->setObjectName("prepareSeparator");
  m_separator->setToolTip(tr("For example % in fortune files, or <|endoftext|>"));
  m_separator->setEnabled(false);
  separatorRow->addWidget(m_separatorKind);
  separatorRow->addWidget(m_separator, 1);
  form->addRow(tr("Document separator:"), separatorRow);
  m_valPercent = new QDoubleSpinBox(this);
  m_valPercent->setObjectName("prepareValFraction");
  m_valPercent->setRange(0, 50);
  m_valPercent->setDecimals(2);
  m_valPercent->setSingleStep(0.5);
  m_valPercent->setSuffix(QStringLiteral(" %"));
  m_valPercent->setValue(PrepareSplit{}.valFraction * 100);
  m_valPercent->setToolTip(tr("The expected share of documents in the validation split (--val-fraction); 0: none."));
  form->addRow(tr("Validation:"), m_valPercent);
  layout->addLayout(form);
  m_warning = new QLabel(this);
  m_warning->setObjectName("prepareWarning");
  m_warning->setWordWrap(true);
  m_warning->setTextFormat(Qt::PlainText);
  m_warning->setStyleSheet(QStringLiteral("QLabel { color: #d68a10; font-weight: bold; }"));
  m_warning->hide();
  layout->addWidget(m_warning);
  m_progress = new QProgressBar(this);
  m_progress->setRange(0, 1000);
  m_progress->setValue(0);
  layout->addWidget(m_progress);
  m_status = new QLabel(this);
  m_status->setObjectName("prepareStatus");
  m_status->setWordWrap(true);
  m_status->setTextFormat(Qt::PlainText);
  layout->addWidget(m_status);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
  m_start = buttons->addButton(tr("Prepare"), QDialogButtonBox::AcceptRole);
  m_start->setObjectName("prepareStart");
  layout->addWidget(buttons);
  resize(620, 420);

  connect(files, &QPushButton::clicked, this, &PrepareDialog::addFiles);
  connect(folder, &QPushButton::clicked, this, &PrepareDialog::addFolder);
  connect(m_start, &QPushButton::clicked, this, &PrepareDialog::startPrepare);
  connect(m_separatorKind, &QComboBox::currentIndexChanged, this, [this](int kind) {
    m_separator->setEnabled(kind == kThisLine);
    updateWarning();
  });
  connect(m_separator, &QLineEdit::textChanged, this, &PrepareDialog::updateWarning);
  connect(m_valPercent, &QDoubleSpinBox::valueChanged, this, &PrepareDialog::updateWarning);
  connect(m_inputs->model(), &QAbstractItemModel::rowsInserted, this, &PrepareDialog::updateWarning);
  connect(m_inputs->model(), &QAbstractItemModel::rowsRemoved, this, &PrepareDialog::updateWarning);
  connect(m_inputs->model(), &QAbstractItemModel::modelReset, this, &PrepareDialog::updateWarning);
  connect(buttons, &QDialogButtonBox::rejected, this, &PrepareDialog::reject);
  connect(&m_job, &PrepareJob::progress, this, [this](double percent, const QString& line) {
    m_progress->setValue(static_cast<int>(percent * 10));
    m_status->setText(line);
  });
  connect(&m_job, &PrepareJob::finished, this, [this](bool ok, const QString& dir, const QString& summary) {
    m_start->setEnabled(true);
    m_status->setText(ok ? summary : tr("Not prepared: %1").arg(summary));
    if (!ok) return;
    m_progress->setValue(1000);
    // What the dataset really got: a whole file, or one huge document, can outweigh the rest.
    const QString lopsided = PrepareJob::preparedSplitWarning(dir, split());
    if (!lopsided.isEmpty()) {
      m_warning->setText(lopsided);
      m_warning->show();
    }
    emit prepared(dir);
  });
}

QString PrepareDialog::outDir() const {
  return m_out->text().trimmed();
}

void PrepareDialog::setSplit(const PrepareSplit& split) {
  m_valPercent->setValue(split.valFraction * 100);
  if (split.separator && !split.separator->isEmpty()) m_separator->setText(*split.separator);
  m_separatorKind->setCurrentIndex(!split.separator             ? kNoSeparator
                                   : split.separator->isEmpty() ? kEmptyLine
                                                                : kThisLine);
}

PrepareSplit PrepareDialog::split() const {
  PrepareSplit out;
  out.valFraction = m_valPercent->value() / 100;
  if (m_separatorKind->currentIndex() == kEmptyLine) out.separator = QString();
  if (m_separatorKind->currentIndex() == kThisLine) out.separator = m_separator->text();
  return out;
}

void PrepareDialog::setForbiddenDirs(const QStringList& dirs, const QString& instead) {
  m_forbidden = dirs;
  m_instead = instead;
}

QString PrepareDialog::warningText() const {
  return m_warning->isHidden() ? QString() : m_warning->text();
}

void PrepareDialog::updateWarning() {
  const QString text = PrepareJob::splitWarning(inputs(), split());
  m_warning->setText(text);
  m_warning->setVisible(!text.isEmpty());
}

void PrepareDialog::setInputs(const QStringList& files) {
  m_inputs->clear();
  m_inputs->addItems(files);
}

QStringList PrepareDialog::inputs() const {
  QStringList out;
  for (int i = 0; i < m_inputs->count(); ++i) out << m_inputs->item(i)->text();
  return out;
}

void PrepareDialog::setOutDir(const QString& dir) {
  m_out->setText(dir);
}

QString PrepareDialog::statusText() const {
  return m_status->text();
}

void PrepareDialog::addFiles() {
  const QStringList files =
      QFileDialog::getOpenFileNames(this, tr("Text files"), {}, tr("Text (*.txt);;All files (*)"));
  m_inputs->addItems(files);
}

void PrepareDialog::addFolder() {
  const QString dir = QFileDialog::getExistingDirectory(this, tr("A folder of text files"));
  if (dir.isEmpty()) return;
  QStringList found;
  for (QDirIterator it(dir, {"*.txt"}, QDir::Files, QDirIterator::Subdirectories); it.hasNext();) found << it.next();
  found.sort();
  m_inputs->addItems(found);
  if (found.isEmpty()) m_status->setText(tr("%1 holds no .txt file.").arg(dir));
}

void PrepareDialog::startPrepare() {
  const QStringList files = inputs();
  const QString out = m_out->text().trimmed();
  if (files.isEmpty()) return m_status->setText(tr("Add the text files to prepare first."));
  if (out.isEmpty()) return m_status->setText(tr("Name the folder to prepare them into."));
  if (isInAny(out, m_forbidden))
    return m_status->setText(tr("%1 is inside the app's presets folder, which is not for data: prepare into %2 "
                                "instead.")
                                 .arg(QDir::toNativeSeparators(out), QDir::toNativeSeparators(m_instead)));
  if (QFileInfo::exists(out + "/dataset.json"))
    return m_status->setText(tr("%1 is a prepared dataset already: choose another folder.").arg(out));
  m_start->setEnabled(false);
  m_progress->setValue(0);
  m_status->setText(tr("Preparing %n file(s)…", nullptr, static_cast<int>(files.size())));
  m_job.start(m_trainBinary, m_data, files, out, split());
}

void PrepareDialog::reject() {
  m_job.cancel();  // a half-made folder has no dataset.json: it is never taken for a dataset
  QDialog::reject();
}

}  // namespace traindeck
