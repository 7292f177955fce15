// Each method is its subcommand's argv and its answer's parser; `call` runs it behind the guard.
#include "remote_helper.h"

#include "shell_quote.h"

namespace traindeck {

namespace {

// The guard: $0 is the helper's path, the rest its words. Fixed text, nothing interpolated.
constexpr const char* kGuard = "[ -f \"$0\" ] || { echo helper=missing; exit 97; }; exec sh \"$0\" \"$@\"";
static_assert(HelperStatus::kMissingStatus == 97, "kGuard's exit status");

// The work folder as a shell word: "~/x" becomes "$HOME"/'x' (the remote shell expands it).
QString shellPath(const QString& path) {
  if (path == "~") return QStringLiteral("\"$HOME\"");
  if (path.startsWith("~/")) return QStringLiteral("\"$HOME\"/") + shellQuote(path.mid(2));
  return shellQuote(path);
}

}  // namespace

RemoteHelper::RemoteHelper(RemoteHost* host, QString path, QObject* context)
    : m_host(host), m_path(std::move(path)), m_context(context) {}

const char* RemoteHelper::guard() {
  return kGuard;
}

QString RemoteHelper::workFolderCommand(const QString& workDir) {
  // Before the helper is there: the folder it goes into. Parents made here are private too.
  return QStringLiteral("umask 077 && mkdir -p -- %1 && chmod 700 -- %1 && cd -- %1 && pwd").arg(shellPath(workDir));
}

void RemoteHelper::makeWorkFolder(RemoteHost* host, const QString& workDir, QObject* context, Done<FolderAnswer> done) {
  host->exec(workFolderCommand(workDir), context,
             [done = std::move(done)](const RemoteHost::ExecResult& r) { done(FolderAnswer::fromPwd(r)); });
}

QString RemoteHelper::command(const QStringList& args) const {
  // The host's login shell reaches the helper by its environment (env: any account's shell runs it).
  const QString shell = m_host != nullptr ? m_host->target().loginShell : QString();
  const QStringList env = shell.isEmpty() ? QStringList{} : QStringList{"env", "TRAINDECK_LOGIN_SHELL=" + shell};
  return shellJoin(env + QStringList{"sh", "-c", kGuard, m_path} + args);
}

template <class Answer>
void RemoteHelper::call(const QStringList& args, std::function<Answer(const RemoteHost::ExecResult&)> parse,
                        Done<Answer> done, RemoteHost::LineHandler onLine) const {
  m_host->exec(
      command(args), m_context,
      [parse = std::move(parse), done = std::move(done)](const RemoteHost::ExecResult& r) { done(parse(r)); },
      std::move(onLine));
}

void RemoteHelper::probe(const QString& workDir, Done<ProbeAnswer> done) const {
  call<ProbeAnswer>({"probe", workDir}, &ProbeAnswer::from, std::move(done));
}

void RemoteHelper::install(const QStringList& packages, Done<MadeAnswer> done, RemoteHost::LineHandler onLine) const {
  call<MadeAnswer>(
      QStringList{"install"} + packages,
      [](const RemoteHost::ExecResult& r) { return MadeAnswer::from(r, "installed"); }, std::move(done),
      std::move(onLine));
}

void RemoteHelper::have(const QString& file, Done<YesNoAnswer> done) const {
  call<YesNoAnswer>(
      {"have", file}, [](const RemoteHost::ExecResult& r) { return YesNoAnswer::from(r, "have"); }, std::move(done));
}

void RemoteHelper::built(const QString& build, Done<YesNoAnswer> done) const {
  call<YesNoAnswer>(
      {"built", build}, [](const RemoteHost::ExecResult& r) { return YesNoAnswer::from(r, "built"); }, std::move(done));
}

void RemoteHelper::mkdirs(const QStringList& dirs, Done<HelperStatus> done) const {
  call<HelperStatus>(QStringList{"mkdirs"} + dirs, &HelperStatus::from, std::move(done));
}

void RemoteHelper::remove(const QStringList& files, Done<HelperStatus> done) const {
  call<HelperStatus>(QStringList{"remove"} + files, &HelperStatus::from, std::move(done));
}

void RemoteHelper::unpack(const QString& tarball, const QString& dest, Done<HelperStatus> done) const {
  call<HelperStatus>({"unpack", tarball, dest}, &HelperStatus::from, std::move(done));
}

void RemoteHelper::build(const QString& src, const QString& build, const QString& libtorch, Done<MadeAnswer> done,
                         RemoteHost::LineHandler onLine) const {
  call<MadeAnswer>(
      {"build", src, build, libtorch}, [](const RemoteHost::ExecResult& r) { return MadeAnswer::from(r, "built"); },
      std::move(done), std::move(onLine));
}

void RemoteHelper::buildAsJob(const QString& src, const QString& build, const QString& libtorch,
                              const QStringList& sbatchOptions, Done<MadeAnswer> done,
                              RemoteHost::LineHandler onLine) const {
  call<MadeAnswer>(
      QStringList{"build-job", src, build, libtorch} + sbatchOptions,
      [](const RemoteHost::ExecResult& r) { return MadeAnswer::from(r, "built"); }, std::move(done), std::move(onLine));
}

void RemoteHelper::installTrainer(const QString& build, const QString& partial, Done<MadeAnswer> done) const {
  call<MadeAnswer>(
      {"install-trainer", build, partial},
      [](const RemoteHost::ExecResult& r) { return MadeAnswer::from(r, "installed"); }, std::move(done));
}

void RemoteHelper::installData(const QString& partial, const QString& dest, Done<HelperStatus> done) const {
  call<HelperStatus>({"install-data", partial, dest}, &HelperStatus::from, std::move(done));
}

void RemoteHelper::watch(const QString& dir, Done<FolderAnswer> done) const {
  call<FolderAnswer>({"watch", dir}, &FolderAnswer::from, std::move(done));
}

void RemoteHelper::seed(const QString& runDir, Done<SeedAnswer> done) const {
  call<SeedAnswer>({"seed", runDir}, &SeedAnswer::from, std::move(done));
}

void RemoteHelper::launch(const QString& binary, const QString& config, const QString& runDir, const QStringList& args,
                          Done<LaunchAnswer> done) const {
  call<LaunchAnswer>(QStringList{"launch", binary, config, runDir} + args, &LaunchAnswer::from, std::move(done));
}

void RemoteHelper::launched(const QString& runDir, Done<LaunchAnswer> done) const {
  call<LaunchAnswer>({"launched", runDir}, &LaunchAnswer::from, std::move(done));
}

void RemoteHelper::alive(qint64 pid, const QString& startTime, Done<AliveAnswer> done) const {
  call<AliveAnswer>({"alive", QString::number(pid), startTime}, &AliveAnswer::from, std::move(done));
}

void RemoteHelper::signal(const QString& signal, qint64 pid, const QString& startTime, Done<SignalAnswer> done) const {
  call<SignalAnswer>({"signal", signal, QString::number(pid), startTime}, &SignalAnswer::from, std::move(done));
}

void RemoteHelper::read(const QString& runDir, int maxBytes, qint64 pid, const QString& startTime,
                        const QStringList& offsets, Done<ReadAnswer> done) const {
  call<ReadAnswer>(QStringList{"read", runDir, QString::number(maxBytes), QString::number(pid), startTime} + offsets,
                   &ReadAnswer::from, std::move(done));
}

void RemoteHelper::submit(const QString& script, const QString& runDir, Done<SubmitAnswer> done) const {
  call<SubmitAnswer>({"submit", script, runDir}, &SubmitAnswer::from, std::move(done));
}

void RemoteHelper::submitArray(const QString& script, const QString& arrayDir, int pack, const QStringList& runDirs,
                               Done<SubmitAnswer> done) const {
  call<SubmitAnswer>(QStringList{"submit-array", script, arrayDir, QString::number(pack)} + runDirs,
                     &SubmitAnswer::from, std::move(done));
}

void RemoteHelper::queue(Done<QueueAnswer> done) const {
  call<QueueAnswer>({"queue"}, &QueueAnswer::from, std::move(done));
}

void RemoteHelper::stopJob(const QString& jobId, const QString& runDir, Done<SignalAnswer> done) const {
  call<SignalAnswer>({"stop", jobId, runDir}, &SignalAnswer::from, std::move(done));
}

void RemoteHelper::cancelJob(const QString& jobId, const QString& runDir, Done<YesNoAnswer> done) const {
  QStringList args{"cancel", jobId};
  if (!runDir.isEmpty()) args << runDir;
  call<YesNoAnswer>(
      args, [](const RemoteHost::ExecResult& r) { return YesNoAnswer::from(r, "cancelled"); }, std::move(done));
}

void RemoteHelper::checkpoint(const QString& runDir, Done<ListingAnswer> done) const {
  call<ListingAnswer>({"checkpoint", runDir}, &ListingAnswer::from, std::move(done));
}

void RemoteHelper::exportHf(const QString& trainBinary, const QString& runDir, Done<ListingAnswer> done) const {
  call<ListingAnswer>({"export", trainBinary, runDir}, &ListingAnswer::from, std::move(done));
}

}  // namespace traindeck
