// RemoteHost: thread setup, prompt forwarding and queued calls into the SshWorker.
#include "remote_host.h"

#include <QMetaObject>
#include <QSet>
#include <memory>

#include "ask_and_wait.h"
#include "ssh_worker.h"

namespace traindeck {

RemoteHost::RemoteHost(const SshTarget& target, QObject* parent) : QObject(parent), m_target(target) {
  qRegisterMetaType<traindeck::LinkState>();
  qRegisterMetaType<traindeck::TransferResult>();
  qRegisterMetaType<traindeck::HostKeyInfo>();
  m_thread.setObjectName("ssh:" + target.display());
  answerCallbacks();
}

void RemoteHost::answerCallbacks() {
  // Each answer is taken out of the map before its callback runs: a callback may start the next
  // operation, or forget them all.
  connect(this, &RemoteHost::execOutputAvailable, this, [this](int id, const QByteArray& data, bool isStderr) {
    auto it = m_pending.find(id);
    if (it == m_pending.end()) return;
    Pending& p = it->second;
    (isStderr ? p.err : p.out) += data;
    if (isStderr || !p.onLine) return;
    QStringList lines;  // all split first: a callback may forget p
    p.lines.feed(std::string_view(data.constData(), static_cast<std::size_t>(data.size())),
                 [&lines](std::string_view line, bool) {
                   lines << QString::fromUtf8(line.data(), static_cast<qsizetype>(line.size()));
                 });
    const LineHandler onLine = p.onLine;
    const QPointer<QObject> context = p.context;
    for (const QString& line : lines) {
      if (context.isNull() || m_pending.count(id) == 0) return;
      onLine(line);
    }
  });
  connect(this, &RemoteHost::execFinished, this, [this](int id, int status) {
    auto node = m_pending.extract(id);
    if (node.empty() || !node.mapped().execDone || node.mapped().context.isNull()) return;
    Pending& p = node.mapped();
    if (const std::string rest = p.lines.takePartial(); p.onLine && !rest.empty())
      p.onLine(QString::fromStdString(rest));
    p.execDone(ExecResult{status, p.out, p.err, {}});
  });
  connect(this, &RemoteHost::transferProgressChanged, this, [this](int id, qint64 done, qint64 total) {
    auto it = m_pending.find(id);
    if (it != m_pending.end() && it->second.progress && !it->second.context.isNull()) it->second.progress(done, total);
  });
  connect(this, &RemoteHost::transferFinished, this, [this](int id, const TransferResult& result) {
    auto node = m_pending.extract(id);
    if (node.empty() || !node.mapped().transferDone || node.mapped().context.isNull()) return;
    node.mapped().transferDone(result, {});
  });
  connect(this, &RemoteHost::operationFailed, this, [this](int id, const QString& message) {
    auto node = m_pending.extract(id);
    if (node.empty() || node.mapped().context.isNull()) return;
    Pending& p = node.mapped();
    if (p.execDone) p.execDone(ExecResult{-1, p.out, p.err, message});
    if (p.transferDone) p.transferDone(TransferResult{}, message);
  });
}

int RemoteHost::exec(const QString& command, QObject* context, ExecDone done, LineHandler onLine) {
  const int id = exec(command);  // its answer is queued: the callback is in place before it comes
  Pending& pending = m_pending[id];
  pending.context = context;
  pending.execDone = std::move(done);
  pending.onLine = std::move(onLine);
  return id;
}

int RemoteHost::upload(const QString& localPath, const QString& remotePath, QObject* context, TransferDone done,
                       Progress progress) {
  return awaitTransfer(upload(localPath, remotePath), context, std::move(done), std::move(progress));
}

int RemoteHost::download(const QString& remotePath, const QString& localPath, QObject* context, TransferDone done,
                         Progress progress) {
  return awaitTransfer(download(remotePath, localPath), context, std::move(done), std::move(progress));
}

int RemoteHost::awaitTransfer(int id, QObject* context, TransferDone done, Progress progress) {
  Pending& pending = m_pending[id];  // its answer is queued: the callback is in place before it comes
  pending.context = context;
  pending.transferDone = std::move(done);
  pending.progress = std::move(progress);
  return id;
}

void RemoteHost::forgetCallbacks() {
  m_pending.clear();
}

RemoteHost::~RemoteHost() {
  if (m_worker != nullptr) {
    m_worker->stopping = true;  // a prompt waiting on us gives up instead of deadlocking
    SshWorker* worker = m_worker;
    QMetaObject::invokeMethod(
        m_worker,
        [worker] {
          worker->stop();
          QThread::currentThread()->quit();
        },
        Qt::QueuedConnection);
    // A polite close (channels closed, the server told) unless the worker is stuck in a call
    // on a link that does not answer (a probe of a frozen link waits out its timeout): then the
    // socket is cut under it, and that call fails at once.
    if (!m_thread.wait(kPoliteCloseMs)) {
      m_worker->cutLink();
      m_thread.wait();
    }
    delete m_worker;  // its thread has ended: nothing else can touch it now
  }
}

void RemoteHost::setKeepalive(int intervalMs, int timeoutMs) {
  m_keepaliveMs = intervalMs;
  m_linkTimeoutMs = timeoutMs;
}

void RemoteHost::ensureWorker() {
  if (m_worker != nullptr) return;
  ConnectCallbacks callbacks;
  if (m_hostKeyPrompt) {
    // Runs on the worker thread. Keys accepted once are remembered here (that thread only) so
    // that a reconnect does not ask again.
    auto acceptedOnce = std::make_shared<QSet<QString>>();
    callbacks.confirmHostKey = [this, acceptedOnce](const HostKeyInfo& info) {
      if (acceptedOnce->contains(info.fingerprint)) return HostKeyDecision::AcceptOnce;
      const HostKeyDecision d = askAndWait<HostKeyDecision>(
          this, [this, info] { return m_hostKeyPrompt(info); }, m_worker->stopping, HostKeyDecision::Reject);
      if (d == HostKeyDecision::AcceptOnce) acceptedOnce->insert(info.fingerprint);
      return d;
    };
  }
  if (m_secretPrompt) {
    callbacks.askSecret = [this](const QString& prompt) {
      return askAndWait<std::optional<QByteArray>>(
          this, [this, prompt] { return m_secretPrompt(prompt); }, m_worker->stopping, std::nullopt);
    };
  }
  if (m_interactivePrompt) {
    callbacks.askInteractive = [this](const InteractivePrompt& prompt) {
      return askAndWait<InteractiveAnswers>(
          this, [this, prompt] { return m_interactivePrompt(prompt); }, m_worker->stopping, std::nullopt);
    };
  }
  m_worker = new SshWorker(m_target, callbacks, m_keepaliveMs, m_linkTimeoutMs);
  m_worker->moveToThread(&m_thread);
  connect(m_worker, &SshWorker::stateChanged, this, &RemoteHost::onStateChanged);
  connect(m_worker, &SshWorker::connectionFailed, this, &RemoteHost::connectionFailed);
  connect(m_worker, &SshWorker::connectionAvailable, this, &RemoteHost::connectionAvailable);
  connect(m_worker, &SshWorker::linkLost, this, &RemoteHost::linkLost);
  connect(m_worker, &SshWorker::reconnectTried, this, &RemoteHost::reconnectTried);
  connect(m_worker, &SshWorker::reconnected, this, &RemoteHost::reconnected);
  connect(m_worker, &SshWorker::execOutputAvailable, this, &RemoteHost::execOutputAvailable);
  connect(m_worker, &SshWorker::execFinished, this, &RemoteHost::execFinished);
  connect(m_worker, &SshWorker::operationFailed, this, &RemoteHost::operationFailed);
  connect(m_worker, &SshWorker::transferProgressChanged, this, &RemoteHost::transferProgressChanged);
  connect(m_worker, &SshWorker::transferFinished, this, &RemoteHost::transferFinished);
  connect(m_worker, &SshWorker::tunnelAvailable, this, &RemoteHost::tunnelAvailable);
  connect(m_worker, &SshWorker::tunnelChannelClosed, this, &RemoteHost::tunnelChannelClosed);
  m_thread.start();
}

bool RemoteHost::refuseUnconnected(int id) {
  if (m_worker != nullptr) return false;
  QMetaObject::invokeMethod(
      this,
      [this, id] { emit operationFailed(id, QString("Not connected to %1: connect first.").arg(m_target.display())); },
      Qt::QueuedConnection);
  return true;
}

void RemoteHost::onStateChanged(LinkState state) {
  const bool wasReady = isReady();
  m_state = state;
  emit stateChanged(state);
  if (wasReady != isReady()) emit readyChanged(isReady());
}

void RemoteHost::connectToHost() {
  ensureWorker();
  QMetaObject::invokeMethod(m_worker, &SshWorker::start, Qt::QueuedConnection);
}

int RemoteHost::post(const std::function<void(SshWorker*, int)>& call) {
  const int id = m_nextId++;
  if (refuseUnconnected(id)) return id;
  QMetaObject::invokeMethod(
      m_worker, [w = m_worker, id, call] { call(w, id); }, Qt::QueuedConnection);
  return id;
}

int RemoteHost::exec(const QString& command) {
  // Queued on the worker directly, so that a transfer in progress there can start it.
  const int id = m_nextId++;
  if (refuseUnconnected(id)) return id;
  m_worker->queueExec(id, command);
  QMetaObject::invokeMethod(m_worker, &SshWorker::startQueuedCommands, Qt::QueuedConnection);
  return id;
}

void RemoteHost::closeExec(int id) {
  m_pending.erase(id);
  if (m_worker != nullptr) QMetaObject::invokeMethod(m_worker, [w = m_worker, id] { w->closeExec(id); }, Qt::QueuedConnection);
}

int RemoteHost::upload(const QString& localPath, const QString& remotePath) {
  return post([localPath, remotePath](SshWorker* w, int id) { w->upload(id, localPath, remotePath); });
}

int RemoteHost::download(const QString& remotePath, const QString& localPath) {
  return post([remotePath, localPath](SshWorker* w, int id) { w->download(id, remotePath, localPath); });
}

int RemoteHost::openTunnel(quint16 remotePort, quint16 localPort, const QString& remoteHost) {
  return post([=](SshWorker* w, int id) { w->openTunnel(id, remoteHost, remotePort, localPort); });
}

void RemoteHost::closeTunnel(int id) {
  if (m_worker == nullptr) return;
  QMetaObject::invokeMethod(
      m_worker, [w = m_worker, id] { w->closeTunnel(id); }, Qt::QueuedConnection);
}

}  // namespace traindeck
