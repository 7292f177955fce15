// The host model without a server: a job's target.* and a saved host become the SshTarget a
// connection uses (spec, target.user/port, the SSH config under them), a start's SshTarget goes
// into remote.json and comes back for a re-attach unchanged, and remote.json's one codec keeps
// every field (Chinese, quotes, a hostile path) and still reads a record from before new keys.
#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include "host_model.h"
#include "remote_record.h"
#include "run_summary.h"
#include "ssh_error.h"

using namespace traindeck;

namespace {

// A path no shell word survives unquoted: spaces, quotes, $( ), a backslash, Chinese.
const QString kHostilePath = QStringLiteral("/home/u/工作 目录/it's \"my\" $(rm -rf ~) \\ key");

QString writeConfig(const QTemporaryDir& dir, const QByteArray& text) {
  const QString path = dir.filePath("ssh_config");
  QFile f(path);
  if (!f.open(QIODevice::WriteOnly) || f.write(text) != text.size()) return {};
  return path;
}

// Every field set, none to its default.
RemoteRecord fullRecord() {
  RemoteRecord r;
  r.ssh.spec = "张三@gpu.example:2222";
  r.ssh.alias = "gpu.example";
  r.ssh.host = "10.0.0.7";
  r.ssh.user = "张三";
  r.ssh.port = 2222;
  r.ssh.identityFiles = {kHostilePath, "/keys/second"};
  r.ssh.proxyCommand = "cloudflared access ssh --hostname 'a \"b\"'";
  r.ssh.proxyJump = "bastion,jump2";
  r.ssh.knownHostsFile = "/kh/已知 hosts";
  r.ssh.hostKeyAlias = "gpu-key";
  r.ssh.identitiesOnly = true;
  r.ssh.identityAgent = "/run/agent.sock";
  r.ssh.loginShell = "zsh -l -c 'x'";
  r.workDir = "/w/工作 \"q\"";
  r.remoteRunDir = "/w/工作 \"q\"/runs/运行-1";
  r.trainBinary = "/w/build/abc/bin/traindeck-train";
  r.helper = "/w/traindeck-remote-0123456789ab.sh";
  r.pid = 4'294'967'301;  // beyond 32 bits
  r.startTime = "123456789";
  r.bootId = "5e1f-\\-boot";
  r.slurmJobId = "98765";
  r.watchOnly = true;
  r.localPaths = {{"data.train", kHostilePath}, {"data.vocab", "/数据/vocab.json"}};
  TargetConfig target;
  target.kind = TargetKind::Slurm;
  target.host = r.ssh.spec.toStdString();
  target.remote_dir = "/shared/工作";
  target.slurm.partition = "gpu";
  r.jobTarget = jobTargetYaml(target);
  return r;
}

}  // namespace

