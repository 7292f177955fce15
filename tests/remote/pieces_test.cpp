// The remote side's pieces that need no SSH server, so they run (and fail loudly) wherever the
// suite runs: the read answer's framing and the mirror's rules, the checkpoints the mirror keeps,
// built trainers kept by signature, data uploaded by content, and the helper script run here as a
// host would run it (its probe, a launch asked twice, signals only to its own process).
#include <signal.h>

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>
#include <functional>

#include "checkpoint_sync.h"
#include "host_probe.h"
#include "job_controller.h"
#include "remote_answers.h"
#include "remote_record.h"
#include "remote_uploads.h"
#include "run_mirror.h"
#include "trainer_cache.h"

using namespace traindeck;

namespace {

bool write(const QString& path, const QByteArray& bytes) {
  QFile f(path);
  return f.open(QIODevice::WriteOnly) && f.write(bytes) == bytes.size();
}

}  // namespace

class RemotePiecesTest : public QObject {
  Q_OBJECT
 private slots:
  void readAnswersAreFramedAndMirroredByOffset() {
    QTemporaryDir mirrorDir;
    RunMirror mirror(mirrorDir.path());
    RemoteReadAnswer a = parseRemoteReadAnswer(
        "boot b1\nalive yes\nfile metrics.jsonl 8 0 4\nabc\n\nfile run.json 2 0 2\n{}\nfile ../evil 3 0 3\nxyz\nend\n");
    QVERIFY2(a.complete, qPrintable(a.error));
    QCOMPARE(a.files.size(), 3);
    QCOMPARE(mirror.apply(a), QString());
    QFile metrics(mirrorDir.filePath("metrics.jsonl"));
    QVERIFY(metrics.open(QIODevice::ReadOnly));
    QCOMPARE(metrics.readAll(), QByteArray("abc\n"));
    metrics.close();
    QVERIFY(!QFile::exists(mirrorDir.filePath("../evil")));  // a name that climbs out is not written
    QVERIFY(!RunMirror::caughtUp(a));                        // 4 of 8 bytes
    QVERIFY(mirror.readArguments().join(' ').contains("metrics.jsonl 4"));
    // An answer to an older request (from 0 while 4 bytes are here, file not shorter) is skipped.
    mirror.apply(parseRemoteReadAnswer("boot b1\nalive yes\nfile metrics.jsonl 8 0 4\nabc\n\nend\n"));
    QVERIFY(metrics.open(QIODevice::ReadOnly));
    QCOMPARE(metrics.readAll(), QByteArray("abc\n"));
    metrics.close();
    // The remote file replaced by a shorter one: read again from the start.
    mirror.apply(parseRemoteReadAnswer("boot b1\nalive yes\nfile metrics.jsonl 2 0 2\nz\n\nend\n"));
    QVERIFY(metrics.open(QIODevice::ReadOnly));
    QCOMPARE(metrics.readAll(), QByteArray("z\n"));
    // What a chatty login shell prints first is not part of the answer.
    const RemoteReadAnswer chatty =
        parseRemoteReadAnswer("Welcome to the VM!\nfile x\nboot b1\nalive no\nfile run.json 2 0 2\n{}\nend\n");
    QVERIFY2(chatty.complete && chatty.files.size() == 1 && !chatty.supervisorAlive, qPrintable(chatty.error));
    // Cut or garbled answers are not applied.
    QVERIFY(!parseRemoteReadAnswer("boot b1\nfile metrics.jsonl 8 0 4\nab").complete);
    QVERIFY(!parseRemoteReadAnswer("boot b1\nfile metrics.jsonl 8 0 x\nabcd\nend\n").complete);
    QVERIFY(!mirror.apply(parseRemoteReadAnswer("boot b1\nalive yes\nfile metrics.jsonl 8 0 4\nab")).isEmpty());
  }

