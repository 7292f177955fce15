// RemoteHelper and the helper script, without a host: shellcheck finds nothing in the script nor
// in the two fixed command lines the app still writes (the work folder, the guard); the answers
// parse into their structs (a missing helper, a cut listing, a launch that did not start); and
// the command lines RemoteHelper writes run the script here through /bin/sh, quoting and guard
// included (the small subcommands that used to be shell in C++ strings, the data rename's rules).
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>
#include <algorithm>
#include <functional>

#include "remote_helper.h"
#include "shell_quote.h"
#include "slurm_batch.h"

using namespace traindeck;

namespace {

RemoteHost::ExecResult result(int status, const QByteArray& out, const QByteArray& err = {},
                              const QString& failure = {}) {
  return RemoteHost::ExecResult{.status = status, .out = out, .err = err, .failure = failure};
}

// shellcheck's findings for a file, or why it could not run; empty when clean.
QString shellcheck(const QString& path, const QString& shell = "sh") {
  const QString tool = QStandardPaths::findExecutable("shellcheck");
  if (tool.isEmpty()) return "shellcheck is not installed: apt-get install shellcheck (Debian package shellcheck)";
  QProcess p;
  p.setProcessChannelMode(QProcess::MergedChannels);
  p.start(tool, {"-s", shell, "-f", "gcc", path});
  if (!p.waitForFinished(60000)) return "shellcheck did not finish: " + p.errorString();
  return p.exitCode() == 0 ? QString()
                           : QString::fromUtf8(p.readAll()).trimmed() + " (exit " + QString::number(p.exitCode()) + ")";
}

}  // namespace

class RemoteHelperTest : public QObject {
  Q_OBJECT

  QTemporaryDir m_dir;

  // Runs RemoteHelper's command line for `args` here, as the remote shell would.
  RemoteHost::ExecResult run(const QStringList& args, const QString& helper = TRAINDECK_REMOTE_HELPER) {
    QProcess p;
    p.setWorkingDirectory(m_dir.path());
    p.start("/bin/sh", {"-c", RemoteHelper(nullptr, helper, nullptr).command(args)});
    if (!p.waitForFinished(30000)) return result(-1, {}, {}, "did not finish");
    return result(p.exitCode(), p.readAllStandardOutput(), p.readAllStandardError());
  }
  QString path(const QString& name) const { return m_dir.filePath(name); }
  static bool touch(const QString& file) {
    QFile f(file);
    return QDir().mkpath(QFileInfo(file).path()) && f.open(QIODevice::WriteOnly);
  }

 private slots:
  void theScriptPassesShellcheck() {
    const QString findings = shellcheck(TRAINDECK_REMOTE_HELPER);
    QVERIFY2(findings.isEmpty(), qPrintable(findings));
  }

  // The Slurm batch script is a file (packaging/remote/slurm-batch.sh) that the app fills in: as
  // it is and filled in with hostile words, shellcheck finds nothing, and every word of the job
  // reaches the trainer's command line as one quoted word.
  void theSlurmBatchScriptPassesShellcheckAsItIsAndFilledIn() {
    QString findings = shellcheck(TRAINDECK_SLURM_BATCH, "bash");
    QVERIFY2(findings.isEmpty(), qPrintable(findings));
    SlurmStart start;
    start.jobName = "x; rm -rf ~";
    start.trainBinary = "/opt/td/bin/traindeck-train";
    start.configPath = "/work/job $(touch PWNED).yaml";
    start.runDir = "/work/runs/r 'q' `id` @PORT@ %j 中文";
    start.nodes = 2;
    start.masterPort = 29511;
    start.extraArgs = {"--set", "name=$(touch PWNED2)"};
    QString error;
    const QString script = slurmBatchScript(SlurmPlace{}, start, &error);
    QVERIFY2(!script.isEmpty(), qPrintable(error));
    QVERIFY(script.startsWith("#!/bin/bash\n"));
    QVERIFY(script.contains("#SBATCH --nodes=2\n"));
    QVERIFY(!script.contains("#TRAINDECK_SBATCH_LINES"));
    QVERIFY2(script.contains("port=29511\n") && script.contains("requeued_exit=3\n"), qPrintable(script));
    QVERIFY2(script.contains("run_dir=" + shellQuote(start.runDir) + "\n"), qPrintable(script));  // @PORT@ in it stays
    QVERIFY2(script.contains(shellQuote("name=$(touch PWNED2)")), qPrintable(script));
    const QString filled = path("slurm.sbatch");
    QFile f(filled);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(script.toUtf8());
    f.close();
    findings = shellcheck(filled, "bash");
    QVERIFY2(findings.isEmpty(), qPrintable(findings + "\n" + script));
  }

