// SshWorker: the QObject that lives on a RemoteHost's own thread and owns everything libssh
// touches there: the SshConnection, its SFTP channel, the tunnels, the keepalive timer and the
// reconnect schedule. It is driven by queued slot calls and answers by signals; nothing else
// may call it directly. A transfer cut by a lost link is resumed after the reconnect.
// Commands never block the thread: they are started and then polled (as soon as the session's
// socket has bytes, at least every kPumpMs, at once while output flows, and between a
// transfer's pieces, when queued commands start too), so a long build, the mirror's
// reads, transfers and tunnels share the one connection at once. Only tunnel traffic still
// waits while an SFTP transfer moves its pieces (at most one transfer runs at a time).
#pragma once

#include <QObject>
#include <QString>
#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "link_state.h"
#include "sftp_transfer.h"
#include "ssh_connection.h"
#include "ssh_target.h"

class QSocketNotifier;
class QTimer;

namespace traindeck {

class SshTunnel;

class SshWorker : public QObject {
  Q_OBJECT
 public:
  // Callbacks are invoked on the worker thread; RemoteHost's hop to the GUI thread.
  SshWorker(const SshTarget& target, const ConnectCallbacks& callbacks, int keepaliveMs, int linkTimeoutMs);
  ~SshWorker() override;
  // Set from any thread to make a waiting prompt give up (RemoteHost's destructor).
  std::atomic<bool> stopping{false};
  static constexpr int kPumpMs = 10;
  // From any thread: the command runs once startQueuedCommands() comes round (queue a call to it).
  void queueExec(int id, const QString& command);
  // From any thread, when closing cannot wait: shuts the session's socket down (from the key
  // exchange on), so that a call blocked on it (the login, a probe, a forward being opened)
  // fails at once.
  void cutLink();

 public slots:
  void start();
  void stop();  // closes everything; the last call before the thread ends
  void startQueuedCommands();
  // Closes a command's channel (a stream the caller no longer reads); nothing more is said of it.
  void closeExec(int id);
  void upload(int id, const QString& localPath, const QString& remotePath);
  void download(int id, const QString& remotePath, const QString& localPath);
  void openTunnel(int id, const QString& remoteHost, quint16 remotePort, quint16 localPort);
  void closeTunnel(int id);

 signals:
  void stateChanged(traindeck::LinkState state);
  void connectionFailed(const QString& message);
  void linkLost(const QString& reason);
  void reconnectTried(int attempt);                  // a reconnect begins: 1 for the first since the loss
  void reconnected(double seconds);                  // from the loss to ready again
  void connectionAvailable(const QString& summary);  // host key, auth method: after each connect
  void execOutputAvailable(int id, const QByteArray& data, bool isStderr);
  void execFinished(int id, int exitStatus);
  void operationFailed(int id, const QString& message);
  void transferProgressChanged(int id, qint64 done, qint64 total);
  void transferFinished(int id, const traindeck::TransferResult& result);
  void tunnelAvailable(int id, quint16 localPort);
  void tunnelChannelClosed(int id, const QString& reason);

 private:
  struct Transfer {
    bool upload = true;
    QString from, to;
  };
  void setState(LinkState state);
  bool tryConnect(bool first);
  void onLinkLost(const QString& reason);
  void scheduleReconnect();
  void keepalive();
  void runTransfer(int id, const Transfer& t);
  // Passes on what the running commands printed, and ends those that ended.
  void pumpCommands();
  // Between a transfer's pieces: queued commands start, running ones are polled.
  void serveCommandsDuringTransfer();
  // A lost link seen while a transfer runs is acted on once it has returned.
  void linkLostWhileBusy(const QString& reason);
  // Fails every running command (the link is gone: their output is lost with it).
  void dropCommands(const QString& reason);
  // The session's socket wakes the waiting pump and the tunnels (one notifier for the socket,
  // made after each connect, gone before the connection goes); on only while commands wait for
  // output or a tunnel can take data.
  void watchSession();
  void unwatchSession();
  void updateSessionWatch();
  void setLiveSocket(int fd);  // under m_socketMutex; -1 before the connection closes it

  SshTarget m_target;
  ConnectCallbacks m_callbacks;
  int m_keepaliveMs;
  int m_linkTimeoutMs;
  LinkState m_state = LinkState::Disconnected;
  std::unique_ptr<SshConnection> m_connection;
  std::unique_ptr<SftpTransfer> m_sftp;
  const QString m_partTag;                // this link's uploads' .part names, the same across its reconnects
  std::map<int, SshTunnel*> m_tunnels;    // children of this object
  std::map<int, Transfer> m_interrupted;  // transfers to resume after the reconnect
  std::map<int, std::unique_ptr<RunningCommand>> m_commands;  // before m_connection goes
  QTimer* m_pump = nullptr;
  QSocketNotifier* m_sessionReadable = nullptr;
  bool m_commandsWait = false;  // commands run and their output has dried up for now
  std::mutex m_socketMutex;
  int m_liveSocket = -1;  // the session's socket once connected, under m_socketMutex (for cutLink)
  std::mutex m_queueMutex;
  std::vector<std::pair<int, QString>> m_queued;  // under m_queueMutex
  bool m_inTransfer = false;
  QString m_deferredLoss;
  QTimer* m_keepalive = nullptr;
  QTimer* m_reconnect = nullptr;
  int m_attempt = 0;
  qint64 m_lostAtMs = 0;
};

}  // namespace traindeck
