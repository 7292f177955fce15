// A remote start is a table of steps (stepsFor), run in order: work folder, helper, probe, tools
// (installed when missing and allowed), sources, build (or a trainer built on a host like it, brought home), data, seed
// (a continued run), waiting (one node of several hosts), launch. The place fills the table: a host of its own launches
// the trainer there (stepLaunch); a Slurm cluster's login node adds its partition check after the probe, may build the
// trainer as a job, and submits a batch script instead of launching (its rows are in remote_bootstrap_slurm.cpp: no
// step asks which place it is in). A watch (a run started there by something else) is work folder, helper, watch; an
// attach whose launch answer was lost only asks the host what it started. Each step is one small
// function that runs remote operations over the job's connection (the helper's subcommands
// through RemoteHelper, uploads) and then goes on to the table's next row (next()). A step cut
// by a lost link runs again once the link is back; one that fails the same way kSameFailureLimit
// times in a row, or any other failure, ends the start with one sentence. GUI thread.
#pragma once

#include <QElapsedTimer>
#include <QObject>
#include <QString>
#include <QStringList>
#include <QVector>
#include <functional>
#include <memory>
#include <optional>

#include "config/run_config.h"
#include "host_probe.h"
#include "remote_helper.h"
#include "remote_host.h"
#include "remote_record.h"
#include "remote_uploads.h"
#include "run_mirror.h"
#include "slurm_batch.h"

namespace traindeck {

class SlurmArray;

struct RemoteLaunch {
  SshTarget target;                        // resolved (identity, proxy, known hosts, batch); its spec as shown
  QString workDir = "~/.cache/traindeck";  // the remote work folder
  RunConfig config;                        // the job; its paths are rewritten for the host
  QString configBaseDir;                   // the folder its relative paths mean
  QString localRunDir;                     // the mirror, under the runs root
  QStringList extraArgs;                   // for `traindeck-train run` after --config
  QString payloadDir;                      // trainer-sources.tar, trainer-sources.sha256, traindeck-remote.sh
  QStringList notes;                       // said once the host is reached (continueOn's remote: fields)
  QString remoteName;                      // the run's folder name there; empty: the mirror's name
  // A Slurm job (config.target.kind slurm): the host is the cluster's login node and the launch
  // is a submission (sbatch) of slurm.sbatch, kept in the run folder here and there. Read once,
  // by the step table.
  std::optional<SlurmPlace> slurm() const {
    if (config.target.kind != TargetKind::Slurm) return std::nullopt;
    return slurmPlaceOf(config.target.slurm);
  }
  // A Slurm job that goes as a task of this array (SlurmArray), not alone; none: alone.
  std::shared_ptr<SlurmArray> slurmArray;
};

class RemoteBootstrap : public QObject {
  Q_OBJECT
 public:
  // A step cut by a lost link runs again once the link is back; one that fails the same way
  // (the same message, within kSameFailureMs of being run) this many times in a row ends the start.
  static constexpr int kSameFailureLimit = 3;
  static constexpr int kSameFailureMs = 10000;

  using InstallPrompt = std::function<bool(const QString& question)>;
  struct Options {
    // Writes remote.json (the job's one writer of it): empty, or why it could not be written.
    std::function<QString()> saveRecord;
    InstallPrompt installPrompt;  // none: missing build tools are not installed
    QString trainerCacheDir;      // empty: TrainerCache's default
    bool holdBeforeLaunch = false;
    bool continuing = false;  // continueOn(): seed the run folder there, then run --resume
    QString continuedFrom;    // the host it ran on before
    QString watchDir;         // watch(): the run folder there, as given; nothing built or launched
  };

  // `host`, `launch`, `record` and `mirror` are the job's, and outlive this object.
  RemoteBootstrap(RemoteHost* host, RemoteLaunch* launch, RemoteRecord* record, RunMirror* mirror, Options options,
                  QObject* parent = nullptr);
  ~RemoteBootstrap() override;  // out of its Slurm array, if it waited in one

  // Reads the trainer's sources' hash from the payload: empty, or why a start cannot be made.
  QString prepare();
  // From the work folder on, once the host is ready (and the cut step again after a reconnect).
  void start();
  // attach() of a mirror whose launch answer was lost: the host says what it started, if anything.
  void findLaunched();
  // setHoldBeforeLaunch: the waiting node goes on to its launch.
  void releaseLaunch();
  // Stop while starting: the sentence the start ends with now; empty during the launch, whose
  // run is then stopped as soon as it is known (launched(true)).
  QString cancel();
  // The job ended the start (a connection that failed): nothing more runs.
  void halt();

  const HostProbe& probe() const { return m_probe; }

  // A Slurm start that waits in its SlurmArray (remote_bootstrap_slurm.cpp). The work folder there.
  QString workDir() const { return m_record->workDir; }
  // Submits its own batch script, as a run that is no array's does.
  void submitAlone();
  // The array's first run: keeps `text` in its run folder (slurm-array.sbatch) and at
  // `arrayDir`/array.sbatch there, and submits it (the helper's submit-array) for `runDirs`;
  // `done` hears the answer, or nothing (nullopt) when the link went first: then this step runs
  // again once it is back, and the run arrives in the array again.
  void submitArray(const QString& text, const QString& arrayDir, int pack, const QStringList& runDirs,
                   std::function<void(const std::optional<SubmitAnswer>&)> done);
  // Submitted as `jobId` (an array's task: "ID_k"; `packed`: shared with other runs): recorded,
  // and the start is over.
  void takeJob(const QString& jobId, bool packed = false);
  void failSubmit(const QString& sentence) { fail(sentence); }
  void tell(const QString& line) { addOutput(line); }  // a word from its array, in its start's output
  bool bringingTrainerHome() const { return m_trainerDownloadId >= 0; }

