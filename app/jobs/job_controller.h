// The app's jobs, one per run directory: it makes each new run's id and folder, writes the job
// file, picks the kind of job from the config's target (LocalJob for this machine, RemoteJob for
// an SSH host, whose run directory here is the mirror; MultiHostJob for several), and at start-up re-attaches to every
// run under the runs root that is still going: on this machine by pid, on a host through the
// mirror's remote.json. Pages and the window ask it for the job of the run they show; a run
// with no job here (finished, or one this app cannot reach) cannot be stopped from this app.
// Lives in the GUI thread.
#pragma once

#include <QObject>
#include <QPointer>
#include <QString>
#include <QStringList>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <vector>

#include "config/run_config.h"
#include "host_probe.h"
#include "job.h"
#include "remote_fetch.h"
#include "remote_host.h"
#include "slurm_queue.h"

class QSettings;

namespace traindeck {

class RemoteJob;
class SlurmArray;

class JobController : public QObject {
  Q_OBJECT
 public:
  struct Started {
    QString runDir;  // the new run's folder; empty when nothing was started
    QString error;   // why nothing was started, as a sentence for the user
  };

  struct RemoteOptions {
    QString payloadDir;                       // share/traindeck/remote: the helper and the trainer's sources
    RemoteHost::HostKeyPrompt hostKeyPrompt;  // none: unknown host keys are refused
    // Keyboard-interactive prompts (a second factor on MFA login nodes), once per connection;
    // none: hosts that want them cannot be reached.
    AskInteractive interactivePrompt;
    std::function<bool(const QString& question)> installPrompt;  // none: missing build tools are not installed
    QString knownHostsFile;                                      // default: the SSH config's, else ~/.ssh/known_hosts
    QString sshConfigFile;                                       // default: ~/.ssh/config
    QString workDir;                                             // overrides the config's target.remote_dir
    bool batch = false;                                          // ask nothing (headless)
    int checkpointsKeptHere = 2;     // a remote run's newest checkpoints copied into its mirror as it trains
    int goneAfterSeconds = 20 * 60;  // a host unreachable this long is a runtime gone (0: never)
    QString trainerCacheDir;         // built trainers kept here (empty: TrainerCache's default)
  };

  JobController(const QString& runsRoot, const QString& trainBinary, QObject* parent = nullptr);
  void setRemoteOptions(const RemoteOptions& options) { m_remote = options; }
  const RemoteOptions& remoteOptions() const { return m_remote; }
  ~JobController() override;  // the jobs' runs go on (they were started detached)

