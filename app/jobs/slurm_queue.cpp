#include "slurm_queue.h"

#include <algorithm>

#include "remote_helper.h"

namespace traindeck {

SlurmQueue::SlurmQueue(QObject* parent) : QObject(parent) {
  m_timer.setInterval(kPollMs);
  connect(&m_timer, &QTimer::timeout, this, &SlurmQueue::poll);
  m_soon.setSingleShot(true);
  connect(&m_soon, &QTimer::timeout, this, &SlurmQueue::poll);
}

void SlurmQueue::pollSoon() {
  if (m_followers.isEmpty() || m_soon.isActive() || m_timer.interval() > kPollMs) return;
  const qint64 since = m_lastPoll.isValid() ? m_lastPoll.elapsed() : kSoonMs;
  m_soon.start(static_cast<int>(std::max<qint64>(0, kSoonMs - since)));
}

void SlurmQueue::follow(const QString& jobId, RemoteHost* host, const QString& helper) {
  const bool known = m_followers.contains(jobId);
  m_followers.insert(jobId, Asker{host, helper});
  if (!m_timer.isActive()) m_timer.start();
  // A job new here is asked about at once, unless a poll went out within the last second (many
  // jobs attached together share one).
  if (!known && (!m_lastPoll.isValid() || m_lastPoll.elapsed() >= 1000)) {
    m_timer.start();
    poll();
  }
}

void SlurmQueue::unfollow(const QString& jobId) {
  m_followers.remove(jobId);
  if (m_followers.isEmpty()) {
    m_timer.stop();
    m_soon.stop();
  }
}

void SlurmQueue::poll() {
  // A poll over a connection that has gone since (or a link that dropped its answer for longer
  // than the backoff allows) is given up.
  if (m_inFlight && (!m_inFlightOver || !m_inFlightOver->isReady() || m_lastPoll.elapsed() > kMaxPollMs))
    m_inFlight = false;
  if (m_inFlight || m_followers.isEmpty()) return;
  RemoteHost* host = nullptr;
  QString helper;
  for (const Asker& asker : std::as_const(m_followers))
    if (asker.host && asker.host->isReady()) {
      host = asker.host;
      helper = asker.helper;
      break;
    }
  if (!host) return;  // no link now: the next tick asks again
  m_inFlight = true;
  m_inFlightOver = host;
  const quint64 id = ++m_pollId;
  ++m_polls;
  m_lastPoll.start();
  RemoteHelper(host, helper, this).queue([this, id](const QueueAnswer& a) {
    if (id != m_pollId) return;  // given up on: a newer poll went out
    m_inFlight = false;
    if (!a.complete) {  // squeue failed or the link went: ask less often until it answers
      m_timer.setInterval(std::min(m_timer.interval() * 2, kMaxPollMs));
      return;
    }
    m_timer.setInterval(kPollMs);
    QMap<QString, SlurmJobState> followed;
    for (auto it = m_followers.cbegin(); it != m_followers.cend(); ++it)
      if (a.jobs.contains(it.key())) followed.insert(it.key(), a.jobs.value(it.key()));
    emit updated(followed);
  });
}

SlurmQueue* SlurmQueues::forLogin(const QString& login) {
  SlurmQueue*& queue = m_queues[login];
  if (!queue) queue = new SlurmQueue(this);
  return queue;
}

}  // namespace traindeck
