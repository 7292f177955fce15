// Files of other tools' runs written by the app tests: a text file (made with its folders) and
// llm.c's main.log lines.
#pragma once

#include <QByteArray>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QString>
#include <QtTest>

namespace traindeck {

inline void writeText(const QString& path, const QByteArray& text, QIODevice::OpenMode mode = QIODevice::WriteOnly) {
  QDir().mkpath(QFileInfo(path).absolutePath());
  QFile file(path);
  QVERIFY2(file.open(mode), qPrintable(path));
  file.write(text);
}

// llm.c: a train line per step (loss 4/step), a val loss every 5 steps.
inline QByteArray llmcLines(int from, int to) {
  QByteArray text;
  for (int s = from; s <= to; ++s) {
    text += QString("s:%1 trl:%2 lr:0.0006 norm:%3\n").arg(s).arg(4.0 / s).arg(1.0 + s / 100.0).toUtf8();
    if (s % 5 == 0) text += QString("s:%1 tel:%2\n").arg(s).arg(4.5 / s).toUtf8();
  }
  return text;
}

}  // namespace traindeck
