// A run on an SSH host, as a Job. start() bootstraps the host in visible steps (connect, work
// folder, probe, sources, build, data, launch) and starts the trainer detached there (its own
// session: it outlives the link and the app); attach() follows such a run again from its local
// mirror's remote.json; continueOn() resumes an ended mirror's run on another host (or a fresh
// runtime) from the newest checkpoint here: the same bootstrap, then the run's files and that
// checkpoint uploaded into its run folder there and `run --resume`, so the mirror goes on where
// it was (one curve, with an event where it moved). While it runs, the mirror (RunMirror) copies the remote run
// directory every kPollMs over the one SSH connection, and its newest checkpoints in the background (CheckpointSync;
// the last one before the job ends); a lost link is reconnected with backoff by RemoteHost and the copy resumes at its
// offsets. Only the run's own run.json ends the job (or a supervisor that died without writing it), or the runtime
// going: a host that rebooted, a run folder or work folder that is not there any more (a fresh runtime), or a host
// unreachable for longer than setGoneAfter() allows; the run then fails saying which checkpoint is here. A trainer
// built there is brought home (TrainerCache) and uploaded to the next host with the same signature instead of being
// built again. GUI thread.
#pragma once

#include <QDateTime>
#include <QElapsedTimer>
#include <QString>
#include <QStringList>
#include <QTimer>
#include <QVector>
#include <deque>
#include <functional>
#include <map>
#include <memory>

#include "checkpoint_sync.h"
#include "config/run_config.h"
#include "host_probe.h"
#include "job.h"
#include "remote_host.h"
#include "remote_record.h"
#include "remote_uploads.h"
#include "run_mirror.h"
#include "runlog/line_splitter.h"

namespace traindeck {

struct RemoteLaunch {
  QString spec;                            // [user@]host[:port], as shown
  SshTarget target;                        // resolved (identity, proxy, known hosts, batch)
  QString workDir = "~/.cache/traindeck";  // the remote work folder
  RunConfig config;                        // the job; its paths are rewritten for the host
  QString configBaseDir;                   // the folder its relative paths mean
  QString localRunDir;                     // the mirror, under the runs root
  QStringList extraArgs;                   // for `traindeck-train run` after --config
  QString payloadDir;                      // trainer-sources.tar, trainer-sources.sha256, traindeck-remote.sh
  QStringList notes;                       // said once the host is reached (continueOn's remote: fields)
  QString remoteName;                      // the run's folder name there; empty: the mirror's name
};

// One step of a start, as it went: times in ms since the start began; endedMs -1 while it runs.
struct BootstrapStep {
  QString name, detail;
  qint64 startedMs = 0, endedMs = -1;
};

class RemoteJob : public Job {
  Q_OBJECT
 public:
  static constexpr int kPollMs = 500;
  static constexpr int kMaxReadBytes = 4 << 20;  // per file per poll
  static constexpr int kOutputLines = 400;
  static constexpr std::size_t kMaxOutputLineBytes = 16u << 10;  // a compiler's longest lines
  static constexpr int kSupervisorGraceMs = 30000;               // after run.json says it ended
  static constexpr int kRetryConnectMs = 15000;                  // a host that could not be reached, tried again

  explicit RemoteJob(QObject* parent = nullptr);
  ~RemoteJob() override;  // the remote run goes on

  // Before start()/attach(): how unknown host keys are answered (none: refused).
  void setHostKeyPrompt(RemoteHost::HostKeyPrompt prompt) { m_hostKeyPrompt = std::move(prompt); }
  // Before start(): asked (yes or no) whether the build tools a root account with apt-get lacks
  // may be installed there. None: they are not, and the start fails saying what to install.
  using InstallPrompt = std::function<bool(const QString& question)>;
  void setInstallPrompt(InstallPrompt prompt) { m_installPrompt = std::move(prompt); }
  // Before start()/attach(): how many of the run's newest complete checkpoints the mirror keeps,
  // copied in the background while it trains (CheckpointSync); 0: none copied unasked.
  void setCheckpointsKeptHere(int keep) { m_keepHere = keep; }
  // Before start()/attach(): after how many seconds unreachable the runtime counts as gone
  // (0: never; the run is then only ended by its own run.json).
  void setGoneAfter(int seconds) { m_goneAfterMs = seconds * 1000; }
  // Before start(): where built trainers are kept here (empty: TrainerCache's default).
  void setTrainerCacheDir(const QString& dir) { m_trainerCacheDir = dir; }
  // Before start(): the start waits, once everything is there, until releaseLaunch() (one node
  // of a job on several hosts: all nodes start together); readyToLaunch() says it waits.
  void setHoldBeforeLaunch(bool hold) { m_holdLaunch = hold; }
  void releaseLaunch();
  void start(const RemoteLaunch& launch);
  // Continues the ended run whose mirror is launch.localRunDir on launch's host, from the
  // newest complete checkpoint in the mirror (launch.extraArgs should hold --resume).
  void continueOn(const RemoteLaunch& launch);
  // Mirrors a run folder that something else writes on the host (an exported script started
  // there by hand): the helper goes up, nothing is built or launched; Stop and Kill do nothing.
  void watch(const RemoteLaunch& launch, const QString& remoteRunDir);
  // Follows the run whose mirror is `runDir` (its remote.json). Empty string, or why not.
  QString attach(const QString& runDir, bool batch = false);

  State state() const override { return m_state; }
  QString runDir() const override { return m_mirror ? m_mirror->localDir() : m_launch.localRunDir; }
  void stop() override;
  void kill() override;
  QStringList recentOutput() override;

