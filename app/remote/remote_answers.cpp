#include "remote_answers.h"

#include <QList>

namespace traindeck {

QMap<QString, QString> parseKeyValues(const QByteArray& answer) {
  QMap<QString, QString> values;
  for (const QByteArray& line : answer.split('\n')) {
    const qsizetype eq = line.indexOf('=');
    if (eq > 0) values[QString::fromUtf8(line.left(eq)).trimmed()] = QString::fromUtf8(line.mid(eq + 1)).trimmed();
  }
  return values;
}

RemoteReadAnswer parseRemoteReadAnswer(const QByteArray& answer, qsizetype* consumed) {
  RemoteReadAnswer out;
  if (consumed) *consumed = 0;
  qsizetype pos = 0;
  const auto nextLine = [&](QByteArray& line) {
    const qsizetype nl = answer.indexOf('\n', pos);
    if (nl < 0) return false;
    line = answer.mid(pos, nl - pos);
    pos = nl + 1;
    return true;
  };
  QByteArray line;
  bool started = false;  // lines before "boot" are the remote shell's own (a chatty .bashrc)
  while (nextLine(line)) {
    if (!started && !line.startsWith("boot ")) continue;
    started = true;
    if (line == "end") {
      out.complete = true;
      if (consumed) *consumed = pos;
      return out;
    }
    if (line.startsWith("boot ")) {
      out.bootId = QString::fromUtf8(line.mid(5));
    } else if (line.startsWith("alive ")) {
      out.supervisorAlive = line.mid(6) == "yes";
    } else if (line.startsWith("rundir ")) {
      out.runDirExists = line.mid(7) == "yes";
    } else if (line.startsWith("file ")) {
      // "file NAME SIZE FROM COUNT": NAME has no spaces (the helper lists only our own names).
      const QList<QByteArray> f = line.split(' ');
      bool okSize = false, okFrom = false, okCount = false;
      RemoteFileChunk chunk;
      if (f.size() == 5) {
        chunk.name = QString::fromUtf8(f[1]);
        chunk.size = f[2].toLongLong(&okSize);
        chunk.from = f[3].toLongLong(&okFrom);
      }
      const qint64 count = f.size() == 5 ? f[4].toLongLong(&okCount) : -1;
      if (okSize && okFrom && okCount && count >= 0 && count > answer.size() - pos - 1) break;  // still coming
      if (!okSize || !okFrom || !okCount || count < 0 || answer.at(pos + count) != '\n') {
        out.error = QStringLiteral("a garbled answer near \"%1\"").arg(QString::fromUtf8(line.left(80)));
        return out;
      }
      chunk.bytes = answer.mid(pos, count);
      pos += count + 1;
      out.files.push_back(std::move(chunk));
    } else if (!line.isEmpty()) {
      out.error = QStringLiteral("an unexpected line \"%1\"").arg(QString::fromUtf8(line.left(80)));
      return out;
    }
  }
  out.error = QStringLiteral("the answer was cut short");
  return out;
}

}  // namespace traindeck
