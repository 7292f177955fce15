// HostsDialog: list on the left, the selected host's fields on the right; edits are saved
// as they are made when valid. The Test button runs checkSsh on a QThread.
#include "hosts_dialog.h"

#include <QApplication>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QInputDialog>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QLocale>
#include <QPointer>
#include <QPushButton>
#include <QThread>
#include <QVBoxLayout>

#include <algorithm>

#include "ask_and_wait.h"
#include "check_ssh.h"
#include "colab_runtime_dialog.h"
#include "host_key_prompt.h"
#include "interactive_prompt_dialog.h"

namespace traindeck {

HostsDialog::HostsDialog(QSettings& settings, QWidget* parent) : QDialog(parent), m_settings(settings) {
  setWindowTitle(tr("Hosts"));
  m_hosts = HostStore::load(m_settings);
  auto* layout = new QHBoxLayout(this);
  auto* left = new QVBoxLayout;
  m_list = new QListWidget;
  m_list->setObjectName("hostList");
  left->addWidget(m_list);
  auto* listButtons = new QHBoxLayout;
  auto* add = new QPushButton(tr("Add"));
  auto* remove = new QPushButton(tr("Remove"));
  add->setObjectName("addHost");
  remove->setObjectName("removeHost");
  listButtons->addWidget(add);
  listButtons->addWidget(remove);
  left->addLayout(listButtons);
  auto* addColab = new QPushButton(tr("Add Colab runtime…"));
  addColab->setObjectName("addColabRuntime");
  left->addWidget(addColab);
  layout->addLayout(left, 1);

  auto* right = new QVBoxLayout;
  auto* form = new QFormLayout;
  m_name = new QLineEdit;
  m_spec = new QLineEdit;
  m_spec->setPlaceholderText(tr("[user@]host[:port] or an alias from ~/.ssh/config"));
  m_identity = new QLineEdit;
  m_identity->setPlaceholderText(tr("optional: ssh-agent and ~/.ssh/id_* are tried too"));
  m_proxy = new QLineEdit;
  m_proxy->setPlaceholderText(tr("optional, e.g. cloudflared access ssh --hostname %h"));
  m_name->setObjectName("hostName");
  m_spec->setObjectName("hostSpec");
  m_identity->setObjectName("identityFile");
  m_proxy->setObjectName("proxyCommand");
  auto* identityRow = new QHBoxLayout;
  auto* browse = new QPushButton(tr("Browse…"));
  identityRow->addWidget(m_identity);
  identityRow->addWidget(browse);
  form->addRow(tr("Name:"), m_name);
  form->addRow(tr("Host:"), m_spec);
  form->addRow(tr("Key file:"), identityRow);
  form->addRow(tr("ProxyCommand:"), m_proxy);
  right->addLayout(form);
  m_problem = new QLabel;
  m_problem->setObjectName("problem");
  m_problem->setWordWrap(true);
  m_problem->setStyleSheet("color: #b00020");
  right->addWidget(m_problem);
  m_testButton = new QPushButton(tr("Test connection"));
  m_testButton->setObjectName("testHost");
  right->addWidget(m_testButton, 0, Qt::AlignLeft);
  m_result = new QLabel;
  m_result->setObjectName("testResult");
  m_result->setWordWrap(true);
  m_result->setTextFormat(Qt::PlainText);  // it shows what the server and the proxy said
  m_result->setTextInteractionFlags(Qt::TextSelectableByMouse);
  right->addWidget(m_result);
  m_probe = new QLabel;
  m_probe->setObjectName("hostProbe");
  m_probe->setWordWrap(true);
  m_probe->setTextFormat(Qt::PlainText);
  m_probe->setToolTip(tr("What the host had when TrainDeck last looked (Test, or a start there)."));
  right->addWidget(m_probe);
  right->addStretch(1);
  auto* close = new QDialogButtonBox(QDialogButtonBox::Close);
  right->addWidget(close);
  layout->addLayout(right, 2);
  resize(760, 360);

  for (const HostEntry& h : m_hosts) m_list->addItem(h.name);
  connect(m_list, &QListWidget::currentRowChanged, this, &HostsDialog::showHost);
  connect(add, &QPushButton::clicked, this, &HostsDialog::addHost);
  connect(remove, &QPushButton::clicked, this, &HostsDialog::removeHost);
  connect(addColab, &QPushButton::clicked, this, [this] {
    ColabRuntimeDialog dialog(this);
    if (dialog.exec() == QDialog::Accepted) addEntry(dialog.host());
  });
  connect(m_testButton, &QPushButton::clicked, this, &HostsDialog::testHost);
  connect(close, &QDialogButtonBox::rejected, this, &QDialog::reject);
  connect(browse, &QPushButton::clicked, this, [this] {
    const QString file = QFileDialog::getOpenFileName(this, tr("Private key"), QDir::homePath() + "/.ssh");
    if (!file.isEmpty()) m_identity->setText(file);
  });
  for (QLineEdit* edit : {m_name, m_spec, m_identity, m_proxy})
    connect(edit, &QLineEdit::textEdited, this, &HostsDialog::storeEdits);
  m_list->setCurrentRow(m_hosts.isEmpty() ? -1 : 0);
  showHost(m_list->currentRow());
}

HostsDialog::~HostsDialog() {
  *m_closing = true;  // a prompt the test thread is waiting for gives up; its result is dropped
}

void HostsDialog::showHost(int row) {
  m_loading = true;
  const bool valid = row >= 0 && row < m_hosts.size();
  const HostEntry h = valid ? m_hosts[row] : HostEntry{};
  m_name->setText(h.name);
  m_spec->setText(h.spec);
  m_identity->setText(h.identityFile);
  m_proxy->setText(h.proxyCommand);
  for (QLineEdit* edit : {m_name, m_spec, m_identity, m_proxy}) edit->setEnabled(valid);
  m_testButton->setEnabled(valid && !isTesting());
  m_problem->clear();
  m_result->clear();
  const std::optional<HostStore::StoredProbe> stored = valid ? HostStore::probeFor(m_settings, h.spec) : std::nullopt;
  m_probe->setText(
      stored ? tr("Has (as of %1): %2")
                   .arg(QLocale().toString(stored->at.toLocalTime(), QLocale::ShortFormat), stored->probe.summary())
      : valid ? tr("Not probed yet: Test connection asks what it has.")
              : QString());
  m_loading = false;
}

void HostsDialog::storeEdits() {
  const int row = m_list->currentRow();
  if (m_loading || row < 0) return;
  const HostEntry edited{m_name->text().trimmed(), m_spec->text().trimmed(), m_identity->text().trimmed(),
                         m_proxy->text().trimmed()};
  QList<HostEntry> others = m_hosts;
  others.removeAt(row);
  const QString problem = HostStore::problem(edited, others);
  m_problem->setText(problem);
  if (!problem.isEmpty()) return;  // keep the last valid entry saved
  m_hosts[row] = edited;
  m_list->item(row)->setText(edited.name);
  save();
}

void HostsDialog::save() {
  HostStore::save(m_settings, m_hosts);
}

void HostsDialog::addHost() {
  addEntry({tr("new host"), "user@host", QString(), QString()});
  m_spec->setFocus();
  m_spec->selectAll();
}

void HostsDialog::addEntry(HostEntry entry) {
  const QString base = entry.name;
  for (int i = 2; std::any_of(m_hosts.begin(), m_hosts.end(), [&](const HostEntry& h) { return h.name == entry.name; });
       ++i)
    entry.name = QStringLiteral("%1 %2").arg(base).arg(i);
  m_hosts.append(entry);
  m_list->addItem(entry.name);
  save();
  m_list->setCurrentRow(static_cast<int>(m_hosts.size()) - 1);
}

void HostsDialog::removeHost() {
  const int row = m_list->currentRow();
  if (row < 0) return;
  m_hosts.removeAt(row);
  delete m_list->takeItem(row);
  save();
  showHost(m_list->currentRow());
}

void HostsDialog::testHost() {
  const int row = m_list->currentRow();
  if (row < 0 || isTesting()) return;
  CheckSshOptions options;
  options.spec = m_hosts[row].spec;
  options.identityFile = m_hosts[row].identityFile;
  options.proxyCommand = m_hosts[row].proxyCommand;
  options.probeScript = m_probeScript;
  ConnectCallbacks callbacks;
  // These run on the test thread and wait for the GUI thread, where the dialogs are shown. The
  // application object is their context and `self` is checked there, so a closed dialog is
  // never touched.
  const QPointer<HostsDialog> self(this);
  const std::shared_ptr<std::atomic<bool>> closing = m_closing;
  callbacks.confirmHostKey = [self, closing](const HostKeyInfo& key) {
    return askAndWait<HostKeyDecision>(
        qApp, [self, key] { return self ? HostKeyPrompt::ask(key, self) : HostKeyDecision::Reject; }, *closing,
        HostKeyDecision::Reject);
  };
  callbacks.askSecret = [self, closing](const QString& prompt) {
    return askAndWait<std::optional<QByteArray>>(
        qApp,
        [self, prompt]() -> std::optional<QByteArray> {
          if (!self) return std::nullopt;
          bool ok = false;
          const QString text = QInputDialog::getText(self, tr("SSH"), prompt, QLineEdit::Password, QString(), &ok);
          return ok ? std::optional<QByteArray>(text.toUtf8()) : std::nullopt;
        },
        *closing, std::nullopt);
  };
  callbacks.askInteractive = [self, closing](const InteractivePrompt& prompt) {
    return askAndWait<InteractiveAnswers>(
        qApp, [self, prompt] { return self ? InteractivePromptDialog::ask(prompt, self) : std::nullopt; }, *closing,
        std::nullopt);
  };
  m_testing = true;
  m_testButton->setEnabled(false);
  m_result->setText(tr("Connecting to %1…").arg(options.spec));
  QThread* thread = QThread::create([self, options, callbacks] {
    const CheckSshResult r = checkSsh(options, callbacks);
    QMetaObject::invokeMethod(qApp, [self, r, spec = options.spec] {
      if (!self) return;
      self->m_testing = false;
      self->m_result->setText(r.line);
      if (r.probe.complete) {
        HostStore::saveProbe(self->m_settings, spec, r.probe);
        self->showHost(self->m_list->currentRow());
        self->m_result->setText(r.line);
        emit self->hostProbed(spec);
      }
      self->m_testButton->setEnabled(self->m_list->currentRow() >= 0);
      emit self->testFinished(r.ok, r.line);
    });
  });
  connect(thread, &QThread::finished, thread, &QObject::deleteLater);
  thread->start();
}

}  // namespace traindeck
