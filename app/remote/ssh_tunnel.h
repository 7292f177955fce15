// SshTunnel: a listener on 127.0.0.1 (never another address) whose connections are each
// carried by a direct-tcpip channel to remoteHost:remotePort as seen from the server. Lives on
// the thread that owns the SshConnection and pumps data from that thread's event loop; while
// that thread moves an SFTP transfer, tunnel traffic waits (commands no longer block it).
#pragma once

#include <QObject>
#include <QString>
#include <QTcpServer>
#include <memory>
#include <vector>

class QSocketNotifier;
class QTcpSocket;
class QTimer;
struct ssh_channel_struct;

namespace traindeck {

class SshConnection;

class SshTunnel : public QObject {
  Q_OBJECT
 public:
  // Who watches the session's socket for bytes: the tunnel itself, or its owner (SshWorker,
  // whose commands read the same socket: one notifier per socket), which then calls pump()
  // when bytes come while readsSession().
  enum class SessionWatch { Own, ByOwner };
  SshTunnel(SshConnection* connection, const QString& remoteHost, quint16 remotePort, QObject* parent = nullptr,
            SessionWatch watch = SessionWatch::Own);
  ~SshTunnel() override;

  // Listens on 127.0.0.1:localPort (0: a free port); returns the port. Throws SshError(Config).
  quint16 listen(quint16 localPort = 0);
  quint16 localPort() const { return m_server.serverPort(); }
  // After a reconnect, the new connection; nullptr while the link is down (local connections
  // are then closed at once). Open channels belong to the old session and are dropped.
  void setConnection(SshConnection* connection);
  int openChannels() const { return static_cast<int>(m_pipes.size()); }
  // Moves what waits between the channels and the local sockets.
  void pump();
  // Whether a pipe can take data now, so that bytes on the session's socket should wake pump().
  bool readsSession() const { return m_readsSession; }

 signals:
  // One forwarded connection ended from the remote side (or could not be opened there).
  void channelClosed(int connectionId, const QString& reason);
  // The session itself failed while pumping: the owner should reconnect.
  void linkFailed(const QString& message);
  void readsSessionChanged(bool reads);

 private:
  struct Pipe;
  void onNewConnection();
  void readSocket(Pipe& pipe);
  void dropPipe(Pipe& pipe, const QString& remoteReason);
  void dropAll();
  void updateNotifier();

  SshConnection* m_connection;
  QString m_remoteHost;
  quint16 m_remotePort;
  QTcpServer m_server;
  SessionWatch m_watch;
  QSocketNotifier* m_notifier = nullptr;  // SessionWatch::Own only
  bool m_readsSession = false;
  QTimer* m_poll = nullptr;  // catches data libssh buffered while serving another channel
  std::vector<std::unique_ptr<Pipe>> m_pipes;
  int m_nextId = 1;
  bool m_pumping = false;
};

}  // namespace traindeck
