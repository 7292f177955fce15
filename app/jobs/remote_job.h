// A run on an SSH host, as a Job. start() bootstraps the host in visible steps (connect, work
// folder, probe, sources, build, data, launch) and starts the trainer detached there (its own
// session: it outlives the link and the app); attach() follows such a run again from its local
// mirror's remote.json; continueOn() resumes an ended mirror's run on another host (or a fresh
// runtime) from the newest checkpoint here: the same bootstrap, then the run's files and that
// checkpoint uploaded into its run folder there and `run --resume`, so the mirror goes on where
// it was (one curve, with an event where it moved). From the launch on, a RemoteFollower mirrors
// the run and says when it ended or its runtime went (the run then fails saying which checkpoint
// is here). A trainer built there is brought home (TrainerCache) and uploaded to the next host
// with the same signature instead of being built again. GUI thread.
#pragma once

#include <QElapsedTimer>
#include <QPointer>
#include <QString>
#include <QStringList>
#include <QVector>
#include <deque>
#include <functional>
#include <memory>

#include "config/run_config.h"
#include "host_probe.h"
#include "job.h"
#include "remote_bootstrap.h"
#include "remote_follower.h"
#include "remote_host.h"
#include "remote_record.h"
#include "run_mirror.h"
#include "run_process.h"
#include "runtime_check.h"
#include "slurm_queue.h"

namespace traindeck {

class RemoteJob : public Job {
  Q_OBJECT
 public:
  static constexpr int kOutputLines = 400;

  explicit RemoteJob(QObject* parent = nullptr);
  ~RemoteJob() override;  // the remote run goes on

  // Before start()/attach(): how unknown host keys are answered (none: refused).
  void setHostKeyPrompt(RemoteHost::HostKeyPrompt prompt) { m_hostKeyPrompt = std::move(prompt); }
  // Before start()/attach(): how keyboard-interactive prompts (a second factor) are answered,
  // once per connection (none: a host that wants them cannot be reached).
  void setInteractivePrompt(AskInteractive prompt) { m_interactivePrompt = std::move(prompt); }
  // Before start(): asked (yes or no) whether the build tools a root account with apt-get lacks
  // may be installed there. None: they are not, and the start fails saying what to install.
  using InstallPrompt = RemoteBootstrap::InstallPrompt;
  void setInstallPrompt(InstallPrompt prompt) { m_options.installPrompt = std::move(prompt); }
  // Before start()/attach(): how many of the run's newest complete checkpoints the mirror keeps,
  // copied in the background while it trains (CheckpointSync); 0: none copied unasked.
  void setCheckpointsKeptHere(int keep) { m_keepHere = keep; }
  // Before start()/attach(): after how many seconds unreachable the runtime counts as gone
  // (0: never; the run is then only ended by its own run.json).
  void setGoneAfter(int seconds) { m_goneAfterMs = seconds * 1000; }
  // Before start()/attach(): where Slurm runs' queue states come from (one queue per login node,
  // shared by every job that follows runs there). None: a Slurm run cannot be followed.
  void setSlurmQueues(SlurmQueues* queues) { m_slurmQueues = queues; }
  // Before start(): where built trainers are kept here (empty: TrainerCache's default).
  void setTrainerCacheDir(const QString& dir) { m_options.trainerCacheDir = dir; }
  // Before start(): the start waits, once everything is there, until releaseLaunch() (one node
  // of a job on several hosts: all nodes start together); readyToLaunch() says it waits.
  void setHoldBeforeLaunch(bool hold) { m_options.holdBeforeLaunch = hold; }
  void releaseLaunch();
  void start(const RemoteLaunch& launch);
  // Continues the ended run whose mirror is launch.localRunDir on launch's host, from the
  // newest complete checkpoint in the mirror (launch.extraArgs should hold --resume).
  void continueOn(const RemoteLaunch& launch);
  // continueOn() for a mirror that still says the run is going on `previous` (nobody followed it
  // as it died): that host is asked first (RuntimeCheck, the step "previous host"). Gone: the
  // mirror's run.json says "Runtime gone: ..." as a follower would have written it, and the run
  // continues. Alive: the start is refused (failedToStart saying how to stop it there) and the
  // mirror is left as it was.
  void continueOnceGone(const RemoteLaunch& launch, const RemoteRecord& previous, bool batch);
  // Mirrors a run folder that something else writes on the host (an exported script started
  // there by hand): the helper goes up, nothing is built or launched; Stop and Kill do nothing.
  void watch(const RemoteLaunch& launch, const QString& remoteRunDir);
  // Follows the run whose mirror is `runDir` (its remote.json). Empty string, or why not.
  QString attach(const QString& runDir, bool batch = false);