  // A job array's script, one run a task and runs packed two to a task, over hostile run
  // folders: shellcheck finds nothing, and each folder is one quoted word.
  void aJobArraysScriptPassesShellcheckPackedOrNot() {
    SlurmStart start;
    start.jobName = "sweep";
    start.trainBinary = "/opt/td/bin/traindeck-train";
    start.configPath = "/work/job.yaml";
    start.runDir = "/work/runs/r0";
    QString error;
    const QString member = slurmBatchScript(SlurmPlace{}, start, &error);
    QVERIFY2(!member.isEmpty(), qPrintable(error));
    const QStringList scripts{"/work/runs/r 'q' `id`/slurm.sbatch", "/work/runs/$(touch PWNED)/slurm.sbatch",
                              "/work/runs/中文/slurm.sbatch"};
    for (const int pack : {1, 2}) {
      const QString text = slurmArrayScript(member, {"sweep", "/work/arrays/a", scripts, 2, pack}, &error);
      QVERIFY2(!text.isEmpty(), qPrintable(error));
      QVERIFY2(text.contains(shellQuote(scripts[1])), qPrintable(text));
      QCOMPARE(text.contains("packTrials"), pack > 1);
      const QString file = path(QStringLiteral("array-%1.sbatch").arg(pack));
      QFile f(file);
      QVERIFY(f.open(QIODevice::WriteOnly));
      f.write(text.toUtf8());
      f.close();
      const QString findings = shellcheck(file, "bash");
      QVERIFY2(findings.isEmpty(), qPrintable(findings + "\n" + text));
    }
  }

  void theFixedCommandsPassShellcheck() {
    const QString script = path("fixed.sh");
    QFile f(script);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("#!/bin/sh\n");
    for (const QString& dir : QStringList{"~", "~/.cache/traindeck", "/srv/it's here"})
      f.write(RemoteHelper::workFolderCommand(dir).toUtf8() + "\n");
    f.write(QByteArray(RemoteHelper::guard()) + "\n");
    f.close();
    const QString findings = shellcheck(script);
    QVERIFY2(findings.isEmpty(), qPrintable(findings));
  }

  void aMissingHelperIsItsOwnAnswer() {
    const HelperStatus missing = HelperStatus::from(result(HelperStatus::kMissingStatus, "helper=missing\n"));
    QVERIFY(missing.helperMissing);
    QVERIFY(!missing.reached());
    // The same status from the helper itself (a build's exit status passed on) is an answer.
    QVERIFY(!HelperStatus::from(result(HelperStatus::kMissingStatus, "error=the build failed\n")).helperMissing);
    const HelperStatus cut = HelperStatus::from(result(-1, {}, {}, "the link went"));
    QVERIFY(!cut.reached());
    QVERIFY(!cut.helperMissing);
    QCOMPARE(cut.linkFailure, QString("the link went"));
    // Through the guard, for real: a path where nothing is.
    const ReadAnswer gone = ReadAnswer::from(run({"read", path("runs/x"), "100", "1", "2"}, path("nothing/here.sh")));
    QVERIFY(gone.helperMissing);
  }

  void whySaysTheHelpersReasonFirst() {
    QCOMPARE(HelperStatus::from(result(1, "error=cannot make /x\n", "mkdir: denied\n")).why(),
             QString("cannot make /x: mkdir: denied"));
    QCOMPARE(HelperStatus::from(result(1, "", "sh: oops\n")).why(), QString("sh: oops"));
    QCOMPARE(HelperStatus::from(result(1, "error=no\n")).why(), QString("no"));
  }

