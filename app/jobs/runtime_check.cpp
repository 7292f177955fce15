// One connection, one command (the helper's `alive`, which also says the boot id), one answer.
#include "runtime_check.h"

#include <QPointer>
#include <algorithm>

#include "remote_helper.h"

namespace traindeck {

RuntimeCheck::RuntimeCheck(const RemoteRecord& record, RemoteHost::HostKeyPrompt hostKeyPrompt, bool batch,
                           QObject* parent)
    : QObject(parent), m_record(record), m_hostKeyPrompt(std::move(hostKeyPrompt)), m_batch(batch) {
  m_bound.setSingleShot(true);
  connect(&m_bound, &QTimer::timeout, this, [this] {
    answer(false,
           tr("%1 cannot be reached (no answer within %2 s)").arg(m_record.ssh.spec).arg(m_bound.interval() / 1000));
  });
}

RuntimeCheck::~RuntimeCheck() = default;

void RuntimeCheck::start(int boundMs) {
  m_bound.start(boundMs);
  m_host = std::make_unique<RemoteHost>(m_record.target(m_batch));
  if (m_hostKeyPrompt) m_host->setHostKeyPrompt(m_hostKeyPrompt);
  if (m_interactivePrompt)
    m_host->setInteractivePrompt([this, ask = m_interactivePrompt](const InteractivePrompt& prompt) {
      // The time the user takes is not the host's: the bound waits meanwhile (a dialog's own
      // event loop may delete this check, hence the pointer).
      const QPointer<RuntimeCheck> self(this);
      const int left = m_bound.remainingTime();
      m_bound.stop();
      InteractiveAnswers answers = ask(prompt);
      if (self && !m_answered) m_bound.start(std::max(left, 0));
      return answers;
    });
  connect(m_host.get(), &RemoteHost::connectionFailed, this, [this](const QString& message) {
    answer(false, tr("%1 cannot be reached: %2").arg(m_record.ssh.spec, message));
  });
  connect(m_host.get(), &RemoteHost::readyChanged, this, [this](bool ready) {
    if (!ready || m_asked) return;
    m_asked = true;
    RemoteHelper(m_host.get(), m_record.helper, this)
        .alive(m_record.pid, m_record.startTime, [this](const AliveAnswer& a) {
          if (!a.linkFailure.isEmpty())
            return answer(false, tr("%1 did not answer: %2").arg(m_record.ssh.spec, a.linkFailure));
          if (a.helperMissing)
            return answer(false,
                          tr("the work folder %1 is not on %2 any more").arg(m_record.workDir, m_record.ssh.spec));
          if (!m_record.bootId.isEmpty() && a.bootId != m_record.bootId)
            return answer(false, tr("%1 restarted (its boot id changed) since the run started").arg(m_record.ssh.spec));
          if (!a.alive)
            return answer(
                false,
                tr("its supervisor (pid %1) is not running on %2 any more").arg(m_record.pid).arg(m_record.ssh.spec));
          answer(true, tr("its supervisor (pid %1) is running on %2").arg(m_record.pid).arg(m_record.ssh.spec));
        });
  });
  m_host->connectToHost();
}

void RuntimeCheck::answer(bool alive, const QString& why) {
  if (m_answered) return;
  m_answered = true;
  m_bound.stop();
  emit answered(alive, why);
}

}  // namespace traindeck
