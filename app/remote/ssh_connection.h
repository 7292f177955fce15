// SshConnection: one libssh session and the operations on it, all blocking. libssh forbids
// using a session from two threads, so the first thread that calls connect() owns it and
// every later call from another thread is a fatal programming error (checked, not assumed).
// RemoteHost's worker thread is the owner in the app; tests and --check-ssh use it directly.
#pragma once

#include <sys/types.h>
#include <QByteArray>
#include <QByteArrayView>
#include <QString>
#include <QStringList>
#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <thread>

#include "host_key.h"
#include "interactive_prompt.h"
#include "ssh_target.h"

struct ssh_session_struct;
using ssh_session = ssh_session_struct*;
struct ssh_channel_struct;
using ssh_channel = ssh_channel_struct*;

namespace traindeck {

class ProxyProcess;

// Called on the owning thread while connect() waits. Unset callbacks mean "no one to ask":
// unknown host keys are refused and no passphrase, password or second factor is asked for.
struct ConnectCallbacks {
  std::function<HostKeyDecision(const HostKeyInfo&)> confirmHostKey;
  // A passphrase or password for the prompt; nullopt when the user cancels. The caller wipes
  // nothing: SshConnection overwrites the returned bytes once they are used.
  std::function<std::optional<QByteArray>(const QString& prompt)> askSecret;
  // The server's keyboard-interactive prompts (a second factor after the key, on MFA login
  // nodes), once per round; asked only while connecting, so once per connection.
  AskInteractive askInteractive;
};

// A command started by SshConnection::startExec(), on its own channel. Closed and freed with
// this object, which must go before the connection that made it.
class RunningCommand {
 public:
  explicit RunningCommand(ssh_channel channel) : m_channel(channel) {}
  ~RunningCommand();
  RunningCommand(const RunningCommand&) = delete;
  RunningCommand& operator=(const RunningCommand&) = delete;
  ssh_channel channel() const { return m_channel; }

 private:
  ssh_channel m_channel;
};

class SshConnection {
 public:
  using OutputFn = std::function<void(QByteArrayView)>;

  SshConnection();
  ~SshConnection();
  SshConnection(const SshConnection&) = delete;
  SshConnection& operator=(const SshConnection&) = delete;

  // Connects, checks the host key before any authentication, authenticates. Throws SshError.
  void connect(const SshTarget& target, const ConnectCallbacks& callbacks);
  void disconnect();
  bool isConnected() const { return m_session != nullptr && m_authenticated; }

  const SshTarget& target() const { return m_target; }
  const HostKeyInfo& hostKey() const { return m_hostKey; }
  bool hostKeyWasKnown() const { return m_hostKeyWasKnown; }
  QString authDescription() const { return m_authDescription; }

  // Runs command (already quoted: see shellQuote) and streams its output; returns the exit
  // status. Throws SshError(LinkLost) if the link dies on the way.
  int exec(const QString& command, const OutputFn& out, const OutputFn& err);
  // The same in two halves that never wait for the command: startExec() opens a channel and
  // starts it (one round trip); pollExec() passes on the output that has arrived and returns
  // the exit status once the command has ended, else nullopt. Both throw SshError(LinkLost).
  // Many commands may run at once on one connection, with transfers and tunnels between polls.
  std::unique_ptr<RunningCommand> startExec(const QString& command);
  std::optional<int> pollExec(RunningCommand& command, const OutputFn& out, const OutputFn& err);
  // Whether bytes from the server wait on the socket, unread. libssh reads 4 KiB a look (0.10), so a
  // poll may pass on nothing while the rest of a packet is already here: look again at once then.
  bool hasUnreadInput() const;
  // The session's socket (the proxy's socketpair end behind a ProxyCommand); -1 when none.
  int socketDescriptor() const;
  // exec() collecting stdout; stderr goes to *errText when given.
  QByteArray execCapture(const QString& command, int* exitStatus, QByteArray* errText = nullptr);

  // A round trip to the server (opening and closing a channel). False when the link is dead or
  // does not answer within linkTimeoutMs().
  bool probe();
  int linkTimeoutMs() const { return m_linkTimeoutMs; }
  void setLinkTimeoutMs(int ms);

  // For the helpers that work on this session (Tunnel, SftpTransfer) on the owning thread.
  ssh_session session() const;
  pid_t proxyPid() const;
  // Throws SshError(LinkLost) describing why, with libssh's error and the proxy's stderr.
  [[noreturn]] void throwLinkLost(const QString& during) const;
  // libssh's last error plus what the proxy said, for messages.
  QString errorDetail() const;
  void checkOwner() const;
  // When *flag turns true (set from any thread), exec and SFTP transfers stop with
  // SshError(Cancelled). For shutting down while a long operation runs.
  void setCancelFlag(const std::atomic<bool>* flag) { m_cancel = flag; }
  bool isCancelled() const { return m_cancel != nullptr && m_cancel->load(); }
  // Told the session's socket as soon as it is connected (before the host key check and the
  // login) and -1 just before it is closed, on the owning thread: another thread may cut that
  // socket (shutdown) to end a blocking call on a link that does not answer.
  void setSocketObserver(std::function<void(int fd)> observer) { m_socketObserver = std::move(observer); }

 private:
  // ssh_connect: empty when connected, else what failed. Throws SshError(Cancelled).
  QString connectSession();
  void setSessionHost(const QString& host, int port);  // what libssh checks known_hosts under
  void checkHostKey(const ConnectCallbacks& callbacks);
  // Each method's outcome: Partial when the server took it but wants another one as well
  // (AuthenticationMethods publickey,keyboard-interactive).
  enum class AuthStep { Success, Partial, Denied };
  struct AuthNotes {  // what authenticate() tried, for its message when all fail
    QStringList tried;
    QStringList passed;               // taken, but not enough alone
    bool interactiveUnasked = false;  // keyboard-interactive offered, but batch mode or no one to ask
    int interactiveRefused = 0;       // answers the server refused
    QStringList interactiveTexts;     // the server's last prompts
  };
  void authenticate(const ConnectCallbacks& callbacks);  // in ssh_authentication.cpp, as the next ones
  AuthStep authPublicKey(const ConnectCallbacks& callbacks, AuthNotes& notes);
  AuthStep tryKeyFile(const QString& path, bool explicitFile, const ConnectCallbacks& callbacks, AuthNotes& notes);
  AuthStep authKeyboardInteractive(const ConnectCallbacks& callbacks, AuthNotes& notes);
  AuthStep authPassword(const ConnectCallbacks& callbacks, AuthNotes& notes);
  AuthStep authOutcome(int rc);  // of libssh's SSH_AUTH_*; throws LinkLost when the link went
  [[noreturn]] void throwAuthFailure(const AuthNotes& notes, int methods) const;

  ssh_session m_session = nullptr;
  std::unique_ptr<ProxyProcess> m_proxy;
  SshTarget m_target;
  HostKeyInfo m_hostKey;
  bool m_hostKeyWasKnown = false;
  bool m_authenticated = false;
  QString m_authDescription;
  int m_linkTimeoutMs = 4000;
  const std::atomic<bool>* m_cancel = nullptr;
  std::function<void(int fd)> m_socketObserver;
  std::thread::id m_owner;
  std::unique_ptr<char[]> m_readBuffer;  // pollExec's
};

}  // namespace traindeck