  void launchAnswers() {
    const LaunchAnswer started = LaunchAnswer::from(result(0, "motd line\npid=4242\nstart_time=987\nboot_id=abc\n"));
    QVERIFY(started.started());
    QCOMPARE(started.pid, qint64(4242));
    QCOMPARE(started.startTime, QString("987"));
    QCOMPARE(started.bootId, QString("abc"));
    const LaunchAnswer ended = LaunchAnswer::from(result(1, "error=the trainer ended at once; see x\n"));
    QVERIFY(!ended.started());
    QCOMPARE(ended.why(), QString("the trainer ended at once; see x"));
    const LaunchAnswer never = LaunchAnswer::from(result(0, "launched=no\n"));
    QVERIFY(never.ok());
    QCOMPARE(never.pid, qint64(0));
    QVERIFY(!LaunchAnswer::from(result(0, "pid=-3\n")).started());
  }

  void smallAnswers() {
    QVERIFY(AliveAnswer::from(result(0, "alive=yes\nboot_id=b\n")).alive);
    QCOMPARE(AliveAnswer::from(result(0, "alive=no\nboot_id=b\n")).bootId, QString("b"));
    QVERIFY(SignalAnswer::from(result(0, "signalled=yes\n")).sent);
    QVERIFY(SignalAnswer::from(result(0, "signalled=gone\n")).ended);
    QVERIFY(!SignalAnswer::from(result(1, "")).sent);
    const MadeAnswer cached = MadeAnswer::from(result(0, "built=cached\n"), "built");
    QVERIFY(cached.made && cached.cached);
    const MadeAnswer failed =
        MadeAnswer::from(result(2, "cmake output\nerror=the trainer's build failed (exit 2)\n"), "built");
    QVERIFY(!failed.made);
    QCOMPARE(failed.error, QString("the trainer's build failed (exit 2)"));
    QCOMPARE(MadeAnswer::from(result(0, "installed=cmake g++\n"), "installed").value, QString("cmake g++"));
    const SeedAnswer seeded = SeedAnswer::from(result(0, "moved_aside=/w/runs/r.replaced-1\nseeded=yes\n"));
    QVERIFY(seeded.seeded);
    QCOMPARE(seeded.movedAside, QString("/w/runs/r.replaced-1"));
    QVERIFY(!YesNoAnswer::from(result(127, "have=yes\n"), "have").yes);  // only a clean answer says yes
    QCOMPARE(FolderAnswer::fromPwd(result(0, "Welcome!\n/home/me/.cache/traindeck\n")).path,
             QString("/home/me/.cache/traindeck"));
    QVERIFY(FolderAnswer::fromPwd(result(1, "/half\n", "chmod: denied")).path.isEmpty());
    QCOMPARE(FolderAnswer::from(result(0, "run_dir=/r\n")).path, QString("/r"));
  }

  void listings() {
    const ListingAnswer listed =
        ListingAnswer::from(result(0, "dir step-00000020\nfile model.safetensors 1234\nfile COMPLETE 0\nend\n"));
    QVERIFY(listed.complete);
    QCOMPARE(listed.dir, QString("step-00000020"));
    QCOMPARE(listed.files.size(), 2);
    QCOMPARE(listed.files[0].size, qint64(1234));
    QVERIFY(!ListingAnswer::from(result(0, "dir step-1\nfile a 1\n")).complete);  // cut short
    const ListingAnswer none =
        ListingAnswer::from(result(1, "checkpoint=none\nerror=the run has no complete checkpoint yet\n"));
    QVERIFY(!none.complete);
    QVERIFY(none.noCheckpoint);
    QVERIFY(!ListingAnswer::from(result(1, "error=the export of step-1 failed\n")).noCheckpoint);
  }

  void readAnswers() {
    const ReadAnswer ok = ReadAnswer::from(result(0, "hello from bashrc\nboot b1\nalive yes\nrundir yes\nend\n"));
    QVERIFY(ok.run.complete);
    QCOMPARE(ok.run.bootId, QString("b1"));
    const ReadAnswer failed = ReadAnswer::from(result(1, "boot b1\nerror=no temporary file\n"));
    QVERIFY(!failed.run.complete);
    QVERIFY2(failed.run.error.contains("no temporary file"), qPrintable(failed.run.error));
  }

