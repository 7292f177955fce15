// HostKeyPrompt: asks whether to trust a server's unknown host key, showing its type and
// SHA256 fingerprint: accept once (this session only), accept and remember (written to
// known_hosts), or cancel. Changed keys never reach it: the SSH layer refuses them.
#pragma once

#include <QDialog>

#include "host_key.h"

namespace traindeck {

class HostKeyPrompt : public QDialog {
  Q_OBJECT
 public:
  explicit HostKeyPrompt(const HostKeyInfo& key, QWidget* parent = nullptr);
  HostKeyDecision decision() const { return m_decision; }
  // Shows the prompt modally; Reject when cancelled or closed.
  static HostKeyDecision ask(const HostKeyInfo& key, QWidget* parent);

 private:
  HostKeyDecision m_decision = HostKeyDecision::Reject;
};

}  // namespace traindeck
