// LinkState: where a RemoteHost's connection stands. Only Ready allows operations.
#pragma once

#include <QMetaType>

namespace traindeck {

enum class LinkState { Disconnected, Connecting, Ready, Reconnecting, Failed };

inline const char* linkStateName(LinkState state) {
  switch (state) {
    case LinkState::Disconnected:
      return "disconnected";
    case LinkState::Connecting:
      return "connecting";
    case LinkState::Ready:
      return "ready";
    case LinkState::Reconnecting:
      return "reconnecting";
    case LinkState::Failed:
      return "failed";
  }
  return "?";
}

}  // namespace traindeck

Q_DECLARE_METATYPE(traindeck::LinkState)