  // `stream` as the app runs it: read's answers one after another, each file going on where the
  // last answer left it (nothing twice, nothing skipped), a rank log that appears sent from its
  // start, run.json whole in the first answer and once a second, one answer at least every second
  // while nothing grows, and a file replaced by a shorter one read again from 0.
  void streamAnswersAsTheFilesGrow() {
    const QString run = path("stream/run");
    QVERIFY(QDir().mkpath(run + "/logs"));
    const auto append = [&](const QString& name, const QByteArray& bytes, QIODevice::OpenMode mode = QIODevice::Append) {
      QFile f(run + "/" + name);
      QVERIFY(f.open(QIODevice::WriteOnly | mode));
      f.write(bytes);
    };
    append("run.json", R"({"status":"running"})", QIODevice::Truncate);
    append("metrics.jsonl", "0123456789");
    QProcess p;
    p.start("/bin/sh", {"-c", RemoteHelper(nullptr, TRAINDECK_REMOTE_HELPER, nullptr)
                                  .command({"stream", run, "1000000", "1", "x", "metrics.jsonl", "4", "supervisor.log",
                                            "0", "run.json", "0", "config.yaml", "0"})});
    QVERIFY(p.waitForStarted());
    QByteArray out;
    QVector<RemoteReadAnswer> answers;
    // Reads answers until `done` holds (each step waits for what it needs, never a fixed window:
    // the helper's rounds slow down on a loaded machine).
    const auto readUntil = [&](const std::function<bool()>& done) {
      QElapsedTimer t;
      t.start();
      while (!done() && t.elapsed() < 20000) {
        p.waitForReadyRead(50);
        out += p.readAllStandardOutput();
        for (qsizetype consumed = 1; consumed > 0;) {
          const RemoteReadAnswer a = parseRemoteReadAnswer(out, &consumed);
          if (consumed == 0) break;
          answers << a;
          out.remove(0, consumed);
        }
      }
      return done();
    };
    // Whether an answer from the index `from` on carries `bytes` of `name` / grows nothing.
    const auto sent = [&](qsizetype from, const QString& name, const QByteArray& bytes) {
      for (qsizetype i = from; i < answers.size(); ++i)
        for (const RemoteFileChunk& c : answers[i].files)
          if (c.name == name && c.bytes.contains(bytes)) return true;
      return false;
    };
    const auto quietSince = [&](qsizetype from) {
      for (qsizetype i = from; i < answers.size(); ++i)
        if (std::none_of(answers[i].files.begin(), answers[i].files.end(), [](const RemoteFileChunk& c) {
              return c.name != "run.json" && c.name != "config.yaml" && !c.bytes.isEmpty();
            }))
          return true;
      return false;
    };
    QVERIFY(readUntil([&] { return !answers.isEmpty(); }));
    QCOMPARE(answers.size(), 1);  // the first at once, from the offset given
    append("metrics.jsonl", "abc\n");
    append("logs/rank-0.log", "rank 0 says hi\n");
    QVERIFY(readUntil([&] { return sent(1, "metrics.jsonl", "abc") && sent(1, "logs/rank-0.log", "hi"); }));
    append("metrics.jsonl", "def\n");
    QVERIFY(readUntil([&] { return sent(1, "metrics.jsonl", "def"); }));
    const qsizetype afterDef = answers.size();
    QVERIFY2(readUntil([&] { return quietSince(afterDef); }), "no heartbeat while nothing grew");
    append("metrics.jsonl", "xy", QIODevice::Truncate);  // replaced: again from its start
    const qsizetype beforeXy = answers.size();
    QVERIFY(readUntil([&] { return sent(beforeXy, "metrics.jsonl", "xy"); }));
    p.kill();
    p.waitForFinished();
    QByteArray metrics, log;
    qint64 metricsEnd = 4, logEnd = 0;
    int quiet = 0, withRunJson = 0;
    for (const RemoteReadAnswer& a : answers) {
      QVERIFY2(a.complete && a.bootId.size() > 0 && a.runDirExists, qPrintable(a.error));
      bool grew = false, hasRunJson = false;
      for (const RemoteFileChunk& c : a.files) {
        if (c.name == "run.json") {
          hasRunJson = c.bytes == R"({"status":"running"})";
        } else if (c.name == "metrics.jsonl") {
          if (c.from == 0 && c.size < metricsEnd) {
            metrics.clear();
            metricsEnd = 0;
          }
          QCOMPARE(c.from, metricsEnd);  // where the last answer left it
          metrics += c.bytes;
          metricsEnd += c.bytes.size();
          grew = grew || !c.bytes.isEmpty();
        } else if (c.name == "logs/rank-0.log") {
          QCOMPARE(c.from, logEnd);
          log += c.bytes;
          logEnd += c.bytes.size();
          grew = grew || !c.bytes.isEmpty();
        }
      }
      QVERIFY(hasRunJson || &a != &answers.front());
      QVERIFY(hasRunJson || grew);  // an answer with nothing new is the heartbeat, run.json in it
      withRunJson += hasRunJson ? 1 : 0;
      quiet += grew ? 0 : 1;
    }
    QCOMPARE(metrics, QByteArray("xy"));  // after the replacement
    QCOMPARE(log, QByteArray("rank 0 says hi\n"));
    QVERIFY2(quiet >= 1, "no answer while nothing grew");
    QVERIFY(withRunJson >= 2 && withRunJson < answers.size());
    QVERIFY2(answers.size() >= 5, qPrintable(QString::number(answers.size())));
  }

