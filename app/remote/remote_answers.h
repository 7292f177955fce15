// The answers of packaging/remote/traindeck-remote.sh, parsed: "key=value" lines, and the
// framed answer of `read` (a run's files past given offsets). Plain values; no I/O.
#pragma once

#include <QByteArray>
#include <QMap>
#include <QString>
#include <QVector>

namespace traindeck {

// "key=value" lines; later keys win; lines without '=' are ignored.
QMap<QString, QString> parseKeyValues(const QByteArray& answer);

struct RemoteFileChunk {
  QString name;     // relative to the run directory: "metrics.jsonl", "logs/rank-0.log"
  qint64 size = 0;  // the remote file's size when read
  qint64 from = 0;  // where `bytes` start in it
  QByteArray bytes;
};

struct RemoteReadAnswer {
  bool complete = false;  // ended with "end"; a cut answer is not applied
  QString bootId;
  bool supervisorAlive = false;
  bool runDirExists = true;  // false: the run folder is gone there (a fresh runtime)
  QVector<RemoteFileChunk> files;
  QString error;  // why it could not be read, when !complete
};

// `consumed`, when given, is set to the bytes up to and with the answer's "end" line (0 when the
// answer is not complete): a stream of answers is parsed one at a time.
RemoteReadAnswer parseRemoteReadAnswer(const QByteArray& answer, qsizetype* consumed = nullptr);

}  // namespace traindeck