  State state() const override { return m_state; }
  QString runDir() const override { return m_mirror ? m_mirror->localDir() : m_launch.localRunDir; }
  void stop() override;
  void kill() override;
  QString stopRefusal() const override;
  QStringList recentOutput() override;

  // "following", "reconnecting", "host unreachable since 10:42", "building", ...
  QString linkText() const override { return m_linkText; }
  Link link() const override { return m_link; }
  QString placeText() const override { return m_placeText; }
  QStringList hosts() const override { return {spec()}; }
  QVector<HostStart> startSteps() const override { return {{spec(), m_steps, sinceStartMs()}}; }
  const HostProbe& probe() const;
  // The run's connection while it is followed (for a fetch on the same link), else nullptr.
  RemoteHost* host() const { return m_host.get(); }
  // The start's steps so far (connect, work folder, probe, sources, build, data, launch).
  const QVector<BootstrapStep>& steps() const { return m_steps; }
  qint64 sinceStartMs() const { return m_clock.isValid() ? m_clock.elapsed() : 0; }
  const RemoteRecord& record() const { return m_record; }
  // The host as the target named it ([user@]host[:port]), started here or attached.
  QString spec() const { return m_launch.target.spec; }

 signals:
  void probed(const traindeck::HostProbe& probe);
  void readyToLaunch();  // setHoldBeforeLaunch(true): waiting for releaseLaunch()

 private:
  using ExecDone = std::function<void(int status, const QByteArray& out, const QByteArray& err)>;
  void setState(State state);
  void setLink(Link link, const QString& text);
  void makeHost(const SshTarget& target);
  void releaseHost();
  void makeBootstrap();
  void beginStep(const QString& name, const QString& detail);
  void endSteps();
  void fail(const QString& sentence);
  void refuse(const QString& sentence);  // ends a start that changed nothing: run.json is left alone
  void addOutput(const QString& text);
  void cancelStart();
  void startFollowing();
  void runtimeGone(const QString& reason);
  // remote.json's one writer: every change to the record (the start's steps, the follower's)
  // is written here. Empty, or why it could not be written.
  QString saveRecord();

  State m_state = State::Idle;
  RemoteLaunch m_launch;
  RemoteRecord m_record;
  std::unique_ptr<RemoteHost> m_host;
  RemoteHost::HostKeyPrompt m_hostKeyPrompt;
  AskInteractive m_interactivePrompt;
  RemoteBootstrap::Options m_options;
  std::unique_ptr<RunMirror> m_mirror;
  std::unique_ptr<RemoteBootstrap> m_bootstrap;   // the start's steps
  std::unique_ptr<RunProcess> m_process;          // from the launch (or attach) on: alive?, Stop, Kill, the end
  std::unique_ptr<RemoteFollower> m_follower;     // from the launch (or attach) on
  std::unique_ptr<RuntimeCheck> m_previousCheck;  // continueOnceGone(): asking the host it ran on
  QVector<BootstrapStep> m_steps;
  QString m_currentStepName;
  QElapsedTimer m_clock;  // since the start began
  int m_keepHere = 2;
  int m_goneAfterMs = 0;
  QPointer<SlurmQueues> m_slurmQueues;
  std::deque<QString> m_output;
  QString m_linkText;
  QString m_placeText;
  Link m_link = Link::Connecting;
};

}  // namespace traindeck
