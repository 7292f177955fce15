#include "sweep_places.h"

#include <QObject>
#include <algorithm>

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

PlaceRecord placeRecord(const SweepPlace& place) {
  PlaceRecord record{place.name.toStdString(), place.slotCount, {}, {}, {}, place.pack};
  if (place.target) {
    record.host = place.target->host;
    record.identity = place.target->identity;
    record.proxyCommand = place.target->proxy_command;
  }
  return record;
}

SweepPlace placeOf(const PlaceRecord& record) {
  SweepPlace place{QString::fromStdString(record.name), std::nullopt, std::max(1, record.slotCount),
                   std::max(1, record.pack)};
  if (!record.host.empty()) {
    TargetConfig target;
    target.kind = TargetKind::Ssh;
    target.host = record.host;
    target.identity = record.identity;
    target.proxy_command = record.proxyCommand;
    place.target = target;
  }
  return place;
}

}  // namespace traindeck