  // A host whose stat has no -c cannot stream: the helper says so and ends (the app then polls).
  void streamRefusesAStatWithoutFormats() {
    const QString run = path("nostat/run");
    const QString bin = path("nostat/bin");
    QVERIFY(QDir().mkpath(run) && QDir().mkpath(bin));
    QFile fake(bin + "/stat");
    QVERIFY(fake.open(QIODevice::WriteOnly));
    fake.write("#!/bin/sh\necho 'stat: invalid option -- c' >&2\nexit 1\n");
    fake.close();
    QVERIFY(fake.setPermissions(QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner));
    QProcess p;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("PATH", bin + ":" + env.value("PATH"));
    p.setProcessEnvironment(env);
    p.start("/bin/sh", {"-c", RemoteHelper(nullptr, TRAINDECK_REMOTE_HELPER, nullptr)
                                  .command({"stream", run, "1000", "1", "x", "metrics.jsonl", "0"})});
    QVERIFY(p.waitForFinished(10000));
    QCOMPARE(p.exitCode(), 1);
    QVERIFY2(p.readAllStandardOutput().contains("error=this host's stat has no -c"), "no error line");
  }

  // The subcommands that replaced shell in C++ strings, run as the app runs them.
  void smallSubcommandsRunThroughTheGuard() {
    const QString odd = path("it's $(here)/a b");
    QVERIFY(!YesNoAnswer::from(run({"have", odd + "/.done"}), "have").yes);
    QVERIFY(HelperStatus::from(run({"mkdirs", odd, path("x/y")})).ok());
    QVERIFY(QFileInfo(odd).isDir() && QFileInfo(path("x/y")).isDir());
    QVERIFY(touch(odd + "/.done"));
    QVERIFY(YesNoAnswer::from(run({"have", odd + "/.done"}), "have").yes);
    QVERIFY(HelperStatus::from(run({"remove", odd + "/.done", odd + "/not-there"})).ok());
    QVERIFY(!QFileInfo::exists(odd + "/.done"));
    QVERIFY(!YesNoAnswer::from(run({"built", path("build")}), "built").yes);
    QVERIFY(touch(path("build/.done")) && touch(path("build/bin/traindeck-train")));
    QVERIFY(!YesNoAnswer::from(run({"built", path("build")}), "built").yes);  // not executable
    QVERIFY(QFile::setPermissions(path("build/bin/traindeck-train"), QFile::ReadOwner | QFile::ExeOwner));
    QVERIFY(YesNoAnswer::from(run({"built", path("build")}), "built").yes);
    const FolderAnswer notRun = FolderAnswer::from(run({"watch", odd}));
    QVERIFY(notRun.path.isEmpty());
    QVERIFY(touch(odd + "/metrics.jsonl"));
    QCOMPARE(FolderAnswer::from(run({"watch", odd})).path, QFileInfo(odd).canonicalFilePath());
  }

