#include "export_dialog.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QToolButton>
#include <QVBoxLayout>

#include "export/export_strategy.h"

namespace traindeck {

QString defaultExportFolder(const QString& jobFile, const QStringList& presetDirs, const QString& dataDir) {
  std::vector<std::string> presets;
  for (const QString& dir : presetDirs) presets.push_back(dir.toStdString());
  return QString::fromStdString(defaultExportDir(jobFile.toStdString(), presets, dataDir.toStdString()));
}

ExportDialog::ExportDialog(const ExportRequest& request, const QString& defaultOutDir, QWidget* parent)
    : QDialog(parent), m_request(request) {
  setObjectName("exportDialog");
  setWindowTitle(tr("Export the job as a notebook"));
  auto* layout = new QVBoxLayout(this);
  auto* form = new QFormLayout;
  m_framework = new QComboBox(this);
  m_framework->setObjectName("exportFramework");
  for (const FrameworkInfo& f : exportFrameworks())
    m_framework->addItem(QString::fromStdString(f.title), QString::fromStdString(f.name));
  m_place = new QComboBox(this);
  m_place->setObjectName("exportPlace");
  for (const PlaceInfo& p : exportPlaces())
    m_place->addItem(QString::fromStdString(p.title), QString::fromStdString(p.name));
  auto* outRow = new QHBoxLayout;
  m_out = new QLineEdit(defaultOutDir, this);
  m_out->setObjectName("exportOut");
  auto* browse = new QToolButton(this);
  browse->setText(tr("Browse…"));
  connect(browse, &QToolButton::clicked, this, [this] {
    const QString dir = QFileDialog::getExistingDirectory(this, tr("Export into"), m_out->text());
    if (!dir.isEmpty()) m_out->setText(dir);
  });
  outRow->addWidget(m_out, 1);
  outRow->addWidget(browse);
  form->addRow(tr("Framework"), m_framework);
  form->addRow(tr("Where it runs"), m_place);
  form->addRow(tr("Into folder"), outRow);
  layout->addLayout(form);
  m_note = new QLabel(this);
  m_note->setObjectName("exportNote");
  m_note->setWordWrap(true);
  layout->addWidget(m_note);
  m_result = new QLabel(this);
  m_result->setObjectName("exportResult");
  m_result->setWordWrap(true);
  m_result->setTextInteractionFlags(Qt::TextSelectableByMouse);
  layout->addWidget(m_result);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
  m_exportButton = buttons->addButton(tr("Export"), QDialogButtonBox::AcceptRole);
  m_exportButton->setObjectName("exportButton");
  connect(m_exportButton, &QPushButton::clicked, this, [this] { exportNow(); });
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  layout->addWidget(buttons);
  connect(m_framework, &QComboBox::currentIndexChanged, this, &ExportDialog::describe);
  connect(m_place, &QComboBox::currentIndexChanged, this, &ExportDialog::describe);
  choose("pytorch-ddp", QString::fromStdString(suggestedPlace(request.config, request.source)));
  describe();
  resize(560, sizeHint().height());
}

void ExportDialog::choose(const QString& framework, const QString& place) {
  if (const int i = m_framework->findData(framework); i >= 0) m_framework->setCurrentIndex(i);
  if (const int i = m_place->findData(place); i >= 0) m_place->setCurrentIndex(i);
}

QString ExportDialog::frameworkName() const {
  return m_framework->currentData().toString();
}

QString ExportDialog::placeName() const {
  return m_place->currentData().toString();
}

void ExportDialog::setOutDir(const QString& dir) {
  m_out->setText(dir);
}

QString ExportDialog::outDir() const {
  return m_out->text();
}

QString ExportDialog::noteText() const {
  return m_note->text();
}

void ExportDialog::describe() {
  const auto framework = frameworkNamed(frameworkName().toStdString());
  const auto place = placeNamed(placeName().toStdString());
  if (!framework || !place) return;
  const std::string problem = exportRefusal(m_request.config, *framework, *place);
  m_exportButton->setEnabled(problem.empty());
  if (!problem.empty()) {
    m_note->setText(tr("Not possible: %1.").arg(QString::fromStdString(problem)));
    return;
  }
  const CarriedStrategy strategy =
      carriedStrategy(m_request.config.strategy.kind, *framework, *place, exportDevices(m_request.config, *place));
  QString text = QString::fromStdString(place->note) + tr(" Strategy: %1").arg(QString::fromStdString(strategy.how));
  text += framework->testedHere && strategy.testedHere
              ? tr(" Our tests run this path against TrainDeck's own trainer.")
              : tr(" Generated from the documented API, not run by our tests.");
  if (!framework->expectedToWork)
    text +=
        tr(" Not expected to work on 2026's Colab or Kaggle images: neither TPU image has TensorFlow for TPUs "
           "(use Keras 3 on JAX or PyTorch/XLA there).");
  m_note->setText(text);
}

QString ExportDialog::exportNow() {
  const auto framework = frameworkNamed(frameworkName().toStdString());
  const auto place = placeNamed(placeName().toStdString());
  QString result;
  if (framework && place) {
    ExportRequest request = m_request;
    request.framework = *framework;
    request.place = *place;
    try {
      const ExportedJob job = makeExport(request);
      const std::string error = writeExport(job, m_out->text().toStdString());
      const QString base = QDir(m_out->text()).filePath(QString::fromStdString(job.baseName));
      result = error.empty() ? tr("Wrote %1.py and %1.ipynb (open the notebook in Colab, or run the script).").arg(base)
                             : tr("Cannot export: %1").arg(QString::fromStdString(error));
    } catch (const ExportError& e) {
      result = tr("Cannot export: %1.").arg(QString::fromStdString(e.what()));
    }
  }
  m_result->setText(result);
  adjustSize();  // room for the sentence
  return result;
}

}  // namespace traindeck