  // What the background copy keeps: the newest K complete checkpoints by step number; one being
  // copied (.partial) or without COMPLETE is not counted and not removed.
  void theMirrorKeepsTheNewestCompleteCheckpoints() {
    QTemporaryDir run;
    const auto make = [&](const QString& name, bool complete) {
      QVERIFY(QDir().mkpath(run.filePath("checkpoints/" + name)));
      QVERIFY(write(run.filePath("checkpoints/" + name + "/model.safetensors"), name.toUtf8()));
      if (complete) QVERIFY(write(run.filePath("checkpoints/" + name + "/COMPLETE"), ""));
    };
    make("step-00000005", true);
    make("step-00000010", true);
    make("step-00000020", true);
    make("step-00000030", false);
    make("step-00000040.partial", false);
    make("step-100", true);  // by number, not by text
    // Copies cut short: the newest may resume; the others' checkpoints are gone there (a host
    // that saves faster than a copy takes) or are older than one here.
    make("step-00000150.partial", false);
    make("step-00000200.partial", false);
    QCOMPARE(CheckpointSync::completeCheckpoints(run.path()),
             QStringList({"step-00000005", "step-00000010", "step-00000020", "step-100"}));
    QCOMPARE(CheckpointSync::pruneCheckpoints(run.path(), 2),
             QStringList({"step-00000005", "step-00000010", "step-00000040.partial", "step-00000150.partial"}));
    QCOMPARE(QDir(run.filePath("checkpoints")).entryList(QDir::Dirs | QDir::NoDotAndDotDot),
             QStringList({"step-00000020", "step-00000030", "step-00000200.partial", "step-100"}));
    QCOMPARE(CheckpointSync::pruneCheckpoints(run.path(), 2), QStringList());
  }

  // A trainer built on one host serves another only where everything it depends on is the same.
  void trainersAreKeptBySignature() {
    HostProbe colab = parseHostProbe(
        "boot_id=b\nos=Ubuntu 22.04.4 LTS\nglibc=2.35\narch=x86_64\ntorch=2.8.0+cu126\ntorch_cuda=12.6\n"
        "torch_prefix=/usr/local/lib/python3.12/dist-packages/torch/share/cmake\ntorch_cxx11_abi=1\n"
        "gpu=Tesla T4, 15360, 550.54\ngpu_arch=7.5\ncmake=3.31.6\ngxx=11.4.0\nend=probe\n");
    QCOMPARE(colab.gpuArch, QString("7.5"));
    QCOMPARE(colab.libtorchChoice(), QString("pip"));
    const TrainerSignature base = trainerSignature(colab, "s1");
    HostProbe fresh = colab;  // another runtime of the same image: another boot, the same build
    fresh.bootId = "other";
    fresh.hostname = "other";
    QCOMPARE(trainerSignature(fresh, "s1").key, base.key);
    QVERIFY(trainerSignature(colab, "s2").key != base.key);
    for (const auto& change : std::initializer_list<std::function<void(HostProbe&)>>{
             [](HostProbe& p) { p.torch = "2.9.0+cu126"; }, [](HostProbe& p) { p.torchCuda = "12.8"; },
             [](HostProbe& p) { p.gpuArch = "8.0"; }, [](HostProbe& p) { p.glibc = "2.39"; },
             [](HostProbe& p) { p.arch = "aarch64"; }}) {
      HostProbe other = colab;
      change(other);
      QVERIFY(trainerSignature(other, "s1").key != base.key);
    }
    QTemporaryDir dir;
    const TrainerCache cache(dir.path());
    QVERIFY(cache.binaryFor(base).isEmpty());
    QFile partial(cache.partialFor(base, "run-1"));
    QVERIFY(partial.open(QIODevice::WriteOnly) && partial.write("#!/bin/sh\n") > 0);
    partial.close();
    QVERIFY(cache.binaryFor(base).isEmpty());       // not until it is whole and kept
    QVERIFY(!cache.keep(base, "run-2").isEmpty());  // another run's download is not this one
    QVERIFY(cache.binaryFor(base).isEmpty());
    QCOMPARE(cache.keep(base, "run-1"), QString());
    QVERIFY(QFileInfo(cache.binaryFor(base)).isExecutable());
    QVERIFY(cache.binaryFor(trainerSignature(colab, "s2")).isEmpty());
  }

