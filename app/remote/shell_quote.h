// Quoting for remote command lines: every word that reaches the remote shell goes through
// shellQuote, so names holding $(...), backquotes, quotes, ; or newlines stay plain data.
#pragma once

#include <QString>
#include <QStringList>

namespace traindeck {

// One word for a POSIX shell: unchanged when it holds only safe characters, else wrapped in
// single quotes (a ' inside becomes '\''). The empty string becomes ''.
QString shellQuote(const QString& word);

// argv joined into one command line, each word quoted.
QString shellJoin(const QStringList& argv);

}  // namespace traindeck
