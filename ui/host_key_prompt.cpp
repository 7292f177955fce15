// HostKeyPrompt's layout: the facts in a form, the fingerprint selectable in a fixed font so
// that it can be compared character by character with what the server's owner reads out.
#include "host_key_prompt.h"

#include <QDialogButtonBox>
#include <QFontDatabase>
#include <QFormLayout>
#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>

namespace traindeck {

HostKeyPrompt::HostKeyPrompt(const HostKeyInfo& key, QWidget* parent) : QDialog(parent) {
  setWindowTitle(tr("Unknown host key"));
  auto* layout = new QVBoxLayout(this);
  auto* intro = new QLabel(tr("This is the first connection to <b>%1</b>. Check that its host key is the one "
                              "the server's owner gives you before going on.")
                               .arg(key.hostName.toHtmlEscaped()));
  intro->setWordWrap(true);
  layout->addWidget(intro);
  auto* form = new QFormLayout;
  auto* fingerprint = new QLabel(key.fingerprint);
  fingerprint->setObjectName("fingerprint");
  fingerprint->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  fingerprint->setTextInteractionFlags(Qt::TextSelectableByMouse);
  form->addRow(tr("Key type:"), new QLabel(key.keyType));
  form->addRow(tr("Fingerprint:"), fingerprint);
  form->addRow(tr("Remembered in:"), new QLabel(key.knownHostsFile));
  layout->addLayout(form);
  auto* buttons = new QDialogButtonBox;
  QPushButton* once = buttons->addButton(tr("Accept once"), QDialogButtonBox::AcceptRole);
  QPushButton* remember = buttons->addButton(tr("Accept and remember"), QDialogButtonBox::AcceptRole);
  buttons->addButton(QDialogButtonBox::Cancel);
  once->setObjectName("acceptOnce");
  remember->setObjectName("acceptAndRemember");
  connect(once, &QPushButton::clicked, this, [this] {
    m_decision = HostKeyDecision::AcceptOnce;
    accept();
  });
  connect(remember, &QPushButton::clicked, this, [this] {
    m_decision = HostKeyDecision::AcceptAndRemember;
    accept();
  });
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  layout->addWidget(buttons);
  buttons->button(QDialogButtonBox::Cancel)->setDefault(true);  // Enter must not trust a key
}

HostKeyDecision HostKeyPrompt::ask(const HostKeyInfo& key, QWidget* parent) {
  HostKeyPrompt prompt(key, parent);
  return prompt.exec() == QDialog::Accepted ? prompt.decision() : HostKeyDecision::Reject;
}

}  // namespace traindeck