  // The site-dependent subcommands run in the host's login shell (TRAINDECK_LOGIN_SHELL): what
  // its profile sets is there, its stdin is closed (a profile that asks cannot hang it), one that
  // is not on the host is said, and the reading ones stay in plain sh (a greeting cannot garble them).
  void siteCommandsRunInTheLoginShell() {
    QVERIFY(QDir().mkpath(path("home")));
    QFile profile(path("home/.bash_profile"));
    QVERIFY(profile.open(QIODevice::WriteOnly));
    profile.write("echo greeting-from-the-profile; read -r answer\n");
    profile.close();
    const auto runIn = [this](const QString& shell, const QStringList& args) {
      QProcess p;
      QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
      env.insert("HOME", path("home"));
      if (!shell.isNull()) env.insert("TRAINDECK_LOGIN_SHELL", shell);
      p.setProcessEnvironment(env);
      p.start("/bin/sh", {"-c", RemoteHelper(nullptr, TRAINDECK_REMOTE_HELPER, nullptr).command(args)});
      p.waitForFinished(30000);  // stdin stays open: a profile reading it would wait for ever
      return QString::fromUtf8(p.readAllStandardOutput());
    };
    // probe runs in the login shell: its profile ran (and its question did not wait).
    const QString probed = runIn("bash -l", {"probe", path("work")});
    QVERIFY2(probed.contains("greeting-from-the-profile") && probed.contains("end=probe"), qPrintable(probed));
    QVERIFY2(!runIn("none", {"probe", path("work")}).contains("greeting-from-the-profile"), "none ran the profile");
    QVERIFY2(!runIn("bash -l", {"have", path("nothing")}).contains("greeting"), "a reading command ran the profile");
    const QString missing = runIn("nosuchshell -l", {"queue"});
    QVERIFY2(missing.contains("error=the login shell \"nosuchshell\" is not on this host"), qPrintable(missing));
    QVERIFY2(runIn("bash -l; touch PWNED-shell", {"queue"}).contains("is not a program and its options"),
             "a hostile shell ran");
    QVERIFY(!QFileInfo::exists("PWNED-shell") && !QFileInfo::exists(path("home/PWNED-shell")));
  }

  void dataIsPutInPlaceOnce() {
    const QString dest = path("data/abc"), mine = dest + ".partial-run1", theirs = dest + ".partial-run2";
    QVERIFY(touch(mine + "/shard.bin") && touch(theirs + "/shard.bin"));
    // A leftover of an older version (no .done) is replaced.
    QVERIFY(touch(dest + "/stale"));
    HelperStatus a = HelperStatus::from(run({"install-data", mine, dest}));
    QVERIFY2(a.ok(), qPrintable(a.why()));
    QVERIFY(QFileInfo::exists(dest + "/.done") && QFileInfo::exists(dest + "/shard.bin"));
    QVERIFY(!QFileInfo::exists(dest + "/stale") && !QFileInfo::exists(mine));
    // Another start got there first: its own upload is removed, the complete one kept.
    a = HelperStatus::from(run({"install-data", theirs, dest}));
    QVERIFY2(a.ok(), qPrintable(a.why()));
    QCOMPARE(a.keys.value("data"), QString("there"));
    QVERIFY(!QFileInfo::exists(theirs) && QFileInfo::exists(dest + "/.done"));
    // Nothing uploaded: it says so.
    a = HelperStatus::from(run({"install-data", path("data/none.partial"), path("data/none")}));
    QVERIFY(!a.ok());
    QVERIFY2(a.why().contains("cannot put"), qPrintable(a.why()));
  }
};

QTEST_GUILESS_MAIN(RemoteHelperTest)
#include "remote_helper_test.moc"
