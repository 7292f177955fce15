// SlurmQueue: the queue states of every Slurm job followed through one login node, from one
// `squeue` per poll for all of them (the helper's `queue`: this account's jobs), never faster than
// every kPollMs (Slurm asks clients not to poll in loops, and may rate-limit them); a failed
// poll backs off to kMaxPollMs. A job whose run says it ended may ask sooner (pollSoon: at most
// once a second) so that its end is seen in about a second. It asks over any ready connection of the jobs that follow (each
// remote job has its own). SlurmQueues keeps one per login node, for whoever follows Slurm runs
// (JobController, the CLI): no singleton. GUI thread.
#pragma once

#include <QElapsedTimer>
#include <QHash>
#include <QMap>
#include <QObject>
#include <QPointer>
#include <QString>
#include <QTimer>

#include "remote_host.h"
#include "slurm_job_state.h"

namespace traindeck {

class SlurmQueue : public QObject {
  Q_OBJECT
 public:
  static constexpr int kPollMs = 10000;
  static constexpr int kMaxPollMs = 60000;
  static constexpr int kSoonMs = 1000;

  explicit SlurmQueue(QObject* parent = nullptr);

  // Follows `jobId`, asking over `host` (through the helper at `helper` there) while it is ready.
  // The first poll for a new job is made at once.
  void follow(const QString& jobId, RemoteHost* host, const QString& helper);
  void unfollow(const QString& jobId);
  bool isFollowing(const QString& jobId) const { return m_followers.contains(jobId); }
  // A followed job's run said it ended: the next poll goes out kSoonMs after the last one rather
  // than at the next tick. Not while polls fail (the backoff holds).
  void pollSoon();
  // squeue calls made so far (the benchmark's count).
  int pollsMade() const { return m_polls; }
  // Milliseconds until the next poll, as the backoff has set it.
  int interval() const { return m_timer.interval(); }

 signals:
  // After each answered poll: the state of each followed job; a followed job missing from
  // `jobs` is not in the queue any more (ended and forgotten, or never known).
  void updated(const QMap<QString, traindeck::SlurmJobState>& jobs);

 private:
  struct Asker {
    QPointer<RemoteHost> host;
    QString helper;
  };
  void poll();

  QHash<QString, Asker> m_followers;  // by job id
  QTimer m_timer;
  QTimer m_soon;
  // The poll on its way, over this connection. A connection closed before it answered (its job
  // ended, and the job's connection went with it) never answers: the next poll goes over another.
  bool m_inFlight = false;
  QPointer<RemoteHost> m_inFlightOver;
  quint64 m_pollId = 0;  // an answer to an abandoned poll is dropped
  int m_polls = 0;
  QElapsedTimer m_lastPoll;
};

// One SlurmQueue per login node ([user@]host[:port]).
class SlurmQueues : public QObject {
  Q_OBJECT
 public:
  explicit SlurmQueues(QObject* parent = nullptr) : QObject(parent) {}
  SlurmQueue* forLogin(const QString& login);

 private:
  QHash<QString, SlurmQueue*> m_queues;
};

}  // namespace traindeck
