#include "prepare_dialog.h"

#include <QDialogButtonBox>
#include <QDirIterator>
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

namespace traindeck {

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
  layout->addLayout(form);
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
    emit prepared(dir);
  });
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
  if (QFileInfo::exists(out + "/dataset.json"))
    return m_status->setText(tr("%1 is a prepared dataset already: choose another folder.").arg(out));
  m_start->setEnabled(false);
  m_progress->setValue(0);
  m_status->setText(tr("Preparing %n file(s)…", nullptr, static_cast<int>(files.size())));
  m_job.start(m_trainBinary, m_data, files, out);
}

void PrepareDialog::reject() {
  m_job.cancel();  // a half-made folder has no dataset.json: it is never taken for a dataset
  QDialog::reject();
}

}  // namespace traindeck