  void dataPathsAreUploadedByContentOrUsedRemotely() {
    QTemporaryDir dir;
    QDir().mkpath(dir.filePath("set/sub"));
    for (const auto& [name, text] : {std::pair{"set/dataset.json", "{}"}, {"set/sub/train-000000.bin", "tokens"}}) {
      QFile f(dir.filePath(name));
      QVERIFY(f.open(QIODevice::WriteOnly));
      f.write(text);
    }
    RunConfig config;
    config.data.train = "set";                              // relative to the job's folder
    config.data.val = "remote:/srv/data/val";               // already there
    config.data.vocab = dir.filePath("set").toStdString();  // the same folder again: one upload
    UploadPlan plan = planUploads(config, dir.path(), "/w");
    QVERIFY2(plan.error.isEmpty(), qPrintable(plan.error));
    QCOMPARE(plan.uploads.size(), 1);
    const PlannedUpload& up = plan.uploads[0];
    QCOMPARE(up.files, (QStringList{"set/dataset.json", "set/sub/train-000000.bin"}));
    QCOMPARE(up.remotePath, "/w/data/" + up.key + "/set");
    QCOMPARE(QString::fromStdString(config.data.train), up.remotePath);
    QCOMPARE(config.data.val, std::string("/srv/data/val"));
    // What a run continued on another host uploads again: each local field's path here, kept in
    // remote.json; the field that was on the host already stays remote:.
    QCOMPARE(plan.localPaths,
             (QMap<QString, QString>{{"data.train", dir.filePath("set")}, {"data.vocab", dir.filePath("set")}}));
    RemoteRecord record;
    record.remoteRunDir = "/w/runs/r";
    record.localPaths = plan.localPaths;
    QCOMPARE(writeRemoteRecord(dir.filePath("mirror"), record), QString());
    RemoteRecord read;
    QVERIFY(readRemoteRecord(dir.filePath("mirror"), &read));
    QCOMPARE(read.localPaths, plan.localPaths);
    const QStringList onTheHost = restoreLocalPaths(config, read.localPaths);
    QCOMPARE(config.data.train, dir.filePath("set").toStdString());
    QCOMPARE(config.data.val, std::string("remote:/srv/data/val"));
    QCOMPARE(onTheHost, QStringList{"data.val /srv/data/val"});
    // The key follows the content: one byte more, another key.
    QFile f(dir.filePath("set/sub/train-000000.bin"));
    QVERIFY(f.open(QIODevice::Append));
    f.write("!");
    f.close();
    RunConfig again;
    again.data.train = "set";
    QVERIFY(planUploads(again, dir.path(), "/w").uploads.value(0).key != up.key);
    RunConfig glob;
    glob.data.train = "set/*.bin";
    QVERIFY(planUploads(glob, dir.path(), "/w").error.contains("glob"));
    RunConfig missing;
    missing.data.train = "nowhere";
    QVERIFY(planUploads(missing, dir.path(), "/w").error.contains("does not exist here"));
  }

  // The job's own target, kept in remote.json (the host's config.yaml names none): a continue
  // goes on from it, a Slurm job with its partition, limits and sbatch lines, and its work folder.
  void theJobsTargetIsKeptForAContinue() {
    TargetConfig slurm;
    slurm.kind = TargetKind::Slurm;
    slurm.host = "me@login.cluster";
    slurm.remote_dir = "/shared/me/w 'q' 工作";
    slurm.login_shell = "zsh -l";
    slurm.slurm.partition = "gpu";
    slurm.slurm.time_limit = "1-00:00:00";
    slurm.slurm.gpus_per_node = 4;
    slurm.slurm.sbatch_args = {"--exclusive", "--comment=a: b, [c]"};
    slurm.slurm.build = SlurmBuild::Job;
    QTemporaryDir dir;
    RemoteRecord record;
    record.remoteRunDir = "/w/runs/r";
    record.jobTarget = jobTargetYaml(slurm);
    QCOMPARE(writeRemoteRecord(dir.path(), record), QString());
    QCOMPARE(JobController::targetOf(dir.path()), slurm);
    QCOMPARE(JobController::workDirOf(dir.path()), QString::fromStdString(slurm.remote_dir));
    // A mirror from before job_target: its record still says a Slurm job, where, in which shell.
    QTemporaryDir older;
    RemoteRecord old;
    old.ssh.spec = "me@login.cluster";
    old.remoteRunDir = "/shared/w/runs/r";
    old.workDir = "/shared/w";
    old.slurmJobId = "12";
    old.ssh.loginShell = "zsh -l";
    QCOMPARE(writeRemoteRecord(older.path(), old), QString());
    const TargetConfig fromOld = JobController::targetOf(older.path());
    QCOMPARE(fromOld.kind, TargetKind::Slurm);
    QCOMPARE(fromOld.remote_dir, std::string("/shared/w"));
    QCOMPARE(fromOld.login_shell, std::string("zsh -l"));
    // Settings that do not read (a record edited by hand) give the default target, not a crash.
    QCOMPARE(targetFromYaml("target:\n  kind: cluster\n"), TargetConfig{});
    QCOMPARE(targetFromYaml("model:\n  n_layer: 3\n"), TargetConfig{});
  }

