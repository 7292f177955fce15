// SshWorker: connect, keepalive probes, reconnect with exponential backoff (0.25 s doubling
// to 15 s), and the operations queued by RemoteHost. Runs on its own thread only.
#include "ssh_worker.h"

#include <sys/socket.h>

#include <algorithm>
#include <mutex>
#include <set>

#include <QCryptographicHash>
#include <QDateTime>
#include <QElapsedTimer>
#include <QSocketNotifier>
#include <QSysInfo>
#include <QTimer>

#include "ssh_error.h"
#include "ssh_tunnel.h"

namespace traindeck {

namespace {

// This machine and the host it links to: stable across reconnects and restarts (a cut upload
// resumes), and another for each host, so hosts sharing one file system never share a .part.
QString stablePartTag(const SshTarget& target) {
  const QByteArray machine =
      QSysInfo::machineUniqueId().isEmpty() ? QSysInfo::machineHostName().toUtf8() : QSysInfo::machineUniqueId();
  return QString::fromLatin1(
      QCryptographicHash::hash(machine + '\n' + target.display().toUtf8(), QCryptographicHash::Sha256)
          .toHex()
          .left(12));
}

// The tags of this process's live links. Two links to one host at once (two runs started
// together, a sweep's trials) would upload the same file (the helper, the trainer) into one
// .part: the first link takes the stable tag, each other one the tag with "-2", "-3", ...
std::mutex g_tagsMutex;
std::set<QString> g_tagsInUse;

QString takePartTag(const SshTarget& target) {
  const QString stable = stablePartTag(target);
  const std::lock_guard<std::mutex> lock(g_tagsMutex);
  QString tag = stable;
  for (int n = 2; g_tagsInUse.count(tag); ++n) tag = stable + "-" + QString::number(n);
  g_tagsInUse.insert(tag);
  return tag;
}

void releasePartTag(const QString& tag) {
  const std::lock_guard<std::mutex> lock(g_tagsMutex);
  g_tagsInUse.erase(tag);
}

}  // namespace

namespace {
constexpr int kFirstBackoffMs = 250;
constexpr int kMaxBackoffMs = 15000;
}  // namespace

SshWorker::SshWorker(const SshTarget& target, const ConnectCallbacks& callbacks, int keepaliveMs, int linkTimeoutMs)
    : m_target(target),
      m_callbacks(callbacks),
      m_keepaliveMs(keepaliveMs),
      m_linkTimeoutMs(linkTimeoutMs),
      m_partTag(takePartTag(target)) {}

SshWorker::~SshWorker() {
  unwatchSession();  // before the connection closes its socket
  releasePartTag(m_partTag);
}

void SshWorker::setState(LinkState state) {
  if (m_state == state) return;
  m_state = state;
  emit stateChanged(state);
}

void SshWorker::start() {
  if (m_keepalive == nullptr) {
    m_keepalive = new QTimer(this);
    connect(m_keepalive, &QTimer::timeout, this, &SshWorker::keepalive);
    m_pump = new QTimer(this);
    m_pump->setInterval(kPumpMs);
    connect(m_pump, &QTimer::timeout, this, &SshWorker::pumpCommands);
    m_reconnect = new QTimer(this);
    m_reconnect->setSingleShot(true);
    connect(m_reconnect, &QTimer::timeout, this, [this] {
      if (tryConnect(false)) {
        const double seconds = (QDateTime::currentMSecsSinceEpoch() - m_lostAtMs) / 1000.0;
        emit reconnected(seconds);
        auto resume = std::move(m_interrupted);
        m_interrupted.clear();
        for (const auto& [id, t] : resume) runTransfer(id, t);
      }
    });
  }
  // Reconnecting: the backoff timer is already on it.
  if (m_state == LinkState::Ready || m_state == LinkState::Connecting || m_state == LinkState::Reconnecting) return;
  tryConnect(true);
}

bool SshWorker::tryConnect(bool first) {
  setState(first ? LinkState::Connecting : LinkState::Reconnecting);
  if (!first) emit reconnectTried(m_attempt);  // scheduleReconnect counted it
  auto connection = std::make_unique<SshConnection>();
  connection->setLinkTimeoutMs(m_linkTimeoutMs);
  connection->setCancelFlag(&stopping);  // RemoteHost's destructor must not wait for a long transfer
  // ...nor for a login or a probe on a link that does not answer: cutLink() cuts this socket.
  connection->setSocketObserver([this](int fd) { setLiveSocket(fd); });
  try {
    connection->connect(m_target, m_callbacks);
  } catch (const SshError& e) {
    const bool retry = !first && !stopping &&
                       (e.kind() == SshError::Kind::Network || e.kind() == SshError::Kind::Proxy ||
                        e.kind() == SshError::Kind::LinkLost);
    if (retry) {
      scheduleReconnect();
    } else {
      setState(LinkState::Failed);
      emit connectionFailed(e.message());
      // Transfers waiting for the link will not get it back: say so, and do not run them on a
      // later connection the caller no longer expects them on.
      auto waiting = std::move(m_interrupted);
      m_interrupted.clear();
      for (const auto& [id, t] : waiting)
        emit operationFailed(id, QString("The transfer of %1 stopped: the link was lost and reconnecting failed: %2")
                                     .arg(t.from, e.message()));
    }
    return false;
  }
  m_connection = std::move(connection);
  m_sftp = std::make_unique<SftpTransfer>(*m_connection, m_partTag);
  watchSession();
  for (auto& [id, tunnel] : m_tunnels) tunnel->setConnection(m_connection.get());
  m_attempt = 0;
  m_keepalive->start(m_keepaliveMs);
  emit connectionAvailable(QString("%1, host key %2 %3, %4")
                               .arg(m_connection->target().display(), m_connection->hostKey().keyType,
                                    m_connection->hostKey().fingerprint, m_connection->authDescription()));
  setState(LinkState::Ready);
  return true;
}

void SshWorker::scheduleReconnect() {
  const int delay = std::min(kMaxBackoffMs, kFirstBackoffMs << std::min(m_attempt, 10));
  ++m_attempt;
  m_reconnect->start(delay);
}

void SshWorker::onLinkLost(const QString& reason) {
  if (m_state != LinkState::Ready) return;
  m_lostAtMs = QDateTime::currentMSecsSinceEpoch();
  m_keepalive->stop();
  // The state first: a caller told that its command failed must find the link reconnecting
  // already (a failure on a live link is final, one on a lost link is retried), and these
  // signals arrive in the order they are sent. Then the channels: tunnels hold the old
  // session's and its socket notifier, commands theirs.
  setState(LinkState::Reconnecting);
  for (auto& [id, tunnel] : m_tunnels) tunnel->setConnection(nullptr);
  dropCommands(reason);
  unwatchSession();
  m_sftp.reset();
  m_connection.reset();
  emit linkLost(reason);
  m_attempt = 0;
  scheduleReconnect();
}

void SshWorker::keepalive() {
  if (m_state != LinkState::Ready || !m_connection) return;
  QElapsedTimer t;
  t.start();
  if (!m_connection->probe())
    onLinkLost(QString("No answer from %1 within %2 s (%3).")
                   .arg(m_target.display())
                   .arg(t.elapsed() / 1000.0, 0, 'f', 1)
                   .arg(m_connection->errorDetail()));
}

void SshWorker::stop() {
  stopping = true;
  if (m_keepalive != nullptr) m_keepalive->stop();
  if (m_reconnect != nullptr) m_reconnect->stop();
  for (auto& [id, tunnel] : m_tunnels) delete tunnel;
  m_tunnels.clear();
  m_commands.clear();
  if (m_pump != nullptr) m_pump->stop();
  unwatchSession();
  m_sftp.reset();
  m_connection.reset();
  m_interrupted.clear();
  setState(LinkState::Disconnected);
}

void SshWorker::setLiveSocket(int fd) {
  const std::lock_guard lock(m_socketMutex);
  m_liveSocket = fd;
}

void SshWorker::cutLink() {
  const std::lock_guard lock(m_socketMutex);  // the socket stays open while this holds it
  if (m_liveSocket >= 0) ::shutdown(m_liveSocket, SHUT_RDWR);
}

void SshWorker::queueExec(int id, const QString& command) {
  const std::lock_guard lock(m_queueMutex);
  m_queued.emplace_back(id, command);
}

void SshWorker::startQueuedCommands() {
  std::vector<std::pair<int, QString>> queued;
  {
    const std::lock_guard lock(m_queueMutex);
    queued.swap(m_queued);
  }
  for (auto& [id, command] : queued) {
    if (m_state != LinkState::Ready || !m_deferredLoss.isEmpty()) {
      emit operationFailed(id, QString("Not connected to %1 (%2).").arg(m_target.display(), linkStateName(m_state)));
      continue;
    }
    try {
      m_commands[id] = m_connection->startExec(command);
    } catch (const SshError& e) {
      if (e.kind() == SshError::Kind::LinkLost) linkLostWhileBusy(e.message());  // the state before the failure
      emit operationFailed(id, e.message());
    }
  }
  if (!m_commands.empty() && !m_pump->isActive()) m_pump->start();
}

void SshWorker::closeExec(int id) {
  {
    const std::lock_guard lock(m_queueMutex);
    std::erase_if(m_queued, [id](const auto& queued) { return queued.first == id; });
  }
  m_commands.erase(id);  // the channel closes with it
}

void SshWorker::linkLostWhileBusy(const QString& reason) {
  if (!m_inTransfer) return onLinkLost(reason);
  if (m_deferredLoss.isEmpty()) m_deferredLoss = reason;
}

void SshWorker::serveCommandsDuringTransfer() {
  startQueuedCommands();
  pumpCommands();
}

void SshWorker::pumpCommands() {
  m_commandsWait = false;
  if (m_state != LinkState::Ready || !m_connection || !m_deferredLoss.isEmpty()) return updateSessionWatch();
  qint64 bytes = 0;
  for (auto it = m_commands.begin(); it != m_commands.end();) {
    const int id = it->first;
    std::optional<int> status;
    try {
      status = m_connection->pollExec(
          *it->second,
          [&](QByteArrayView b) {
            bytes += b.size();
            emit execOutputAvailable(id, b.toByteArray(), false);
          },
          [&](QByteArrayView b) { emit execOutputAvailable(id, b.toByteArray(), true); });
    } catch (const SshError& e) {
      linkLostWhileBusy(e.message());  // fails this command with the others
      return;
    }
    if (!status) {
      ++it;
      continue;
    }
    it = m_commands.erase(it);
    emit execFinished(id, *status);
  }
  if (m_commands.empty() && !m_inTransfer) {
    m_pump->stop();
    return updateSessionWatch();
  }
  // While output flows (a stream behind, a long listing) the next look comes at once: waiting
  // kPumpMs between reads would bound a channel to what the peer sends in that time. Flowing
  // includes bytes still on the socket: libssh 0.10 reads 4 KiB a look, less than a packet.
  // Otherwise the socket wakes the pump when the next bytes come, kPumpMs being the backstop
  // (for what libssh holds already read); without it a channel whose output comes a little
  // slower than it is read would wait kPumpMs each time it ran dry (8 MB/s through a proxy).
  const bool flowing = bytes > 0 || (!m_commands.empty() && m_connection->hasUnreadInput());
  m_pump->setInterval(flowing ? 0 : kPumpMs);
  m_commandsWait = !flowing && !m_commands.empty();
  updateSessionWatch();
}

void SshWorker::watchSession() {
  unwatchSession();
  const int fd = m_connection->socketDescriptor();
  if (fd < 0) return;
  m_sessionReadable = new QSocketNotifier(fd, QSocketNotifier::Read, this);
  m_sessionReadable->setEnabled(false);
  connect(m_sessionReadable, &QSocketNotifier::activated, this, [this] {
    m_sessionReadable->setEnabled(false);  // on again below while something waits
    for (auto& [id, tunnel] : m_tunnels)
      if (tunnel->readsSession()) tunnel->pump();
    pumpCommands();  // which looks again at what waits
  });
  updateSessionWatch();
}

void SshWorker::unwatchSession() {
  if (m_sessionReadable == nullptr) return;
  // Off now (the socket closes next), deleted later: a lost link may be found while the
  // notifier's own activation runs.
  m_sessionReadable->setEnabled(false);
  m_sessionReadable->deleteLater();
  m_sessionReadable = nullptr;
}

void SshWorker::updateSessionWatch() {
  if (m_sessionReadable == nullptr) return;
  const bool tunnelsRead =
      std::any_of(m_tunnels.begin(), m_tunnels.end(), [](const auto& t) { return t.second->readsSession(); });
  m_sessionReadable->setEnabled(m_commandsWait || tunnelsRead);
}

void SshWorker::dropCommands(const QString& reason) {
  std::vector<int> ids;
  for (const auto& [id, command] : m_commands) ids.push_back(id);
  m_commands.clear();  // their channels, while the session is still there
  if (m_pump != nullptr) m_pump->stop();
  m_commandsWait = false;
  updateSessionWatch();
  for (const int id : ids) emit operationFailed(id, reason);
}

void SshWorker::upload(int id, const QString& localPath, const QString& remotePath) {
  runTransfer(id, Transfer{true, localPath, remotePath});
}

void SshWorker::download(int id, const QString& remotePath, const QString& localPath) {
  runTransfer(id, Transfer{false, remotePath, localPath});
}

void SshWorker::runTransfer(int id, const Transfer& t) {
  if (m_state != LinkState::Ready) {
    if (m_state == LinkState::Reconnecting) {
      m_interrupted[id] = t;  // runs once the link is back
    } else {
      emit operationFailed(id, QString("Not connected to %1 (%2).").arg(m_target.display(), linkStateName(m_state)));
    }
    return;
  }
  QElapsedTimer sinceEmit;  // invalid until the first report, which goes out at once
  QElapsedTimer sinceServed;
  sinceServed.start();
  const auto progress = [&](qint64 done, qint64 total) {
    if (done == total || !sinceEmit.isValid() || sinceEmit.elapsed() >= 100) {  // <= 10 signals a second
      emit transferProgressChanged(id, done, total);
      sinceEmit.restart();
    }
    if (sinceServed.elapsed() >= kPumpMs) {
      serveCommandsDuringTransfer();
      sinceServed.restart();
    }
  };
  m_inTransfer = true;
  try {
    const TransferResult r =
        t.upload ? m_sftp->upload(t.from, t.to, progress) : m_sftp->download(t.from, t.to, progress);
    m_inTransfer = false;
    emit transferFinished(id, r);
  } catch (const SshError& e) {
    m_inTransfer = false;
    if (e.kind() == SshError::Kind::LinkLost) {
      m_interrupted[id] = t;
      m_deferredLoss.clear();
      onLinkLost(e.message());
    } else {
      emit operationFailed(id, e.message());
    }
  }
  if (!m_deferredLoss.isEmpty()) onLinkLost(std::exchange(m_deferredLoss, QString()));
}

void SshWorker::openTunnel(int id, const QString& remoteHost, quint16 remotePort, quint16 localPort) {
  auto* tunnel =
      new SshTunnel(m_state == LinkState::Ready ? m_connection.get() : nullptr, remoteHost, remotePort, this,
                    SshTunnel::SessionWatch::ByOwner);
  try {
    const quint16 port = tunnel->listen(localPort);
    connect(tunnel, &SshTunnel::channelClosed, this,
            [this, id](int, const QString& reason) { emit tunnelChannelClosed(id, reason); });
    connect(
        tunnel, &SshTunnel::linkFailed, this, [this](const QString& why) { onLinkLost(why); }, Qt::QueuedConnection);
    connect(tunnel, &SshTunnel::readsSessionChanged, this, &SshWorker::updateSessionWatch);
    m_tunnels[id] = tunnel;
    emit tunnelAvailable(id, port);
  } catch (const SshError& e) {
    delete tunnel;
    emit operationFailed(id, e.message());
  }
}

void SshWorker::closeTunnel(int id) {
  auto it = m_tunnels.find(id);
  if (it == m_tunnels.end()) return;
  delete it->second;
  m_tunnels.erase(it);
  updateSessionWatch();
}

}  // namespace traindeck
