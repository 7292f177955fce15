#include "sweep_places.h"

#include <QObject>

namespace traindeck {

std::optional<HostSlots> parseHostSlots(const QString& text, QString* error) {
  const qsizetype equals = text.lastIndexOf('=');
  HostSlots out{text.left(equals < 0 ? text.size() : equals).trimmed(), 1};
  if (out.host.isEmpty()) {
    *error = QObject::tr("--on needs a host: [user@]host[:port][=N], not \"%1\"").arg(text);
    return std::nullopt;
  }
  if (equals >= 0) {
    bool ok = false;
    out.slotCount = text.mid(equals + 1).trimmed().toInt(&ok);
    if (!ok || out.slotCount < 1) {
      *error = QObject::tr("--on %1: the part after = is how many trials run there at once, a whole number from 1")
                   .arg(text);
      return std::nullopt;
    }
  }
  return out;
}

}  // namespace traindeck