class HostModelTest : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() { QVERIFY(m_home.isValid()); }

  // user@host:port from target.host; target.user over the spec's and the config's user; the
  // config's HostName and Port under what the spec says; target.identity tried first.
  void aJobsTargetBecomesTheSshTarget() {
    const QString config = writeConfig(m_home, "Host gpu\n  HostName 10.1.2.3\n  User carol\n  Port 2200\n");
    QVERIFY(!config.isEmpty());
    const SshLookup lookup{.knownHostsFile = m_home.filePath("known_hosts"), .configFile = config, .batch = true};
    TargetConfig target;
    target.kind = TargetKind::Ssh;
    target.host = "alice@gpu:2222";
    target.identity = kHostilePath.toStdString();
    target.proxy_command = "nc %h %p";
    target.login_shell = "bash -l";
    SshTarget t = sshTargetOf(target, lookup);
    QCOMPARE(t.spec, QString("alice@gpu:2222"));
    QCOMPARE(t.alias, QString("gpu"));
    QCOMPARE(t.host, QString("10.1.2.3"));
    QCOMPARE(t.user, QString("alice"));
    QCOMPARE(t.port, 2222);
    QCOMPARE(t.identityFiles.value(0), kHostilePath);
    QCOMPARE(t.proxyCommand, QString("nc 10.1.2.3 2222"));
    QCOMPARE(t.loginShell, QString("bash -l"));
    QCOMPARE(t.knownHostsFile, lookup.knownHostsFile);
    QVERIFY(t.batch);
    // The config's user and port where neither the spec nor target.* says one; target.user wins.
    target.host = "gpu";
    target.proxy_command.clear();
    QCOMPARE(sshTargetOf(target, lookup).user, QString("carol"));
    QCOMPARE(sshTargetOf(target, lookup).port, 2200);
    target.user = "bob";
    target.port = 2022;
    t = sshTargetOf(target, lookup);
    QCOMPARE(t.user, QString("bob"));
    QCOMPARE(t.port, 2022);
    // A host name that would reach a shell through %h is refused with what to write instead.
    target.host = "gpu;reboot";
    try {
      sshTargetOf(target, lookup);
      QFAIL("a host with ';' was taken");
    } catch (const SshError& e) {
      QCOMPARE(e.kind(), SshError::Kind::Config);
      QVERIFY2(e.message().contains("[user@]host[:port]"), qPrintable(e.message()));
    }
  }

  // A saved host over a job's place: its way in replaces the job's, the place stays.
  void aSavedHostAimsAJobsTarget() {
    TargetConfig place;
    place.kind = TargetKind::Slurm;
    place.host = "old@login:22";
    place.user = "old";
    place.port = 2022;
    place.identity = "/old/key";
    place.proxy_command = "old proxy";
    place.remote_dir = "/shared/工作";
    place.login_shell = "zsh -l";
    place.hosts = "a, b";
    place.node_address = "10.0.0.1";
    place.slurm.partition = "gpu";
    const HostEntry host{.name = "集群", .spec = " me@login2:2222 ", .identityFile = kHostilePath, .proxyCommand = ""};
    const TargetConfig aimed = targetOn(host, place);
    QCOMPARE(aimed.kind, TargetKind::Slurm);  // a Slurm job stays one: the host is its login node
    QCOMPARE(aimed.host, std::string("me@login2:2222"));
    QCOMPARE(aimed.user, TargetConfig{}.user);
    QCOMPARE(aimed.port, TargetConfig{}.port);
    QCOMPARE(aimed.identity, kHostilePath.toStdString());
    QCOMPARE(aimed.proxy_command, std::string());
    QCOMPARE(aimed.hosts, std::string());
    QCOMPARE(aimed.node_address, std::string());
    QCOMPARE(aimed.remote_dir, place.remote_dir);
    QCOMPARE(aimed.login_shell, place.login_shell);
    QVERIFY(aimed.slurm == place.slurm);
    QCOMPARE(targetOn(host, TargetConfig{}).kind, TargetKind::Ssh);  // a local job goes to the host
    // And on to the connection: the spec as saved, its user and port.
    const QString config = writeConfig(m_home, "");
    const SshTarget t = sshTargetOf(aimed, {.knownHostsFile = {}, .configFile = config, .batch = true});
    QCOMPARE(t.spec, host.spec.trimmed());
    QCOMPARE(t.user, QString("me"));
    QCOMPARE(t.port, 2222);
    QCOMPARE(t.identityFiles.value(0), kHostilePath);
  }

  // What a start connected with is what a re-attach connects with (but batch, asked each time).
  void aLaunchsTargetComesBackFromRemoteJson() {
    const QString config = writeConfig(m_home, "Host gpu\n  HostName 10.1.2.3\n  HostKeyAlias gpu-key\n");
    TargetConfig target;
    target.kind = TargetKind::Ssh;
    target.host = "alice@gpu:2222";
    target.identity = kHostilePath.toStdString();
    target.login_shell = "none";
    const SshTarget launched = sshTargetOf(target, {.knownHostsFile = {}, .configFile = config, .batch = false});
    QTemporaryDir mirror;
    RemoteRecord record;
    record.ssh = launched;
    record.remoteRunDir = "/w/runs/r";
    QCOMPARE(writeRemoteRecord(mirror.path(), record), QString());
    RemoteRecord read;
    QVERIFY(readRemoteRecord(mirror.path(), &read));
    QVERIFY(read.target(false) == launched);
    SshTarget batch = launched;
    batch.batch = true;
    QVERIFY(read.target(true) == batch);
  }

  void remoteJsonKeepsEveryField() {
    QTemporaryDir dir;
    const RemoteRecord record = fullRecord();
    QCOMPARE(writeRemoteRecord(dir.path(), record), QString());
    RemoteRecord read;
    QString error;
    QVERIFY2(readRemoteRecord(dir.path(), &read, &error), qPrintable(error));
    QVERIFY(read == record);
    QCOMPARE(read.ssh.identityFiles, record.ssh.identityFiles);
    QCOMPARE(read.localPaths, record.localPaths);
    QCOMPARE(read.jobTargetOr(std::nullopt), targetFromYaml(record.jobTarget));
    QCOMPARE(read.jobTargetOr(std::nullopt).remote_dir, std::string("/shared/工作"));
    // The run list reads the same file through the same codec.
    QCOMPARE(readRunSummary(dir.path()).remoteSpec, record.ssh.spec);
  }

  // A record written before alias, login_shell, job_target, slurm_job and local_paths existed.
  void anOldRecordStillReads() {
    QTemporaryDir dir;
    QFile f(QDir(dir.path()).filePath(kRemoteRecordFile));
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(R"({"spec": "me@gpu:2222", "host": "10.0.0.7", "user": "me", "port": 2222,
                "identity_files": ["/k/id"], "proxy_command": "", "known_hosts": "/kh",
                "work_dir": "/w", "remote_run_dir": "/w/runs/r", "train_binary": "/w/t",
                "helper": "/w/h.sh", "pid": 42, "start_time": "7", "boot_id": "b"})");
    f.close();
    RemoteRecord read;
    QVERIFY(readRemoteRecord(dir.path(), &read));
    QCOMPARE(read.ssh.spec, QString("me@gpu:2222"));
    QCOMPARE(read.ssh.alias, read.ssh.host);
    QCOMPARE(read.ssh.port, 2222);
    QCOMPARE(read.ssh.identityFiles, QStringList{"/k/id"});
    QCOMPARE(read.pid, qint64(42));
    QVERIFY(read.jobTarget.isEmpty() && read.slurmJobId.isEmpty() && read.localPaths.isEmpty());
    QVERIFY(!read.watchOnly);
    // Its job's target from what the record says: an ssh run on its spec, in its work folder.
    const TargetConfig target = read.jobTargetOr(std::nullopt);
    QCOMPARE(target.kind, TargetKind::Ssh);
    QCOMPARE(target.host, std::string("me@gpu:2222"));
    QCOMPARE(target.remote_dir, std::string("/w"));
    // A record without "port" reads as port 22.
    QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
    f.write(R"({"spec": "gpu", "host": "gpu", "remote_run_dir": "/w/runs/r"})");
    f.close();
    QVERIFY(readRemoteRecord(dir.path(), &read));
    QCOMPARE(read.ssh.port, 22);
  }

  void aBrokenRecordSaysWhichFile() {
    QTemporaryDir dir;
    RemoteRecord read;
    QString error;
    QVERIFY(!readRemoteRecord(dir.path(), &read, &error));  // no remote.json: not a mirror
    QVERIFY(error.isEmpty());
    QFile f(QDir(dir.path()).filePath(kRemoteRecordFile));
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("{\"spec\": \"me@gpu\", ");  // cut short
    f.close();
    QVERIFY(!readRemoteRecord(dir.path(), &read, &error));
    QVERIFY2(error.contains(f.fileName()), qPrintable(error));
    QVERIFY(!decodeRemoteRecord("[1, 2]"));
    // One naming no run folder there is not a mirror to follow, but the list still shows its host.
    QCOMPARE(decodeRemoteRecord(R"({"spec": "me@gpu"})").value_or(RemoteRecord{}).ssh.spec, QString("me@gpu"));
    QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
    f.write(R"({"spec": "me@gpu"})");
    f.close();
    QVERIFY(!readRemoteRecord(dir.path(), &read, &error));
    QCOMPARE(readRunSummary(dir.path()).remoteSpec, QString("me@gpu"));
  }

 private:
  QTemporaryDir m_home;
};

QTEST_GUILESS_MAIN(HostModelTest)
#include "host_model_test.moc"
