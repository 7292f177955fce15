// RemoteHost: the GUI-side handle on one SSH host. It starts a thread that owns the libssh
// session (SshWorker) and talks to it only through queued calls and signals, so it can be used
// from the GUI thread without blocking it. `ready` gates actions; after a lost link it turns
// false, the worker reconnects with backoff (`reconnectTried` counts the tries), and
// `reconnected` tells how long it took.
#pragma once

#include <QPointer>
#include <map>

#include "runlog/line_splitter.h"

#include <QObject>
#include <QThread>
#include <functional>
#include <optional>

#include "host_key.h"
#include "interactive_prompt.h"
#include "link_state.h"
#include "sftp_transfer.h"
#include "ssh_target.h"

namespace traindeck {

class SshWorker;

class RemoteHost : public QObject {
  Q_OBJECT
  Q_PROPERTY(bool ready READ isReady NOTIFY readyChanged)
  Q_PROPERTY(traindeck::LinkState state READ state NOTIFY stateChanged)
 public:
  using HostKeyPrompt = std::function<HostKeyDecision(const HostKeyInfo&)>;
  using SecretPrompt = std::function<std::optional<QByteArray>(const QString& prompt)>;

  explicit RemoteHost(const SshTarget& target, QObject* parent = nullptr);
  ~RemoteHost() override;

  // Prompts run on this object's thread (a dialog may be shown) while the worker waits. Without
  // a host key prompt unknown keys are refused. "Accept once" holds for this RemoteHost's
  // reconnects. Keyboard-interactive prompts (a second factor) are asked at each connect: once
  // for the connection every command and transfer shares, again after a lost link (as OpenSSH
  // does); without one a host that wants them cannot be reached. Set before connectToHost().
  void setHostKeyPrompt(HostKeyPrompt prompt) { m_hostKeyPrompt = std::move(prompt); }
  void setSecretPrompt(SecretPrompt prompt) { m_secretPrompt = std::move(prompt); }
  void setInteractivePrompt(AskInteractive prompt) { m_interactivePrompt = std::move(prompt); }
  // How often the link is probed and how long an answer may take. Set before connectToHost().
  void setKeepalive(int intervalMs, int timeoutMs);

  void connectToHost();
  bool isReady() const { return m_state == LinkState::Ready; }
  LinkState state() const { return m_state; }
  const SshTarget& target() const { return m_target; }

  // Each returns an id that the result signals carry.
  int exec(const QString& command);  // quote words with shellQuote
  // Closes a running command's channel: no more output, no end, no failure is said of it.
  void closeExec(int id);
  int upload(const QString& localPath, const QString& remotePath);
  int download(const QString& remotePath, const QString& localPath);

  // The same with the answer handed to `done` on this object's thread, so that no caller keeps
  // an id -> callback map. `failure`, when not empty, says why the operation did not complete
  // (the link went, not connected); an exec's `status` then means nothing. A `context` that is
  // gone by then, or forgetCallbacks(), drops the answer.
  struct ExecResult {
    int status = -1;
    QByteArray out, err;
    QString failure;
  };
  using ExecDone = std::function<void(const ExecResult& result)>;
  using LineHandler = std::function<void(const QString& line)>;  // each whole line of stdout, as it comes
  using TransferDone = std::function<void(const TransferResult& result, const QString& failure)>;
  using Progress = std::function<void(qint64 done, qint64 total)>;
  int exec(const QString& command, QObject* context, ExecDone done, LineHandler onLine = {});
  int upload(const QString& localPath, const QString& remotePath, QObject* context, TransferDone done,
             Progress progress = {});
  int download(const QString& remotePath, const QString& localPath, QObject* context, TransferDone done,
               Progress progress = {});
  void forgetCallbacks();                                  // answers still on their way are dropped
  static constexpr std::size_t kMaxLineBytes = 16u << 10;  // onLine's longest (a compiler's lines)
  int openTunnel(quint16 remotePort, quint16 localPort = 0, const QString& remoteHost = "127.0.0.1");
  void closeTunnel(int id);

 signals:
  void readyChanged(bool ready);
  void stateChanged(traindeck::LinkState state);
  void connectionFailed(const QString& message);
  void connectionAvailable(const QString& summary);
  void linkLost(const QString& reason);
  // While the link is down: the worker tries again (1 for the first try since the loss).
  void reconnectTried(int attempt);
  void reconnected(double seconds);
  void execOutputAvailable(int id, const QByteArray& data, bool isStderr);
  void execFinished(int id, int exitStatus);
  void operationFailed(int id, const QString& message);
  void transferProgressChanged(int id, qint64 done, qint64 total);
  void transferFinished(int id, const traindeck::TransferResult& result);
  void tunnelAvailable(int id, quint16 localPort);
  void tunnelChannelClosed(int id, const QString& reason);

 private:
  void ensureWorker();
  // For calls made before connectToHost(): fails them (queued, so the id is known first).
  bool refuseUnconnected(int id);
  // Gives the operation an id and queues it on the worker thread (or fails it, unconnected).
  int post(const std::function<void(SshWorker*, int)>& call);
  void onStateChanged(LinkState state);
  void answerCallbacks();
  int awaitTransfer(
      int id, QObject* context, TransferDone done,
      Progress progress);  // upload's and download's  // connects the result signals to the callbacks below, once

  struct Pending {
    QPointer<QObject> context;
    ExecDone execDone;
    LineHandler onLine;
    TransferDone transferDone;
    Progress progress;
    QByteArray out, err;
    LineSplitter lines{kMaxLineBytes};  // stdout, for onLine
  };
  std::map<int, Pending> m_pending;

  SshTarget m_target;
  HostKeyPrompt m_hostKeyPrompt;
  SecretPrompt m_secretPrompt;
  AskInteractive m_interactivePrompt;
  int m_keepaliveMs = 3000;
  int m_linkTimeoutMs = 5000;
  static constexpr int kPoliteCloseMs = 500;  // how long closing waits before cutting the link
  QThread m_thread;
  SshWorker* m_worker = nullptr;  // lives on m_thread; deleted after the thread ends
  LinkState m_state = LinkState::Disconnected;
  int m_nextId = 1;
};

}  // namespace traindeck
