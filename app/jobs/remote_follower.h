// A remote run's life after its launch, over its job's connection: the mirror fed by the helper's
// `stream` on one channel (RemoteRunStream: a record is here as soon as it is written there), or
// by its `read` every kPollMs where a stream cannot run (RunMirror), the end rules, a runtime that goes, the link as the job shows it, and the
// newest checkpoints copied here as it trains (CheckpointSync; the last one before the end).
// Ends: the run's own run.json once its supervisor is gone and all of it is here (a watched run:
// its run.json alone); a supervisor dead without a verdict is "killed" (run_verdict.h); one that
// never wrote run.json refused the job. Gone: another boot id, no work folder, no run folder, or
// unreachable past goneAfterMs. A lost link never ends a run otherwise. A Slurm run's trainer is
// on the cluster's nodes, not the host: its SlurmQueue says whether the job still lives (queued,
// running, requeued) and the link text says its queue state; a job that can never run is
// cancelled and fails with Slurm's reason in words. Made by RemoteJob once the run is launched
// (or attached); GUI thread.
#pragma once

#include <QDateTime>
#include <QElapsedTimer>
#include <QObject>
#include <QPointer>
#include <QString>
#include <QTimer>
#include <memory>
#include <optional>

#include "checkpoint_sync.h"
#include "job.h"
#include "remote_answers.h"
#include "remote_host.h"
#include "remote_record.h"
#include "remote_stream.h"
#include "run_mirror.h"
#include "slurm_queue.h"

namespace traindeck {

class RemoteFollower : public QObject {
  Q_OBJECT
 public:
  static constexpr int kPollMs = 500;
  static constexpr int kMaxReadBytes = 4 << 20;     // per file per poll
  static constexpr int kSupervisorGraceMs = 30000;  // after run.json says it ended
  static constexpr int kQueueSoonMs = 10000;  // a Slurm job's queue asked each second once its run ended
  static constexpr int kRetryConnectMs = 15000;     // a host that could not be reached, tried again

  struct Options {
    int keepHere = 2;     // the newest complete checkpoints copied here (0: none)
    int goneAfterMs = 0;  // unreachable this long: the runtime is gone (0: never)
    QPointer<SlurmQueue> queue;  // a Slurm run's login node's queue (record.slurmJobId)
  };

  // `host`, `record` and `mirror` are the job's and outlive this follower.
  RemoteFollower(RemoteHost* host, RemoteRecord* record, RunMirror* mirror, Options options, QObject* parent = nullptr);
  ~RemoteFollower() override;

  void start();
  void pollNow();
  // While `what` is not empty the run is not ended (something of it is still on its way here).
  void holdEnd(const QString& what);

 signals:
  void linkChanged(traindeck::Job::Link link, const QString& text);
  void outputLine(const QString& line);
  // How it ended, as run.json now says: 0 finished or stopped, 1 failed, -1 killed.
  void ended(int exitCode);
  // The runtime went ("<host> restarted ..."): the job fails the run with it.
  void gone(const QString& reason);
  // The trainer there ended without ever writing run.json.
  void failed(const QString& sentence);

 private:
  QString runDir() const { return m_mirror->localDir(); }
  void onLinkState(LinkState state);
  void onAnswer(const RemoteReadAnswer& answer);
  bool lastCheckpointCopied();  // false while the run's last checkpoint is being copied here
  void startSync();
  // Opens the stream (again) from where the mirror stands; nothing where it cannot run.
  void startStream();
  void onStreamEnded(int status, const QString& why);
  void stopFollowing();
  void end(int exitCode, Job::Link link, const QString& text);
  bool isSlurm() const { return !m_record->slurmJobId.isEmpty() && m_options.queue; }
  void onQueue(const QMap<QString, SlurmJobState>& jobs);
  // Whether the run's processes may still write: its supervisor there, or its Slurm job.
  bool runLives(const RemoteReadAnswer& answer) const;
  QString lastJobState() const;  // "completed", "cancelled", ...: the queue's last word on the job

  RemoteHost* m_host;
  RemoteRecord* m_record;
  RunMirror* m_mirror;
  QString m_spec;  // the record's host as the user gave it, for messages
  Options m_options;
  bool m_following = false;
  bool m_pollInFlight = false;
  QTimer m_pollTimer;  // reads while no stream runs (none yet, the link just back, or none possible)
  std::unique_ptr<RemoteRunStream> m_stream;
  bool m_streamUnsupported = false;  // the helper there has no stream, or it fails at once: polls only
  QTimer m_goneTimer;  // runs while the host is unreachable
  QDateTime m_unreachableSince;
  QElapsedTimer m_endedSeen;  // since run.json first said the run ended
  bool m_supervisorGoneOnce = false;
  QString m_heldBy;
  std::unique_ptr<CheckpointSync> m_sync;
  std::optional<SlurmJobState> m_job;  // the queue's last word on a Slurm run's job
  bool m_jobLeftQueue = false;         // a poll answered without it: ended and forgotten
  enum class LastCopy { NotYet, Running, Done } m_lastCopy = LastCopy::NotYet;
};

}  // namespace traindeck
