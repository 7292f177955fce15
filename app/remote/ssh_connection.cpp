// The libssh calls behind SshConnection: connect through an optional proxy, host key check,
// exec, probe. Authentication is in ssh_authentication.cpp.
#include "ssh_connection.h"

#include <libssh/libssh.h>
#include <poll.h>

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>

#include "proxy_process.h"
#include "ssh_error.h"

namespace traindeck {

namespace {

constexpr int kConnectTimeoutS = 15;
constexpr int kConnectSliceMs = 100;  // how soon a connect sees that it was cancelled
constexpr int kReadBuffer = 256 * 1024;
constexpr int kReadLooks = 256;  // at most ~1 MiB from the socket per pollExec
// AES-GCM first: with AES-NI it is several times faster than chacha20 for bulk transfers.
constexpr const char* kCiphers =
    "aes128-gcm@openssh.com,aes256-gcm@openssh.com,chacha20-poly1305@openssh.com,aes128-ctr,aes256-ctr";

}  // namespace

SshConnection::SshConnection() = default;

SshConnection::~SshConnection() {
  if (m_session != nullptr) disconnect();
}

void SshConnection::checkOwner() const {
  if (m_owner != std::thread::id() && m_owner != std::this_thread::get_id())
    qFatal("SshConnection used from a thread that does not own it (libssh sessions are single-threaded)");
}

ssh_session SshConnection::session() const {
  checkOwner();
  return m_session;
}

pid_t SshConnection::proxyPid() const {
  return m_proxy ? m_proxy->pid() : -1;
}

void SshConnection::setLinkTimeoutMs(int ms) {
  m_linkTimeoutMs = ms;
  if (m_session != nullptr) {
    // libssh adds the two: seconds + microseconds.
    long sec = ms / 1000, usec = static_cast<long>(ms % 1000) * 1000;
    ssh_options_set(m_session, SSH_OPTIONS_TIMEOUT, &sec);
    ssh_options_set(m_session, SSH_OPTIONS_TIMEOUT_USEC, &usec);
  }
}

QString SshConnection::errorDetail() const {
  QString detail = m_session != nullptr ? QString::fromUtf8(ssh_get_error(m_session)) : QString();
  if (m_proxy) {
    const QString said = m_proxy->stderrText();
    const QString exit = m_proxy->exitDescription();
    if (!exit.isEmpty()) detail += QString("; the ProxyCommand %1").arg(exit);
    if (!said.isEmpty()) detail += QString("; the ProxyCommand said: %1").arg(said);
  }
  return detail;
}

void SshConnection::throwLinkLost(const QString& during) const {
  throw SshError(SshError::Kind::LinkLost,
                 QString("The link to %1 was lost %2: %3.").arg(m_target.display(), during, errorDetail()));
}

void SshConnection::connect(const SshTarget& target, const ConnectCallbacks& callbacks) {
  if (m_session != nullptr) disconnect();
  m_owner = std::this_thread::get_id();
  m_target = target;
  m_target.applyDefaults();
  m_session = ssh_new();
  if (m_session == nullptr)
    throw SshError(SshError::Kind::Network, "libssh could not create a session (out of memory?).");
  const QByteArray host = m_target.host.toUtf8(), user = m_target.user.toUtf8();
  const QByteArray knownHosts = QDir::cleanPath(m_target.knownHostsFile).toUtf8();
  unsigned int port = static_cast<unsigned int>(m_target.port);
  long timeout = kConnectTimeoutS;
  int no = 0;
  ssh_options_set(m_session, SSH_OPTIONS_HOST, host.constData());
  ssh_options_set(m_session, SSH_OPTIONS_USER, user.constData());
  ssh_options_set(m_session, SSH_OPTIONS_PORT, &port);
  ssh_options_set(m_session, SSH_OPTIONS_KNOWNHOSTS, knownHosts.constData());
  ssh_options_set(m_session, SSH_OPTIONS_TIMEOUT, &timeout);
  // SshConfig has already applied ~/.ssh/config; libssh must not apply it again (it would
  // start its own ProxyCommand).
  ssh_options_set(m_session, SSH_OPTIONS_PROCESS_CONFIG, &no);
  // Without TCP_NODELAY each small request (SFTP writes, probes) waits out delayed ACKs.
  int yes = 1;
  ssh_options_set(m_session, SSH_OPTIONS_NODELAY, &yes);
  ssh_options_set(m_session, SSH_OPTIONS_CIPHERS_C_S, kCiphers);
  ssh_options_set(m_session, SSH_OPTIONS_CIPHERS_S_C, kCiphers);
  const QByteArray agent = m_target.identityAgent.toLocal8Bit();
  if (!m_target.identityAgent.isEmpty() && m_target.identityAgent != "none")
    ssh_options_set(m_session, SSH_OPTIONS_IDENTITY_AGENT, agent.constData());
  if (!m_target.proxyCommand.isEmpty()) {
    m_proxy = std::make_unique<ProxyProcess>(m_target.proxyCommand);
    socket_t fd = m_proxy->duplicateSocket();  // libssh closes it on disconnect
    ssh_options_set(m_session, SSH_OPTIONS_FD, &fd);
  }
  if (QString detail = connectSession(); !detail.isEmpty()) {
    if (detail.endsWith('.')) detail.chop(1);  // the sentence goes on
    disconnect();
    if (!m_target.proxyJump.isEmpty()) {
      QStringList hops = m_target.proxyJump.split(',');
      const QString last = hops.takeLast();
      const QString sshArgs = hops.isEmpty() ? last : QString("-J %1 %2").arg(hops.join(','), last);
      throw SshError(SshError::Kind::Proxy,
                     QString("Cannot connect to %1 through the jump host %2 (ProxyJump): %3. Check that %2 is "
                             "reachable and that its host key is known (batch mode accepts no new key: connect "
                             "once with `ssh %4` to check and accept it).")
                         .arg(m_target.display(), m_target.proxyJump, detail, sshArgs));
    }
    throw SshError(
        m_target.proxyCommand.isEmpty() ? SshError::Kind::Network : SshError::Kind::Proxy,
        QString("Cannot connect to %1: %2. Check the host name, the port and that sshd runs there%3.")
            .arg(m_target.display(), detail, m_target.proxyCommand.isEmpty() ? "" : " and the ProxyCommand"));
  }
  if (m_socketObserver) m_socketObserver(socketDescriptor());
  try {
    // libssh checks and writes known_hosts under its session's host and port: with a
    // HostKeyAlias, under the alias alone (as OpenSSH), then back to the real ones.
    if (!m_target.hostKeyAlias.isEmpty()) setSessionHost(m_target.hostKeyAlias, 22);
    checkHostKey(callbacks);
    if (!m_target.hostKeyAlias.isEmpty()) setSessionHost(m_target.host, m_target.port);
    authenticate(callbacks);
  } catch (...) {
    disconnect();
    throw;
  }
  setLinkTimeoutMs(m_linkTimeoutMs);
}

QString SshConnection::connectSession() {
  // Not blocking, in slices: a host or proxy that never answers (a ProxyCommand still starting
  // a tunnel) must not hold the thread for the whole timeout when the app is closed meanwhile.
  ssh_set_blocking(m_session, 0);
  QElapsedTimer waited;
  waited.start();
  int rc = SSH_AGAIN;
  while ((rc = ssh_connect(m_session)) == SSH_AGAIN) {
    if (isCancelled()) {
      disconnect();
      throw SshError(SshError::Kind::Cancelled, "Cancelled.");
    }
    if (waited.elapsed() > kConnectTimeoutS * 1000) {
      QString detail = QString("no answer within %1 s").arg(kConnectTimeoutS);
      const QString more = errorDetail();  // what the proxy said, if anything
      if (!more.isEmpty()) detail += (more.startsWith(';') ? "" : "; ") + more;
      return detail;
    }
    const int flags = ssh_get_poll_flags(m_session);
    pollfd fd{ssh_get_fd(m_session), static_cast<short>(POLLIN | ((flags & SSH_WRITE_PENDING) ? POLLOUT : 0)), 0};
    if (fd.fd >= 0) {
      ::poll(&fd, 1, kConnectSliceMs);
    } else {
      ::poll(nullptr, 0, kConnectSliceMs);  // no socket yet: a name still being looked up
    }
  }
  ssh_set_blocking(m_session, 1);
  return rc == SSH_OK ? QString() : errorDetail();
}

void SshConnection::setSessionHost(const QString& host, int port) {
  const QByteArray name = host.toUtf8();
  unsigned int p = static_cast<unsigned int>(port);
  if (ssh_options_set(m_session, SSH_OPTIONS_HOST, name.constData()) != SSH_OK ||
      ssh_options_set(m_session, SSH_OPTIONS_PORT, &p) != SSH_OK)
    throw SshError(SshError::Kind::Config,
                   QString("libssh does not take \"%1\" as a host name (the HostKeyAlias of %2): %3.")
                       .arg(host, m_target.display(), errorDetail()));
}

void SshConnection::disconnect() {
  checkOwner();
  if (m_session != nullptr) {
    if (m_socketObserver) m_socketObserver(-1);
    if (ssh_is_connected(m_session)) ssh_disconnect(m_session);
    ssh_free(m_session);
    m_session = nullptr;
  }
  m_proxy.reset();
  m_authenticated = false;
}

void SshConnection::checkHostKey(const ConnectCallbacks& callbacks) {
  ssh_key key = nullptr;
  if (ssh_get_server_publickey(m_session, &key) != SSH_OK)
    throw SshError(SshError::Kind::Network, QString("%1 sent no host key: %2.").arg(m_target.display(), errorDetail()));
  unsigned char* hash = nullptr;
  size_t hashLen = 0;
  m_hostKey = HostKeyInfo{};
  m_hostKey.hostName = m_target.knownHostsName();
  m_hostKey.knownHostsFile = QDir::cleanPath(m_target.knownHostsFile);
  m_hostKey.keyType = QString::fromLatin1(ssh_key_type_to_char(ssh_key_type(key)));
  if (ssh_get_publickey_hash(key, SSH_PUBLICKEY_HASH_SHA256, &hash, &hashLen) == 0) {
    char* fp = ssh_get_fingerprint_hash(SSH_PUBLICKEY_HASH_SHA256, hash, hashLen);
    m_hostKey.fingerprint = QString::fromLatin1(fp);
    ssh_string_free_char(fp);
    ssh_clean_pubkey_hash(&hash);
  }
  ssh_key_free(key);

  const ssh_known_hosts_e state = ssh_session_is_known_server(m_session);
  m_hostKeyWasKnown = state == SSH_KNOWN_HOSTS_OK;
  if (state == SSH_KNOWN_HOSTS_OK) return;
  const QString offered = QString("%1 %2").arg(m_hostKey.keyType, m_hostKey.fingerprint);
  if (state == SSH_KNOWN_HOSTS_CHANGED || state == SSH_KNOWN_HOSTS_OTHER) {
    m_hostKey.knownHostsLine =
        findKnownHostsLine(m_hostKey.knownHostsFile, m_hostKey.hostName, &m_hostKey.knownKeyType);
    throw SshError(SshError::Kind::HostKeyChanged,
                   QString("The host key of %1 does not match known_hosts: the server offers %2, but %3:%4 holds "
                           "a different %5 key for it. This may be an attack. If the server was reinstalled, "
                           "remove that line (ssh-keygen -R '%1' -f %3) and connect again.")
                       .arg(m_hostKey.hostName, offered, m_hostKey.knownHostsFile)
                       .arg(m_hostKey.knownHostsLine)
                       .arg(m_hostKey.knownKeyType));
  }
  if (state == SSH_KNOWN_HOSTS_ERROR)
    throw SshError(SshError::Kind::Config, QString("Cannot check the host key of %1 against %2: %3.")
                                               .arg(m_hostKey.hostName, m_hostKey.knownHostsFile, errorDetail()));
  // Unknown host (or no known_hosts file yet).
  if (m_target.batch || !callbacks.confirmHostKey)
    throw SshError(SshError::Kind::HostKeyUnknown,
                   QString("Unknown host key for %1: %2 is not in %3, and batch mode accepts no new keys. Check the "
                           "fingerprint with the server's owner, then connect once interactively to accept it.")
                       .arg(m_hostKey.hostName, offered, m_hostKey.knownHostsFile));
  const HostKeyDecision decision = callbacks.confirmHostKey(m_hostKey);
  if (decision == HostKeyDecision::Reject)
    throw SshError(SshError::Kind::HostKeyUnknown,
                   QString("The host key of %1 (%2) was not accepted.").arg(m_hostKey.hostName, offered));
  if (decision == HostKeyDecision::AcceptAndRemember) {
    // A new ~/.ssh is private, as OpenSSH makes it.
    const QString folder = QFileInfo(m_hostKey.knownHostsFile).absolutePath();
    if (!QFileInfo::exists(folder) && QDir().mkpath(folder))
      QFile::setPermissions(folder, QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
    if (ssh_session_update_known_hosts(m_session) != SSH_OK)
      throw SshError(SshError::Kind::Config, QString("Cannot add the host key of %1 to %2: %3. Check that file's "
                                                     "permissions.")
                                                 .arg(m_hostKey.hostName, m_hostKey.knownHostsFile, errorDetail()));
  }
}

RunningCommand::~RunningCommand() {
  ssh_channel_free(m_channel);  // closes it first while the session is alive
}

std::unique_ptr<RunningCommand> SshConnection::startExec(const QString& command) {
  checkOwner();
  if (!isConnected()) throw SshError(SshError::Kind::LinkLost, QString("Not connected to %1.").arg(m_target.display()));
  ssh_channel channel = ssh_channel_new(m_session);
  if (channel == nullptr || ssh_channel_open_session(channel) != SSH_OK) {
    if (channel != nullptr) ssh_channel_free(channel);
    throwLinkLost("opening a channel");
  }
  auto running = std::make_unique<RunningCommand>(channel);
  const QByteArray cmd = command.toUtf8();
  if (ssh_channel_request_exec(channel, cmd.constData()) != SSH_OK) throwLinkLost("starting a command");
  return running;
}

std::optional<int> SshConnection::pollExec(RunningCommand& command, const OutputFn& out, const OutputFn& err) {
  checkOwner();
  ssh_channel channel = command.channel();
  if (!m_readBuffer) m_readBuffer.reset(new char[kReadBuffer]);
  char* buf = m_readBuffer.get();
  for (int stream = 0; stream < 2; ++stream) {
    // Each read looks at the socket once (4 KiB on libssh 0.10, less than a packet): while the
    // rest is there, read on, up to kReadLooks looks, so that other channels get their turn.
    int n = 0;
    for (int looks = 0; looks < kReadLooks; ++looks) {
      n = ssh_channel_read_nonblocking(channel, buf, kReadBuffer, stream);
      if (n > 0) {
        const OutputFn& to = stream == 0 ? out : err;
        if (to) to(QByteArrayView(buf, n));
      } else if (n != 0 || !hasUnreadInput()) {
        break;
      }
    }
    if (n == SSH_ERROR) throwLinkLost("reading a command's output");
  }
  const bool ended =
      ssh_channel_is_eof(channel) && ssh_channel_poll(channel, 0) <= 0 && ssh_channel_poll(channel, 1) <= 0;
  if (!ended) return std::nullopt;
  return ssh_channel_get_exit_status(channel);  // sent right after the end of the output
}

int SshConnection::socketDescriptor() const {
  return m_session == nullptr ? -1 : ssh_get_fd(m_session);
}

bool SshConnection::hasUnreadInput() const {
  pollfd fd{socketDescriptor(), POLLIN, 0};
  return fd.fd >= 0 && ::poll(&fd, 1, 0) > 0 && (fd.revents & POLLIN) != 0;
}

int SshConnection::exec(const QString& command, const OutputFn& out, const OutputFn& err) {
  const std::unique_ptr<RunningCommand> running = startExec(command);
  QElapsedTimer idle;
  idle.start();
  qint64 seen = 0;
  const auto counted = [&seen](const OutputFn& to) {
    return [&seen, &to](QByteArrayView b) {
      seen += b.size();
      if (to) to(b);
    };
  };
  const OutputFn countedOut = counted(out), countedErr = counted(err);
  for (;;) {
    if (isCancelled()) throw SshError(SshError::Kind::Cancelled, "Cancelled.");
    const qint64 before = seen;
    if (const std::optional<int> status = pollExec(*running, countedOut, countedErr)) return *status;
    if (seen > before) {
      idle.restart();
    } else if (idle.elapsed() > m_linkTimeoutMs) {
      if (!probe()) throwLinkLost("while a command ran");
      idle.restart();
    } else {
      ssh_channel_poll_timeout(running->channel(), 100, 0);  // waits for output, or 100 ms
    }
  }
}

QByteArray SshConnection::execCapture(const QString& command, int* exitStatus, QByteArray* errText) {
  QByteArray out;
  const int status = exec(
      command, [&](QByteArrayView b) { out.append(b); },
      [&](QByteArrayView b) {
        if (errText != nullptr) errText->append(b);
      });
  if (exitStatus != nullptr) *exitStatus = status;
  return out;
}

bool SshConnection::probe() {
  checkOwner();
  if (m_session == nullptr || !ssh_is_connected(m_session)) return false;
  ssh_channel channel = ssh_channel_new(m_session);
  if (channel == nullptr) return false;
  const bool ok = ssh_channel_open_session(channel) == SSH_OK;
  if (ok) ssh_channel_close(channel);
  ssh_channel_free(channel);
  return ok && ssh_is_connected(m_session);
}

}  // namespace traindeck
