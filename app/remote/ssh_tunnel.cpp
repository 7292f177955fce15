// Pumping between local sockets and libssh channels. Back-pressure: a channel is not read
// while its socket holds more than kMaxQueued unsent bytes, so libssh stops opening the SSH
// window and the remote sender waits.
#include "ssh_tunnel.h"

#include <libssh/libssh.h>

#include <algorithm>

#include <QSocketNotifier>
#include <QTcpSocket>
#include <QTimer>

#include "ssh_connection.h"
#include "ssh_error.h"

namespace traindeck {

namespace {
constexpr int kBuffer = 256 * 1024;
constexpr qint64 kMaxQueued = 4 * 1024 * 1024;
}  // namespace

struct SshTunnel::Pipe {
  int id = 0;
  QTcpSocket* socket = nullptr;
  ssh_channel channel = nullptr;
  bool dead = false;
};

SshTunnel::SshTunnel(SshConnection* connection, const QString& remoteHost, quint16 remotePort, QObject* parent,
                     SessionWatch watch)
    : QObject(parent), m_connection(connection), m_remoteHost(remoteHost), m_remotePort(remotePort), m_watch(watch) {
  m_poll = new QTimer(this);
  m_poll->setInterval(10);
  connect(m_poll, &QTimer::timeout, this, &SshTunnel::pump);
  connect(&m_server, &QTcpServer::newConnection, this, &SshTunnel::onNewConnection);
  updateNotifier();
}

SshTunnel::~SshTunnel() {
  dropAll();
}

quint16 SshTunnel::listen(quint16 localPort) {
  // Only the loopback address: a tunnel must never expose the remote port to the network.
  if (!m_server.listen(QHostAddress(QHostAddress::LocalHost), localPort))
    throw SshError(SshError::Kind::Config, QString("Cannot listen on 127.0.0.1:%1 for a tunnel: %2. Choose another "
                                                   "local port.")
                                               .arg(localPort)
                                               .arg(m_server.errorString()));
  return m_server.serverPort();
}

void SshTunnel::setConnection(SshConnection* connection) {
  dropAll();
  m_connection = connection;
  updateNotifier();
  if (m_readsSession) {  // no pipe is left to read into
    m_readsSession = false;
    emit readsSessionChanged(false);
  }
}

void SshTunnel::updateNotifier() {
  delete m_notifier;
  m_notifier = nullptr;
  if (m_watch != SessionWatch::Own || m_connection == nullptr) return;
  const int fd = m_connection->socketDescriptor();
  if (fd < 0) return;
  m_notifier = new QSocketNotifier(fd, QSocketNotifier::Read, this);
  connect(m_notifier, &QSocketNotifier::activated, this, &SshTunnel::pump);
}

void SshTunnel::onNewConnection() {
  while (QTcpSocket* socket = m_server.nextPendingConnection()) {
    if (m_connection == nullptr || !m_connection->isConnected()) {
      socket->abort();
      socket->deleteLater();
      continue;
    }
    auto pipe = std::make_unique<Pipe>();
    pipe->id = m_nextId++;
    pipe->socket = socket;
    pipe->channel = ssh_channel_new(m_connection->session());
    const QByteArray host = m_remoteHost.toUtf8();
    if (pipe->channel == nullptr || ssh_channel_open_forward(pipe->channel, host.constData(), m_remotePort, "127.0.0.1",
                                                             socket->peerPort()) != SSH_OK) {
      const QString why = QString("cannot open %1:%2 on the remote side: %3")
                              .arg(m_remoteHost)
                              .arg(m_remotePort)
                              .arg(QString::fromUtf8(ssh_get_error(m_connection->session())));
      if (pipe->channel != nullptr) ssh_channel_free(pipe->channel);
      socket->abort();
      socket->deleteLater();
      emit channelClosed(pipe->id, why);
      if (!ssh_is_connected(m_connection->session())) emit linkFailed(why);
      continue;
    }
    Pipe* raw = pipe.get();
    connect(socket, &QTcpSocket::readyRead, this, [this, raw] { readSocket(*raw); });
    connect(socket, &QTcpSocket::bytesWritten, this, &SshTunnel::pump);
    connect(socket, &QTcpSocket::disconnected, this, [this, raw] { dropPipe(*raw, QString()); });
    m_pipes.push_back(std::move(pipe));
    m_poll->start();
    readSocket(*raw);  // data may have arrived before the channel opened
  }
}

void SshTunnel::readSocket(Pipe& pipe) {
  if (pipe.dead || m_connection == nullptr) return;
  while (pipe.socket->bytesAvailable() > 0) {
    const QByteArray data = pipe.socket->read(kBuffer);
    const int n = ssh_channel_write(pipe.channel, data.constData(), static_cast<uint32_t>(data.size()));
    if (n != data.size()) {
      if (!ssh_is_connected(m_connection->session())) {
        emit linkFailed(QString("The tunnel lost its link: %1.").arg(m_connection->errorDetail()));
        return;
      }
      dropPipe(pipe, "the remote side stopped accepting data");
      return;
    }
  }
}

void SshTunnel::pump() {
  if (m_pumping || m_connection == nullptr) return;
  m_pumping = true;
  static thread_local QByteArray buf(kBuffer, Qt::Uninitialized);
  bool moved = true;
  while (moved) {
    moved = false;
    for (std::size_t i = 0; i < m_pipes.size(); ++i) {
      Pipe& p = *m_pipes[i];
      if (p.dead) continue;
      while (p.socket->bytesToWrite() < kMaxQueued) {
        const int n = ssh_channel_read_nonblocking(p.channel, buf.data(), kBuffer, 0);
        if (n > 0) {
          p.socket->write(buf.constData(), n);
          p.socket->flush();  // straight to the kernel while it takes it, not via the event loop
          moved = true;
          continue;
        }
        if (n == SSH_ERROR && !ssh_is_connected(m_connection->session())) {
          m_pumping = false;
          emit linkFailed(QString("The tunnel lost its link: %1.").arg(m_connection->errorDetail()));
          return;
        }
        if (n == SSH_ERROR || ssh_channel_is_eof(p.channel) || ssh_channel_is_closed(p.channel)) {
          if (ssh_channel_poll(p.channel, 0) <= 0) dropPipe(p, "the remote side closed the connection");
        }
        break;
      }
    }
  }
  // Dropped pipes are removed here, outside the loops that hold references to them.
  std::erase_if(m_pipes, [](const std::unique_ptr<Pipe>& p) { return p->dead; });
  if (m_pipes.empty()) m_poll->stop();
  // The session socket's notifier fires for as long as unread bytes wait there. When no pipe
  // can take data (none open, or every local reader is behind), nothing here would read them,
  // so it is switched off until one can: the poll timer, a socket's bytesWritten or a new
  // connection brings pump() back, and the keepalive probe reads the session meanwhile.
  const bool canRead = std::any_of(m_pipes.begin(), m_pipes.end(), [](const std::unique_ptr<Pipe>& p) {
    return !p->dead && p->socket->bytesToWrite() < kMaxQueued;
  });
  if (m_notifier != nullptr) m_notifier->setEnabled(canRead);
  m_pumping = false;
  if (canRead != m_readsSession) {
    m_readsSession = canRead;
    emit readsSessionChanged(canRead);
  }
}

void SshTunnel::dropPipe(Pipe& pipe, const QString& remoteReason) {
  if (pipe.dead) return;
  pipe.dead = true;
  pipe.socket->disconnect(this);
  if (pipe.channel != nullptr) {
    if (m_connection != nullptr && ssh_is_connected(m_connection->session()) && !ssh_channel_is_closed(pipe.channel)) {
      ssh_channel_send_eof(pipe.channel);
      ssh_channel_close(pipe.channel);
    }
    ssh_channel_free(pipe.channel);
    pipe.channel = nullptr;
  }
  // Send what is still queued, then close; deleting the socket earlier would drop that data.
  QTcpSocket* socket = pipe.socket;
  if (socket->state() != QAbstractSocket::UnconnectedState)
    connect(socket, &QTcpSocket::disconnected, socket, &QObject::deleteLater);
  socket->disconnectFromHost();
  if (socket->state() == QAbstractSocket::UnconnectedState) socket->deleteLater();
  if (!remoteReason.isEmpty()) emit channelClosed(pipe.id, remoteReason);
  if (!m_pumping) QMetaObject::invokeMethod(this, &SshTunnel::pump, Qt::QueuedConnection);
}

void SshTunnel::dropAll() {
  for (auto& p : m_pipes) {
    if (p->dead) continue;
    p->dead = true;
    p->socket->disconnect(this);
    p->socket->abort();
    p->socket->deleteLater();
    // On a dead session the channels go with it (ssh_free); on a live one, close them here.
    if (p->channel != nullptr && m_connection != nullptr && m_connection->session() != nullptr &&
        ssh_is_connected(m_connection->session())) {
      ssh_channel_close(p->channel);
      ssh_channel_free(p->channel);
    }
    p->channel = nullptr;
  }
  m_pipes.clear();
  if (m_poll != nullptr) m_poll->stop();
}

}  // namespace traindeck
