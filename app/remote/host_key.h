// HostKeyInfo: what the user is shown about a server's host key (type, SHA256 fingerprint)
// and, when it conflicts with known_hosts, which file and line hold the other key.
#pragma once

#include <QMetaType>
#include <QString>

namespace traindeck {

enum class HostKeyDecision { Reject, AcceptOnce, AcceptAndRemember };

struct HostKeyInfo {
  QString hostName;     // as known_hosts names it: "host" or "[host]:port"
  QString keyType;      // "ssh-ed25519", "ecdsa-sha2-nistp256", ...
  QString fingerprint;  // "SHA256:..." as ssh-keygen -l prints it
  QString knownHostsFile;
  int knownHostsLine = 0;  // a line holding another key for this host (changed key), else 0
  QString knownKeyType;    // the key type on that line
};

// Finds the first line of file that names hostName (plain or hashed), 1-based; 0 if none.
// keyType receives that line's key type.
int findKnownHostsLine(const QString& file, const QString& hostName, QString* keyType = nullptr);

}  // namespace traindeck

Q_DECLARE_METATYPE(traindeck::HostKeyInfo)
