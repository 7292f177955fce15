// A remote run's life after its launch, over its job's connection: the mirror fed by the helper's
// `stream` on one channel (RemoteRunStream: a record is here as soon as it is written there), or
// by its `read` every kPollMs where a stream cannot run (RunMirror), the end rules, a runtime that goes, the link as
// the job shows it, and the newest checkpoints copied here as it trains (CheckpointSync; the last one before the end).
// Ends: as the end rule says (run_end_rule.h), asked of the run's process (run_process.h: a
// supervisor there, a Slurm job, a watched folder), which alone knows whether it lives and the
// words for a death. Gone: another boot id, no work folder, no run folder, or unreachable past
// goneAfterMs. A lost link never ends a run otherwise. Made by RemoteJob once the run is
// launched (or attached); GUI thread.
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
#include "run_process.h"

namespace traindeck {

class RemoteFollower : public QObject {
  Q_OBJECT
 public:
  static constexpr int kPollMs = 500;
  static constexpr int kMaxReadBytes = 4 << 20;     // per file per poll
  static constexpr int kRetryConnectMs = 15000;     // a host that could not be reached, tried again

  struct Options {
    int keepHere = 2;     // the newest complete checkpoints copied here (0: none)
    int goneAfterMs = 0;  // unreachable this long: the runtime is gone (0: never)
  };

  // `host`, `record`, `mirror` and `process` are the job's and outlive this follower.
  RemoteFollower(RemoteHost* host, RemoteRecord* record, RunMirror* mirror, RunProcess* process, Options options,
                 QObject* parent = nullptr);
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
  // remote.json's record changed (the boot id of a watched run, learnt): the job writes it.
  void recordChanged();
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

  RemoteHost* m_host;
  RemoteRecord* m_record;
  RunMirror* m_mirror;
  RunProcess* m_process;
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
  bool m_goneOnce = false;    // the processes were found gone at the last look
  QString m_heldBy;
  std::unique_ptr<CheckpointSync> m_sync;
  enum class LastCopy { NotYet, Running, Done } m_lastCopy = LastCopy::NotYet;
};

}  // namespace traindeck