 signals:
  void stepStarted(const QString& step, const QString& detail);
  void outputLine(const QString& line);
  void transferProgress(qint64 done, qint64 total);
  void probed(const traindeck::HostProbe& probe);
  void readyToLaunch();  // holdBeforeLaunch: waiting for releaseLaunch()
  // The run is there (the record holds its pid, or the folder watched): follow it, and stop it
  // at once when `stopAsked` (Stop was pressed while the launch was on its way).
  void launched(bool stopAsked);
  void failed(const QString& sentence);
  void trainerHome();  // the trainer's trip home ended, kept or not

 private:
  using UploadDone = std::function<void()>;
  using Step = void (RemoteBootstrap::*)();
  // The rows of this start, in order, as its place and kind (watch, continue, hold) say.
  QVector<Step> stepsFor() const;
  void runTable(QVector<Step> steps);  // from the first row, once the host is ready
  void next();                         // the table's next row, or nothing when the start has ended
  QString runDir() const { return m_mirror->localDir(); }
  RemoteHelper helper();       // the helper script there, answering to this object
  QString remoteName() const;  // the run's folder name on the host (and of what it uploads)
  // Whether an answer is for a step still running: false when the start is over, or the step
  // failed (the link went: it runs again once the link is back; the helper went: the start ends).
  bool arrived(const HelperStatus& answer);
  RemoteHost::LineHandler streamOutput();  // the command's lines into the step's output
  void upload(const QString& local, const QString& remote, UploadDone done);
  void addOutput(const QString& line) { emit outputLine(line); }
  void runStep(std::function<void()> step);
  void beginStep(const QString& name, const QString& detail);
  void stepFailed(const QString& message);
  void fail(const QString& sentence);
  void finish();  // launched: the run is known

  // The rows every place has.
  void stepWorkFolder();
  void stepHelper();
  void stepWatchFolder();
  void stepProbe();
  void probeHost(std::function<void()> then);
  void stepTools();  // what building the trainer needs: there, or installed when allowed
  void stepInstall(const QStringList& packages);
  void stepSources();
  void stepBuild();                               // m_buildDir: its bin/traindeck-train is the record's trainBinary
  void stepUploadTrainer(const QString& binary);  // a build brought home, for a host like it
  void stepCompile();                             // on the host itself
  // A build's answer: on to afterBuild, or the start ends with `failedWords` (%1 the host, %2 why).
  RemoteHelper::Done<MadeAnswer> compiled(const QString& failedWords);
  void afterBuild();
  void bringTrainerHome();
  void stepData() { stepDataAt(0); }
  void stepDataAt(int index);
  void stepDataFile(int index, int file);
  QString partialDataDir(const PlannedUpload& upload) const;
  void stepSeed();  // continuing: the run's files and its checkpoint, into its folder there
  void stepSeedFile(int index);
  void markMove(const QString& checkpoint);
  void stepHold();
  // The job's remote copy (every key resolved, paths rewritten for the host), uploaded, and the
  // record saved as "launching": then `then` with the copy's path there.
  void uploadJobCopy(std::function<void(const QString& remoteConfig)> then);
  void stepLaunch();  // a host's own: the trainer started there
  void stepLaunched();
  // A Slurm cluster's rows (remote_bootstrap_slurm.cpp).
  void stepPartitions();    // a job its partitions can never run is not submitted
  void stepCompileAsJob();  // target.build: job
  void stepSubmit();        // the batch script, kept here and there, and sbatch (or its array)

  RemoteHost* m_host;
  RemoteLaunch* m_launch;
  RemoteRecord* m_record;
  RunMirror* m_mirror;
  Options m_options;
  bool m_active = true;
  HostProbe m_probe;
  QString m_sourcesHash;
  QVector<PlannedUpload> m_uploads;
  bool m_installTried = false;
  QVector<Step> m_steps;  // this start's table, and the row to run next
  int m_nextRow = 0;
  Step m_compile = &RemoteBootstrap::stepCompile;  // how the build step builds, as the place says
  QString m_buildDir;                              // the build folder there
  std::function<void()> m_currentStep;
  QString m_currentStepName;
  bool m_retryStep = false;
  QElapsedTimer m_stepRun;  // since the current step was last run (or run again)
  QString m_lastFailure;    // the current step's last failure, and how many in a row were it
  int m_sameFailures = 0;
  bool m_stopRequested = false;
  int m_trainerDownloadId = -1;  // the trainer on its way home
  QStringList m_seedFiles;       // relative to the run folder, COMPLETE last
  QString m_slurmScript;         // the run's batch script there, once uploaded
  std::shared_ptr<SlurmArray> m_array;  // the job array it waits in (a Slurm start given one)
};

}  // namespace traindeck
