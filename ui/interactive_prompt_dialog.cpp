// InteractivePromptDialog's layout: the server's name and instruction as plain text (never read
// as HTML: they come from the server), then one field per question under its own text.
#include "interactive_prompt_dialog.h"

#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QVBoxLayout>

namespace traindeck {

namespace {

QLabel* plainLabel(const QString& text, QWidget* parent) {
  auto* label = new QLabel(parent);
  label->setTextFormat(Qt::PlainText);
  label->setWordWrap(true);
  label->setTextInteractionFlags(Qt::TextSelectableByMouse);
  label->setText(text);
  return label;
}

}  // namespace

InteractivePromptDialog::InteractivePromptDialog(const InteractivePrompt& prompt, QWidget* parent) : QDialog(parent) {
  setWindowTitle(tr("Login to %1").arg(prompt.host));
  auto* layout = new QVBoxLayout(this);
  auto* intro =
      plainLabel(tr("%1 asks (keyboard-interactive login, once for this connection):").arg(prompt.host), this);
  layout->addWidget(intro);
  if (!prompt.name.trimmed().isEmpty()) {
    QLabel* name = plainLabel(prompt.name.trimmed(), this);
    name->setObjectName("promptName");
    QFont bold = name->font();
    bold.setBold(true);
    name->setFont(bold);
    layout->addWidget(name);
  }
  if (!prompt.instruction.trimmed().isEmpty()) {
    QLabel* instruction = plainLabel(prompt.instruction.trimmed(), this);
    instruction->setObjectName("promptInstruction");
    layout->addWidget(instruction);
  }
  if (prompt.attempt > 1) {
    QLabel* again = plainLabel(tr("The server refused the last answer: try again."), this);
    again->setObjectName("promptRetry");
    again->setStyleSheet(QStringLiteral("color: #c0392b"));
    layout->addWidget(again);
  }
  auto* form = new QFormLayout;
  for (const InteractivePrompt::Field& field : prompt.fields) {
    auto* edit = new QLineEdit(this);
    edit->setObjectName(QStringLiteral("answer%1").arg(m_fields.size()));
    edit->setEchoMode(field.echo ? QLineEdit::Normal : QLineEdit::Password);
    form->addRow(plainLabel(field.text.trimmed(), this), edit);
    m_fields << edit;
  }
  layout->addLayout(form);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
  buttons->button(QDialogButtonBox::Ok)->setText(tr("Log in"));
  connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  layout->addWidget(buttons);
  if (!m_fields.isEmpty()) m_fields.front()->setFocus();
}

QList<QByteArray> InteractivePromptDialog::takeAnswers() {
  QList<QByteArray> answers;
  for (QLineEdit* field : m_fields) {
    answers << field->text().toUtf8();
    field->clear();
  }
  return answers;
}

InteractiveAnswers InteractivePromptDialog::ask(const InteractivePrompt& prompt, QWidget* parent) {
  InteractivePromptDialog dialog(prompt, parent);
  if (dialog.exec() != QDialog::Accepted) return std::nullopt;
  return dialog.takeAnswers();
}

}  // namespace traindeck