  // Starts `config` in a new run under the runs root. `jobFile` is the job's saved YAML file; when
  // it is empty, `yamlText` is written to <run>.job.yaml beside the run (relative paths then mean
  // the runs root). `extraArgs` go to `traindeck-train run` after the config.
  // `chosen` hears the run's folder once it is named and before anything is launched, so that a
  // caller can record it first (a sweep's runner: killed at any moment, it never loses a run).
  // A Slurm job given `array` is submitted as a task of that job array (SlurmArray), not alone.
  Started start(const RunConfig& config, const QString& jobFile, const QString& yamlText,
                const QStringList& extraArgs = {}, const std::function<void(const QString& runDir)>& chosen = {},
                std::shared_ptr<SlurmArray> array = {});
  // Continues an ended run from its newest complete checkpoint, the one way the window and the
  // command line offer it: a run of this machine resumes in its own folder (resume()); the
  // mirror of a remote run continues on `target` (continueOn()), which it then needs.
  // `extraArgs` (--stop-at N, --slot I/N) go to the trainer after --resume.
  Started continueRun(const QString& runDir, const std::optional<TargetConfig>& target = std::nullopt,
                      const QStringList& extraArgs = {});
  // Continues an ended run of this machine in its own folder from its newest complete
  // checkpoint (`traindeck-train run --resume`): the same run, one curve. Empty string, or why not.
  QString resume(const QString& runDir, const QStringList& extraArgs = {});
  // Continues an ended remote run (its mirror `runDir`) on the host `target` names, from the
  // newest complete checkpoint in the mirror: that host is bootstrapped, the job's local data
  // and the checkpoint are uploaded, and the run resumes there in the same mirror, one curve
  // (RemoteJob::continueOn). A fresh runtime of the same host is another host here too. A mirror
  // that still says "running" (nobody followed the run as it died) asks its host first: gone,
  // it is marked so and continues; alive, the start is refused (failedToStart) saying how to
  // stop it there. The work folder there is `workDir`, else the job's (workDirOf); the
  // remote options' workDir overrides both; `target`'s remote_dir is not used.
  Started continueOn(const QString& runDir, const TargetConfig& target, const QString& workDir = {},
                     const QStringList& extraArgs = {});
  // The work folder the job of this run names (its config.yaml's target.remote_dir), or the
  // default one when that cannot be read.
  static QString workDirOf(const QString& runDir);
  // The target the job of this run named (remote.json's job_target for a remote run, whose
  // config.yaml is the host's copy; else config.yaml's; the default when neither reads): where a
  // continue starts from, so a Slurm run continues as a Slurm job, its partition, account and
  // limits kept, unless the caller says otherwise.
  static TargetConfig targetOf(const QString& runDir);
  // Mirrors, under the runs root, a run folder that something else writes on the host `target`
  // names (an exported script started there): nothing is built or launched (RemoteJob::watch).
  Started watchRemote(const TargetConfig& target, const QString& remoteRunDir);
  // Follows every run under the runs root whose run.json says it is going on this machine and
  // whose supervisor lives; returns how many it found.
  int attachRunning();
  // Follows one such run (one outside the runs root, or started since by the CLI). Returns an
  // empty string, or why not.
  QString attach(const QString& runDir);
  // Copies a remote run's newest complete checkpoint, or its Hugging Face export, into its
  // mirror (see RemoteFetch), on the run's connection when it is followed. Started; deleted once
  // it has said finished. nullptr, with *error, when the run is not a remote one.
  RemoteFetch* fetch(const QString& runDir, FetchKind kind, QString* error);
  // The configs (config.yaml) of the runs going on on this machine (`hostSpec` empty) or on
  // the host a remote target names, for machineRoomProblem.
  QList<RunConfig> liveConfigs(const QString& hostSpec = {}) const;
  // Why the machine `config` targets has no room for it beside the runs going on there
  // (machineRoomProblem), or empty: this machine with `localGpus` CUDA devices (as its trainer
  // says them; 0 while not known), or the host as last probed (HostStore, in `settings`); a host
  // never probed is judged by its first start's probe alone. The window asks before a start.
  QString roomProblem(const RunConfig& config, int localGpus, QSettings& settings) const;
  // The job of this run directory, or nullptr when this app has none for it.
  Job* jobFor(const QString& runDir) const;
  QString runsRoot() const { return m_runsRoot; }

 signals:
  void jobStateChanged(const QString& runDir, traindeck::Job::State state);
  void jobFinished(const QString& runDir, int exitCode);
  void jobFailedToStart(const QString& runDir, const QString& reason);
  void jobLinkChanged(const QString& runDir, const QString& text);
  // A remote start learnt what the host it reached (by target.host) has.
  void hostProbed(const QString& spec, const traindeck::HostProbe& probe);

 private:
  QString newRunDir(const RunConfig& config) const;
  QString freeRunDir(const QString& name) const;  // under the runs root, not taken yet
  void adopt(const QString& runDir, std::unique_ptr<Job> job);
  Started startRemote(const RunConfig& config, const QString& runDir, const QString& configPath,
                      const QStringList& extraArgs, std::shared_ptr<SlurmArray> array = {});
  // A RemoteJob set up with the remote options, the one way every remote job is made (start,
  // attach, continue, watch, each node of several hosts); nodes other than node 0 keep no
  // checkpoints here.
  std::unique_ptr<RemoteJob> makeRemote(bool keepsCheckpoints);
  RemoteJob* adoptRemote(const QString& runDir);
  // target.hosts: one node per host, a MultiHostJob.
  Started startOnHosts(const RunConfig& config, const QString& runDir, const QString& configPath,
                       const QStringList& extraArgs);

  QString m_runsRoot;
  QString m_trainBinary;
  RemoteOptions m_remote;
  SlurmQueues m_slurmQueues;  // one squeue per login node for all its Slurm runs; before m_jobs, which use it
  std::map<QString, std::unique_ptr<Job>> m_jobs;  // by absolute run directory
  // Every RemoteJob makeRemote made, as made (a fetch reuses a live one's connection): no casts.
  std::vector<QPointer<RemoteJob>> m_remoteJobs;
};

}  // namespace traindeck
