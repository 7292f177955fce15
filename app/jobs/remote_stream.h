// A remote run's files as a stream: the helper's `stream` (traindeck-remote.sh) runs on one exec
// channel of the job's connection and writes `read`'s answers one after another, as soon as a
// file grows; each is parsed as it completes and handed on. The channel ends with the link, with
// the helper (it rotates every 10 minutes), or when stop() closes it; `ended` says which, and the
// caller opens another (or polls). GUI thread, like its RemoteHost.
#pragma once

#include <QByteArray>
#include <QObject>
#include <QString>

#include "remote_answers.h"

namespace traindeck {

class RemoteHost;

class RemoteRunStream : public QObject {
  Q_OBJECT
 public:
  explicit RemoteRunStream(RemoteHost* host, QObject* parent = nullptr);
  ~RemoteRunStream() override;

  // Runs `command` (the helper's stream, as RemoteHelper::command builds it); a stream already
  // running is closed first.
  void start(const QString& command);
  void stop();  // closes the channel; nothing more comes, not even `ended`
  bool isRunning() const { return m_id >= 0; }
  int answers() const { return m_answers; }  // complete answers since start()

 signals:
  void answerAvailable(const traindeck::RemoteReadAnswer& answer);
  // The channel ended: the helper's exit status (-1 when the link went, `why` then says how), or
  // a garbled answer (`why` quotes it; the channel was closed).
  void ended(int status, const QString& why);

 private:
  void take(int id, const QByteArray& data, bool isStderr);

  RemoteHost* m_host;
  int m_id = -1;
  int m_answers = 0;
  QByteArray m_buffer;
  QByteArray m_err;  // the helper's stderr, for `ended`
};

}  // namespace traindeck
