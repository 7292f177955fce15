// SshError: what the SSH layer throws. The message is written for the user (what happened and
// what to do); the kind lets callers react (a lost link is retried, a refused key never is).
#pragma once

#include <QString>
#include <stdexcept>

namespace traindeck {

class SshError : public std::runtime_error {
 public:
  enum class Kind {
    Config,          // a bad host spec, config file or option
    Proxy,           // the ProxyCommand could not be started or exited
    Network,         // could not reach the host (refused, timed out, no route)
    HostKeyUnknown,  // unknown key refused (batch mode or by the user)
    HostKeyChanged,  // the key differs from known_hosts (or is of another type)
    Auth,            // every authentication method failed
    LinkLost,        // an established link died (EOF, timeout)
    Remote,          // a remote operation failed (sftp error, command failed to start)
    NoSftp,          // the server offers no SFTP (no `Subsystem sftp`): never retried, the host needs fixing
    Checksum,        // a transfer arrived but its checksum differs
    Cancelled,
  };
  SshError(Kind kind, const QString& message) : std::runtime_error(message.toStdString()), m_kind(kind) {}
  Kind kind() const { return m_kind; }
  QString message() const { return QString::fromStdString(what()); }

 private:
  Kind m_kind;
};

}  // namespace traindeck
