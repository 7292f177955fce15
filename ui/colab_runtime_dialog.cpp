#include "colab_runtime_dialog.h"

#include <QClipboard>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QFile>
#include <QFileDialog>
#include <QFormLayout>
#include <QGuiApplication>
#include <QHBoxLayout>
#include <QInputDialog>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSaveFile>
#include <QStandardPaths>
#include <QTabWidget>
#include <QVBoxLayout>

#include "colab_access.h"

namespace traindeck {

namespace {

QString firstExistingKey() {
  for (const QString& path :
       {defaultTrainDeckKeyPath(), QDir::home().filePath(".ssh/id_ed25519"), QDir::home().filePath(".ssh/id_ecdsa")})
    if (QFile::exists(path) && QFile::exists(path + ".pub")) return path;
  return {};
}

}  // namespace

ColabRuntimeDialog::ColabRuntimeDialog(QWidget* parent) : QDialog(parent) {
  setWindowTitle(tr("Add a Colab runtime"));
  auto* layout = new QVBoxLayout(this);
  auto* terms = new QLabel(colabTermsText());
  terms->setObjectName("colabTerms");
  terms->setWordWrap(true);
  terms->setStyleSheet("QLabel { background: #fff8e1; border: 1px solid #f0d58c; padding: 8px; }");
  layout->addWidget(terms);

  auto* keyRow = new QHBoxLayout;
  m_key = new QLineEdit(firstExistingKey());
  m_key->setObjectName("colabKey");
  m_key->setPlaceholderText(tr("an ed25519 or ECDSA private key; its .pub goes to the runtime"));
  auto* browse = new QPushButton(tr("Browse…"));
  auto* make = new QPushButton(tr("Make a TrainDeck key…"));
  make->setObjectName("makeKey");
  keyRow->addWidget(m_key, 1);
  keyRow->addWidget(browse);
  keyRow->addWidget(make);
  auto* keyForm = new QFormLayout;
  keyForm->addRow(tr("Key file:"), keyRow);
  layout->addLayout(keyForm);

  m_ways = new QTabWidget;
  m_ways->setObjectName("colabWays");
  auto* cli = new QWidget;
  auto* cliForm = new QFormLayout(cli);
  m_session = new QLineEdit(QStringLiteral("traindeck"));
  m_session->setObjectName("colabSession");
  m_accelerator = new QComboBox;
  m_accelerator->setObjectName("colabAccelerator");
  m_accelerator->addItem(tr("CPU only"), QString());
  for (const QString& gpu : colabGpuChoices()) m_accelerator->addItem(tr("GPU %1").arg(gpu), gpu);
  for (const QString& tpu : colabTpuChoices()) m_accelerator->addItem(tr("TPU %1").arg(tpu), tpu);
  m_accelerator->setCurrentIndex(m_accelerator->findData(QStringLiteral("A100")));
  m_colab = new QLineEdit(QStandardPaths::findExecutable(QStringLiteral("colab")));
  m_colab->setObjectName("colabProgram");
  m_colab->setPlaceholderText(tr("absolute path of colab (pip install google-colab-cli)"));
  auto* setup = new QPlainTextEdit(colabCliSetupCommands());
  setup->setReadOnly(true);
  setup->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  setup->setMaximumHeight(setup->fontMetrics().lineSpacing() * 3 + 12);
  cliForm->addRow(tr("Runtime name:"), m_session);
  cliForm->addRow(tr("Accelerator:"), m_accelerator);
  cliForm->addRow(tr("colab program:"), m_colab);
  cliForm->addRow(tr("Once, in a terminal:"), setup);
  auto* cliNote =
      new QLabel(tr("The first connection creates the runtime with SSH on. Colab allows one SSH "
                    "connection per runtime: close other SSH sessions to it first."));
  cliNote->setWordWrap(true);
  cliForm->addRow(cliNote);
  m_ways->addTab(cli, tr("Colab CLI"));

  auto* cellTab = new QWidget;
  auto* cellLayout = new QVBoxLayout(cellTab);
  auto* steps =
      new QLabel(tr("1. Copy the cell (or save it as a notebook) and run it in a paid Colab runtime.\n"
                    "2. It starts sshd for your key only and a cloudflared tunnel, and prints a hostname.\n"
                    "3. Paste that hostname here. cloudflared must be installed on this computer."));
  steps->setWordWrap(true);
  cellLayout->addWidget(steps);
  auto* cellButtons = new QHBoxLayout;
  auto* copy = new QPushButton(tr("Copy cell"));
  copy->setObjectName("copyCell");
  auto* save = new QPushButton(tr("Save notebook…"));
  save->setObjectName("saveNotebook");
  cellButtons->addWidget(copy);
  cellButtons->addWidget(save);
  cellButtons->addStretch(1);
  cellLayout->addLayout(cellButtons);
  auto* hostForm = new QFormLayout;
  m_hostname = new QLineEdit;
  m_hostname->setObjectName("colabHostname");
  m_hostname->setPlaceholderText(tr("something.trycloudflare.com, as the cell printed it"));
  hostForm->addRow(tr("Hostname:"), m_hostname);
  cellLayout->addLayout(hostForm);
  cellLayout->addStretch(1);
  m_ways->addTab(cellTab, tr("Notebook cell"));
  layout->addWidget(m_ways, 1);

  m_problem = new QLabel;
  m_problem->setObjectName("colabProblem");
  m_problem->setWordWrap(true);
  m_problem->setStyleSheet("color: #b00020");
  layout->addWidget(m_problem);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
  m_ok = buttons->button(QDialogButtonBox::Ok);
  m_ok->setText(tr("Add host"));
  layout->addWidget(buttons);

  connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  connect(copy, &QPushButton::clicked, this, &ColabRuntimeDialog::copyCell);
  connect(save, &QPushButton::clicked, this, &ColabRuntimeDialog::saveNotebook);
  connect(make, &QPushButton::clicked, this, &ColabRuntimeDialog::makeKey);
  connect(browse, &QPushButton::clicked, this, [this] {
    const QString file = QFileDialog::getOpenFileName(this, tr("Private key"), QDir::home().filePath(".ssh"));
    if (!file.isEmpty()) m_key->setText(file);
  });
  for (QLineEdit* edit : {m_key, m_session, m_colab, m_hostname})
    connect(edit, &QLineEdit::textChanged, this, &ColabRuntimeDialog::updateProblem);
  connect(m_accelerator, &QComboBox::currentIndexChanged, this, &ColabRuntimeDialog::updateProblem);
  connect(m_ways, &QTabWidget::currentChanged, this, &ColabRuntimeDialog::updateProblem);
  resize(680, 480);
  updateProblem();
}

QString ColabRuntimeDialog::publicKey() const {
  return publicKeyOf(m_key->text()).value_or(QString());
}

ColabCliRuntime ColabRuntimeDialog::cliRuntime() const {
  return {m_session->text(), m_accelerator->currentData().toString(), m_colab->text(), m_key->text()};
}

QString ColabRuntimeDialog::cell() const {
  const QString key = publicKey();
  return publicKeyProblem(key).isEmpty() ? colabSshCell(key) : QString();
}

QString ColabRuntimeDialog::problem() const {
  if (m_key->text().isEmpty()) return tr("Pick a key file, or make a TrainDeck key.");
  if (m_ways->currentIndex() == 0) return colabCliProblem(cliRuntime());
  if (const QString keyProblem = publicKeyProblem(publicKey()); !keyProblem.isEmpty()) return keyProblem;
  if (trycloudflareHostname(m_hostname->text()).isEmpty())
    return m_hostname->text().isEmpty() ? tr("Run the cell in Colab, then paste the hostname it printed.")
                                        : tr("That is not a trycloudflare.com hostname.");
  return cloudflaredProblem();  // the host is reached through it
}

HostEntry ColabRuntimeDialog::host() const {
  if (m_ways->currentIndex() == 0) return colabCliHost(cliRuntime());
  return colabTunnelHost(trycloudflareHostname(m_hostname->text()), m_key->text());
}

void ColabRuntimeDialog::updateProblem() {
  const QString text = problem();
  m_problem->setText(text);
  m_ok->setEnabled(text.isEmpty());
}

void ColabRuntimeDialog::copyCell() {
  const QString text = cell();
  if (text.isEmpty()) {
    QMessageBox::warning(this, tr("No cell"), publicKeyProblem(publicKey()));
    return;
  }
  QGuiApplication::clipboard()->setText(text);
  m_problem->setText(tr("The cell is on the clipboard: paste it into a Colab code cell and run it."));
}

void ColabRuntimeDialog::saveNotebook() {
  const QString key = publicKey();
  if (const QString keyProblem = publicKeyProblem(key); !keyProblem.isEmpty()) {
    QMessageBox::warning(this, tr("No notebook"), keyProblem);
    return;
  }
  const QString path = QFileDialog::getSaveFileName(
      this, tr("Save notebook"), QDir::home().filePath("traindeck-ssh.ipynb"), tr("Notebooks (*.ipynb)"));
  if (path.isEmpty()) return;
  QSaveFile file(path);
  if (!file.open(QIODevice::WriteOnly) || file.write(colabSshNotebook(key)) < 0 || !file.commit())
    QMessageBox::warning(this, tr("Not saved"), tr("%1 could not be written: %2").arg(path, file.errorString()));
}

void ColabRuntimeDialog::makeKey() {
  const QString path = defaultTrainDeckKeyPath();
  const auto answer =
      QMessageBox::question(this, tr("Make a key"),
                            tr("TrainDeck will run ssh-keygen to make an ed25519 key pair at\n%1 (and %1.pub).\n"
                               "It never overwrites a file. Only the public half goes to Colab. Make it?")
                                .arg(path));
  if (answer != QMessageBox::Yes) return;
  bool ok = false;
  const QString passphrase =
      QInputDialog::getText(this, tr("Passphrase"),
                            tr("A passphrase for the key (empty: none; TrainDeck will ask for it "
                               "each time it connects):"),
                            QLineEdit::Password, QString(), &ok);
  if (!ok) return;
  if (const QString error = makeEd25519Key(path, passphrase); !error.isEmpty()) {
    QMessageBox::warning(this, tr("No key made"), error);
    return;
  }
  m_key->setText(path);
}

}  // namespace traindeck