  void theHelperLaunchesOnceAndSignalsOnlyItsOwnProcess() {
    // A stand-in trainer that just waits; launch asked twice (its answer lost with the link) starts one.
    QTemporaryDir dir;
    const QString fake = dir.filePath("fake-train");
    QFile script(fake);
    QVERIFY(script.open(QIODevice::WriteOnly));
    script.write("#!/bin/sh\nexec sleep 60\n");
    script.close();
    script.setPermissions(script.permissions() | QFile::ExeOwner);
    const auto helper = [](const QStringList& args) {
      QProcess p;
      p.start("sh", QStringList{TRAINDECK_REMOTE_HELPER} + args);
      p.waitForFinished(20000);
      return parseKeyValues(p.readAllStandardOutput());
    };
    const QString runDir = dir.filePath("runs/r1");
    const auto first = helper({"launch", fake, dir.filePath("job.yaml"), runDir});
    const auto again = helper({"launch", fake, dir.filePath("job.yaml"), runDir});
    QVERIFY(first.value("pid").toLongLong() > 0);
    QCOMPARE(again.value("pid"), first.value("pid"));
    QCOMPARE(again.value("start_time"), first.value("start_time"));
    QCOMPARE(helper({"alive", first.value("pid"), first.value("start_time")}).value("alive"), QString("yes"));
    QCOMPARE(helper({"alive", first.value("pid"), ""}).value("alive"), QString("no"));  // no start time: not it
    QCOMPARE(helper({"signal", "TERM", first.value("pid"), "1"}).value("signalled"), QString("gone"));  // another start
    QCOMPARE(helper({"signal", "TERM", first.value("pid"), first.value("start_time")}).value("signalled"),
             QString("yes"));
    QTRY_COMPARE(helper({"alive", first.value("pid"), first.value("start_time")}).value("alive"), QString("no"));
  }

  void theProbeSaysWhatThisMachineHas() {
    QTemporaryDir home;  // the work folder is not made yet: the probe looks at the nearest folder there is
    QProcess probe;
    probe.start("sh", {TRAINDECK_REMOTE_HELPER, "probe", home.filePath("nowhere/yet")});
    QVERIFY(probe.waitForFinished(60000));
    const HostProbe p = parseHostProbe(probe.readAllStandardOutput());
    QVERIFY(p.complete);
    QVERIFY(p.cpus >= 1 && p.memoryKiB > 0 && p.diskFreeKiB > 0);
    QVERIFY(!p.bootId.isEmpty() && !p.os.isEmpty());
    QVERIFY(!p.cmake.isEmpty() && !p.gxx.isEmpty());  // this machine builds the trainer
    QVERIFY(p.missingForBuild().isEmpty());
    QVERIFY2(p.summary().contains("CPU") || p.summary().contains("×"), qPrintable(p.summary()));
    HostProbe bare = p;
    bare.cmake.clear();
    bare.uid = 1000;
    bare.apt = true;
    QVERIFY2(bare.missingForBuild().join(' ').contains("sudo apt-get install -y cmake"),
             qPrintable(bare.missingForBuild().join(' ')));
    QVERIFY(bare.packagesToInstall().isEmpty());  // not root: only the command is named
    bare.uid = 0;
    QCOMPARE(bare.packagesToInstall(), QStringList{"cmake"});
    bare.cmake = "3.16.3";  // Ubuntu 20.04's: too old
    QVERIFY2(bare.missingForBuild().join(' ').contains("older than 3.22"),
             qPrintable(bare.missingForBuild().join(' ')));
    QCOMPARE(bare.packagesToInstall(), QStringList{"cmake"});
    bare.cmake = "3.22.1";  // Colab's
    QVERIFY(bare.missingForBuild().isEmpty());
    bare.apt = false;
    bare.cmake.clear();
    QVERIFY(bare.packagesToInstall().isEmpty());  // no apt-get: nothing offered
    HostProbe full = p;                           // a nearly full disk is said before anything is uploaded
    full.diskFreeKiB = 200 * 1024;
    QVERIFY2(full.missingForBuild().join(' ').contains("Only 200 MB are free"),
             qPrintable(full.missingForBuild().join(' ')));
  }
};

QTEST_GUILESS_MAIN(RemotePiecesTest)
#include "pieces_test.moc"
