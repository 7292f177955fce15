// InteractivePrompt: one round of SSH keyboard-interactive authentication (RFC 4256) as the
// server words it: a second factor on MFA login nodes (a TOTP code, a Duo passcode or "1" for a
// push). The texts are the server's, shown as they are; the answers go back in order.
#pragma once

#include <QByteArray>
#include <QList>
#include <QString>
#include <functional>
#include <optional>

namespace traindeck {

struct InteractivePrompt {
  struct Field {
    QString text;       // "Verification code: "
    bool echo = false;  // false: a secret, typed without showing it
  };
  QString host;         // user@host:port, for the title
  QString name;         // the server's name for this round; often empty
  QString instruction;  // the server's instruction, several lines at times; often empty
  QList<Field> fields;  // at least one: rounds without fields are answered without asking
  int attempt = 1;      // 2 and on: the server refused the previous answers
};

// The answers, one per field in order; nullopt when the user cancels. The caller wipes nothing:
// SshConnection overwrites the returned bytes once they are sent.
using InteractiveAnswers = std::optional<QList<QByteArray>>;
using AskInteractive = std::function<InteractiveAnswers(const InteractivePrompt& prompt)>;

}  // namespace traindeck
