// Whether the runtime of a remote run still lives, asked once and within a bound: before a run
// whose mirror still says "running" continues on another host. Nobody may have followed it as it
// died (the app closed, the laptop asleep), so its run.json here never heard. Gone: the host is
// unreachable within kBoundMs, has another boot id, has no work folder, or its supervisor is not
// running. Alive: its supervisor is, and the run must be stopped there first. GUI thread.
#pragma once

#include <QObject>
#include <QString>
#include <QTimer>
#include <memory>

#include "remote_host.h"
#include "remote_record.h"

namespace traindeck {

class RuntimeCheck : public QObject {
  Q_OBJECT
 public:
  static constexpr int kBoundMs = 15000;

  RuntimeCheck(const RemoteRecord& record, RemoteHost::HostKeyPrompt hostKeyPrompt, bool batch,
               QObject* parent = nullptr);
  ~RuntimeCheck() override;
  // Before start(): answers a second factor; the bound waits while the user is asked.
  void setInteractivePrompt(AskInteractive prompt) { m_interactivePrompt = std::move(prompt); }
  void start(int boundMs = kBoundMs);

 signals:
  // Once. alive: the run goes on there (`why` says where); else `why` says how it went, as a
  // follower would have said it ("host restarted (its boot id changed)", ...).
  void answered(bool alive, const QString& why);

 private:
  void answer(bool alive, const QString& why);

  RemoteRecord m_record;
  RemoteHost::HostKeyPrompt m_hostKeyPrompt;
  AskInteractive m_interactivePrompt;
  bool m_batch = false;
  std::unique_ptr<RemoteHost> m_host;
  QTimer m_bound;
  bool m_asked = false;
  bool m_answered = false;
};

}  // namespace traindeck
