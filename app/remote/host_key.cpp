// known_hosts lookup for messages: libssh says that a key changed but not where the old one
// is, and the user needs the line to fix it.
#include "host_key.h"

#include <libssh/libssh.h>

#include <QFile>

namespace traindeck {

int findKnownHostsLine(const QString& file, const QString& hostName, QString* keyType) {
  QFile f(file);
  if (!f.open(QIODevice::ReadOnly)) return 0;
  const QByteArray host = hostName.toUtf8();
  int lineNo = 0;
  while (!f.atEnd()) {
    ++lineNo;
    const QByteArray line = f.readLine().trimmed();
    if (line.isEmpty() || line.startsWith('#') || line.startsWith('@')) continue;
    ssh_knownhosts_entry* entry = nullptr;
    // libssh matches plain names, patterns and hashed (|1|salt|hash) names for us.
    if (ssh_known_hosts_parse_line(host.constData(), line.constData(), &entry) == SSH_OK && entry != nullptr) {
      if (keyType != nullptr && entry->publickey != nullptr)
        *keyType = QString::fromLatin1(ssh_key_type_to_char(ssh_key_type(entry->publickey)));
      ssh_knownhosts_entry_free(entry);
      return lineNo;
    }
    if (entry != nullptr) ssh_knownhosts_entry_free(entry);
  }
  return 0;
}

}  // namespace traindeck
