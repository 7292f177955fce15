#include "remote_stream.h"

#include "remote_host.h"

namespace traindeck {

namespace {

// An answer is a few KiB to a few MiB (4 MiB per file at most); past this the stream is not ours.
constexpr qsizetype kMaxBufferedBytes = 64 << 20;

}  // namespace

RemoteRunStream::RemoteRunStream(RemoteHost* host, QObject* parent) : QObject(parent), m_host(host) {
  connect(m_host, &RemoteHost::execOutputAvailable, this, &RemoteRunStream::take);
  connect(m_host, &RemoteHost::execFinished, this, [this](int id, int status) {
    if (id != m_id) return;
    m_id = -1;
    emit ended(status, QString::fromUtf8(m_err.trimmed().right(300)));
  });
  connect(m_host, &RemoteHost::operationFailed, this, [this](int id, const QString& message) {
    if (id != m_id) return;
    m_id = -1;
    emit ended(-1, message);
  });
}

RemoteRunStream::~RemoteRunStream() {
  stop();
}

void RemoteRunStream::start(const QString& command) {
  stop();
  m_buffer.clear();
  m_err.clear();
  m_answers = 0;
  m_id = m_host->exec(command);
}

void RemoteRunStream::stop() {
  if (m_id < 0) return;
  m_host->closeExec(m_id);
  m_id = -1;
}

void RemoteRunStream::take(int id, const QByteArray& data, bool isStderr) {
  if (id != m_id) return;
  if (isStderr) {
    m_err = (m_err + data).right(4096);
    return;
  }
  m_buffer += data;
  for (;;) {
    qsizetype consumed = 0;
    const RemoteReadAnswer answer = parseRemoteReadAnswer(m_buffer, &consumed);
    if (consumed == 0) {
      // Not complete yet, unless it is garbled (a complete but wrong line, or far too much).
      const bool garbled = !answer.error.isEmpty() && answer.error != QLatin1String("the answer was cut short");
      if (garbled || m_buffer.size() > kMaxBufferedBytes) {
        stop();
        emit ended(-1, garbled ? answer.error : tr("an answer larger than %1 MiB").arg(kMaxBufferedBytes >> 20));
      }
      return;
    }
    m_buffer.remove(0, consumed);
    ++m_answers;
    emit answerAvailable(answer);
    if (m_id < 0) return;  // a receiver stopped the stream
  }
}

}  // namespace traindeck