  // "following", "reconnecting", "host unreachable since 10:42", "building", ...
  QString linkText() const override { return m_linkText; }
  const HostProbe& probe() const { return m_probe; }
  // The run's connection while it is followed (for a fetch on the same link), else nullptr.
  RemoteHost* host() const { return m_host.get(); }
  // The start's steps so far (connect, work folder, probe, sources, build, data, launch).
  const QVector<BootstrapStep>& steps() const { return m_steps; }
  qint64 sinceStartMs() const { return m_clock.isValid() ? m_clock.elapsed() : 0; }
  const RemoteRecord& record() const { return m_record; }
  // The host as the target named it ([user@]host[:port]), started here or attached.
  QString spec() const { return m_launch.spec.isEmpty() ? m_record.spec : m_launch.spec; }

 signals:
  void stepStarted(const QString& step, const QString& detail);  // connect, probe, sources, build, data, launch
  void outputLine(const QString& line);                          // what a step printed (the build's progress)
  void probed(const traindeck::HostProbe& probe);
  void readyToLaunch();                              // setHoldBeforeLaunch(true): waiting for releaseLaunch()
  void transferProgress(qint64 done, qint64 total);  // the step's upload

 private:
  using ExecDone = std::function<void(int status, const QByteArray& out, const QByteArray& err)>;
  using UploadDone = std::function<void()>;
  void setState(State state);
  void setLinkText(const QString& text);
  void makeHost(const SshTarget& target);
  void releaseHost();
  int exec(const QString& command, ExecDone done, bool streamOutput = false);
  // The bootstrap's current step: run now, and again when a lost link is back.
  void runStep(std::function<void()> step);
  void beginStep(const QString& name, const QString& detail);
  void endSteps();
  void stepFailed(const QString& message);
  void cancelStart();
  void upload(const QString& local, const QString& remote, UploadDone done);
  void fail(const QString& sentence);
  void addOutput(const QString& text);
  QString helper() const;      // the helper script's remote path, quoted
  QString remoteName() const;  // the run's folder name on the host (and of what it uploads)

  void stepWorkFolder();
  void stepHelper();
  void stepProbe();
  void stepInstall(const QStringList& packages);
  void stepSources();
  void stepBuild();
  // BUILD is the build folder there: BUILD/bin/traindeck-train is m_record.trainBinary.
  void stepUploadTrainer(const QString& binary, const QString& build);  // a build brought home, for a host like it
  void stepCompile(const QString& build);
  void afterBuild();
  void bringTrainerHome();
  void stepData(int index);
  void stepDataFile(int index, int file);
  QString partialDataDir(const PlannedUpload& upload) const;
  void stepSeed();  // continueOn(): the run's files and its checkpoint, into its folder there
  void stepSeedFile(int index);
  void markMove(const QString& checkpoint);
  void stepHold();  // setHoldBeforeLaunch(true): until releaseLaunch()
  void stepLaunch();
  void stepLaunched();     // attach(): a launch whose answer was lost
  void stepWatchFolder();  // watch(): the folder there, as the mirror's source

  void startFollowing();
  // False while the run's last checkpoint is being copied here (started on the first call).
  bool lastCheckpointCopied();
  void runtimeGone(const QString& reason);
  void poll();
  void onAnswer(const RemoteReadAnswer& answer);
  void signalSupervisor(const QString& signal);
  bool refusedAsWatched();  // a watched run is not ours to stop: says so

  State m_state = State::Idle;
  RemoteLaunch m_launch;
  RemoteRecord m_record;
  HostProbe m_probe;
  QString m_sourcesHash;
  QVector<PlannedUpload> m_uploads;
  std::unique_ptr<RemoteHost> m_host;
  RemoteHost::HostKeyPrompt m_hostKeyPrompt;
  InstallPrompt m_installPrompt;
  bool m_installTried = false;
  std::unique_ptr<RunMirror> m_mirror;
  QTimer m_pollTimer;
  bool m_pollInFlight = false;
  int m_pollId = -1;
  std::function<void()> m_currentStep;
  QString m_currentStepName;
  QVector<BootstrapStep> m_steps;
  QElapsedTimer m_clock;  // since start()
  bool m_retryStep = false;
  bool m_stopRequested = false;
  QString m_watchDir;  // watch(): the run folder on the host, as given
  bool m_supervisorGoneOnce = false;
  QElapsedTimer m_endedSeen;  // since run.json first said the run ended
  int m_keepHere = 2;
  int m_goneAfterMs = 0;
  QTimer m_goneTimer;  // runs while the host is unreachable
  QString m_trainerCacheDir;
  int m_trainerDownloadId = -1;  // the trainer on its way home
  bool m_continuing = false;
  bool m_holdLaunch = false;
  QString m_continuedFrom;  // continueOn(): the host it ran on before
  QStringList m_seedFiles;  // relative to the run folder, COMPLETE last
  std::unique_ptr<CheckpointSync> m_sync;
  enum class LastCopy { NotYet, Running, Done } m_lastCopy = LastCopy::NotYet;  // the run's last checkpoint
  struct PendingExec {
    ExecDone done;
    bool stream = false;
    QByteArray out, err;
    LineSplitter lines;  // a streamed exec's output, as lines
  };
  std::map<int, PendingExec> m_execs;
  std::map<int, UploadDone> m_uploadsInFlight;
  std::deque<QString> m_output;
  QString m_linkText;
  QDateTime m_unreachableSince;
};

}  // namespace traindeck
