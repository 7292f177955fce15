// RemoteHelper: the typed client of the helper script (packaging/remote/traindeck-remote.sh) on
// one host: one method per subcommand, every word quoted by shellJoin, each answer parsed into
// its struct (remote_helper_answers.h) and handed to `done` on the context's thread. Every shell
// program the app runs there is in the script, where shellcheck reads it; here are only the
// command lines that run it. A cheap value: make one where it is needed (the helper's path is
// known once the work folder is). GUI thread, like its RemoteHost.
#pragma once

#include <QObject>
#include <QString>
#include <QStringList>
#include <functional>

#include "remote_helper_answers.h"
#include "remote_host.h"

namespace traindeck {

class RemoteHelper {
 public:
  template <class Answer>
  using Done = std::function<void(const Answer& answer)>;

  // `host` outlives the calls; `path` is the helper's absolute path there. Answers for a
  // `context` that is gone are dropped (RemoteHost::exec).
  RemoteHelper(RemoteHost* host, QString path, QObject* context);

  // The work folder (0700, its parents too when made) and its absolute path. The one command
  // that is not the helper's: it makes the folder the helper is uploaded into. "~" and "~/x"
  // are the remote home's.
  static void makeWorkFolder(RemoteHost* host, const QString& workDir, QObject* context, Done<FolderAnswer> done);
  static QString workFolderCommand(const QString& workDir);
  // What runs the helper: `sh HELPER ARG...`, unless HELPER is not there (then helper=missing,
  // exit HelperStatus::kMissingStatus). A fixed program; HELPER and the words are its arguments.
  static const char* guard();
  QString command(const QStringList& args) const;

  void probe(const QString& workDir, Done<ProbeAnswer> done) const;
  // As root, with apt-get; only build tools. The answer's value says what was installed.
  void install(const QStringList& packages, Done<MadeAnswer> done, RemoteHost::LineHandler onLine = {}) const;
  void have(const QString& file, Done<YesNoAnswer> done) const;
  void built(const QString& build, Done<YesNoAnswer> done) const;
  void mkdirs(const QStringList& dirs, Done<HelperStatus> done) const;
  void remove(const QStringList& files, Done<HelperStatus> done) const;
  void unpack(const QString& tarball, const QString& dest, Done<HelperStatus> done) const;
  void build(const QString& src, const QString& build, const QString& libtorch, Done<MadeAnswer> done,
             RemoteHost::LineHandler onLine = {}) const;
  // The same build as a small Slurm job (sbatch --wait with `sbatchOptions`, e.g. --partition=gpu),
  // its output streamed as the job writes it.
  void buildAsJob(const QString& src, const QString& build, const QString& libtorch, const QStringList& sbatchOptions,
                  Done<MadeAnswer> done, RemoteHost::LineHandler onLine = {}) const;
  // Installs the trainer uploaded to `partial` (a name of this start's own, so that two starts
  // uploading at once never install each other's half) unless one is installed already.
  void installTrainer(const QString& build, const QString& partial, Done<MadeAnswer> done) const;
  void installData(const QString& partial, const QString& dest, Done<HelperStatus> done) const;
  void watch(const QString& dir, Done<FolderAnswer> done) const;
  void seed(const QString& runDir, Done<SeedAnswer> done) const;
  void launch(const QString& binary, const QString& config, const QString& runDir, const QStringList& args,
              Done<LaunchAnswer> done) const;
  void launched(const QString& runDir, Done<LaunchAnswer> done) const;
  void alive(qint64 pid, const QString& startTime, Done<AliveAnswer> done) const;
  void signal(const QString& signal, qint64 pid, const QString& startTime, Done<SignalAnswer> done) const;
  // The run's files past `offsets` (NAME OFFSET pairs, RunMirror::readArguments), at most
  // `maxBytes` of each, and whether the supervisor `pid` `startTime` lives.
  void read(const QString& runDir, int maxBytes, qint64 pid, const QString& startTime, const QStringList& offsets,
            Done<ReadAnswer> done) const;
  // Slurm, through the login node: the batch script submitted once per run folder; this
  // account's jobs; the user's Stop (a stop-requested marker, then USR2: every rank
  // checkpoints); a cancel (Kill).
  void submit(const QString& script, const QString& runDir, Done<SubmitAnswer> done) const;
  // Several prepared runs as one job array (task t: runDirs[t*pack ..], `pack` of them at once in
  // one allocation), submitted once per array folder; the answer's job is the array's id (task t
  // is "<id>_t").
  void submitArray(const QString& script, const QString& arrayDir, int pack, const QStringList& runDirs,
                   Done<SubmitAnswer> done) const;
  void queue(Done<QueueAnswer> done) const;
  void stopJob(const QString& jobId, const QString& runDir, Done<SignalAnswer> done) const;
  // runDir (may be empty): where the run's kill-requested marker goes first (a Kill by the user).
  void cancelJob(const QString& jobId, const QString& runDir, Done<YesNoAnswer> done) const;
  void checkpoint(const QString& runDir, Done<ListingAnswer> done) const;
  void exportHf(const QString& trainBinary, const QString& runDir, Done<ListingAnswer> done) const;

 private:
  template <class Answer>
  void call(const QStringList& args, std::function<Answer(const RemoteHost::ExecResult&)> parse, Done<Answer> done,
            RemoteHost::LineHandler onLine = {}) const;

  RemoteHost* m_host;
  QString m_path;
  QObject* m_context;
};

}  // namespace traindeck
