// POSIX shell quoting. Single quotes are the only quoting in which the shell interprets
// nothing at all, so everything unsafe goes inside them.
#include "shell_quote.h"

namespace traindeck {

namespace {

bool isSafe(QChar c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
         QStringView(u"_-./:@%+=,").contains(c);
}

}  // namespace

QString shellQuote(const QString& word) {
  if (word.isEmpty()) return "''";
  bool safe = true;
  for (QChar c : word) safe = safe && isSafe(c);
  if (safe) return word;
  QString out = "'";
  for (QChar c : word) {
    if (c == '\'')
      out += "'\\''";
    else
      out += c;
  }
  return out + "'";
}

QString shellJoin(const QStringList& argv) {
  QStringList quoted;
  for (const QString& w : argv) quoted << shellQuote(w);
  return quoted.join(' ');
}

}  // namespace traindeck
