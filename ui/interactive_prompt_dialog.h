// InteractivePromptDialog: the server's keyboard-interactive questions (a second factor on MFA
// login nodes: "Verification code: ", a Duo passcode) in a dialog, worded as the server words
// them; answers to questions the server marks as secret are typed without showing them.
#pragma once

#include <QDialog>
#include <QList>

#include "interactive_prompt.h"

class QLineEdit;

namespace traindeck {

class InteractivePromptDialog : public QDialog {
  Q_OBJECT
 public:
  explicit InteractivePromptDialog(const InteractivePrompt& prompt, QWidget* parent = nullptr);
  // The answers in the server's order; the fields are emptied.
  QList<QByteArray> takeAnswers();
  // Shows the dialog modally; nullopt when cancelled or closed.
  static InteractiveAnswers ask(const InteractivePrompt& prompt, QWidget* parent);

 private:
  QList<QLineEdit*> m_fields;
};

}  // namespace traindeck
