// `traindeck --check-ssh ...` run as a script runs it, for the tests that drive the CLI: HOME is
// the test's, no agent (SSH_AUTH_SOCK unset) and no display, `input` on stdin then closed.
#pragma once

#include <QByteArray>
#include <QString>
#include <QStringList>

namespace traindeck::test {

struct CheckSshRun {
  int code = -1;  // -1: it did not end within 30 s
  QString out, err;
};

CheckSshRun runCheckSsh(const QString& traindeck, const QString& home, const QStringList& args,
                        const QByteArray& input = QByteArray());

}  // namespace traindeck::test
