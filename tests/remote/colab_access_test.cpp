// The ways into a Colab runtime, with real parts: the generated cell is run by python3 with a
// stand-in cloudflared on PATH and starts a real sshd; the app then connects through the host
// entry it made (cloudflared's `access ssh` is the stand-in too, a socat to that sshd). The
// Colab CLI's host entry is checked the same way with a stand-in `colab`. Keys are made by
// makeEd25519Key, which never overwrites.
#include <pwd.h>
#include <signal.h>
#include <unistd.h>
#include <QDir>
#include <QFile>
#include <QProcess>
#include <QStandardPaths>
#include <QTcpServer>
#include <QTemporaryDir>
#include <QtTest>

#include "check_ssh.h"
#include "colab_access.h"
#include "sshd_server.h"

using namespace traindeck;
using traindeck::test::SshdServer;

namespace {

QByteArray readAll(const QString& path) {
  QFile f(path);
  return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

bool writeScript(const QString& path, const QByteArray& text) {
  QFile f(path);
  if (!f.open(QIODevice::WriteOnly)) return false;
  f.write(text);
  f.close();
  return f.setPermissions(QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
}

// python3 -c CODE ARGS..., its stdout; `ok` false when it failed.
QByteArray runPython(const QString& code, const QStringList& args, bool& ok, const QProcessEnvironment& env = {}) {
  QProcess p;
  if (!env.isEmpty()) p.setProcessEnvironment(env);
  p.start("python3", QStringList{"-c", code} + args);
  ok = p.waitForFinished(60000) && p.exitStatus() == QProcess::NormalExit && p.exitCode() == 0;
  const QByteArray err = p.readAllStandardError();
  if (!ok) qWarning("python3 failed: %s", err.constData());
  return p.readAllStandardOutput();
}

CheckSshResult connectTo(const HostEntry& host, const QString& identity, const QString& knownHosts) {
  CheckSshOptions options;
  options.spec = host.spec;
  options.identityFile = identity;
  options.proxyCommand = host.proxyCommand;
  options.knownHostsFile = knownHosts;
  options.configFile = "/dev/null";
  ConnectCallbacks callbacks;
  callbacks.confirmHostKey = [](const HostKeyInfo&) { return HostKeyDecision::AcceptOnce; };  // a first visit
  callbacks.askSecret = [](const QString&) { return std::optional<QByteArray>(); };
  return checkSsh(options, callbacks);
}

}  // namespace

class ColabAccessTest : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() {
    // The keys come from ssh-keygen; only the two tests that start an sshd need openssh-server.
    if (QStandardPaths::findExecutable("ssh-keygen").isEmpty())
      QSKIP("install openssh-client (for ssh-keygen) to run the Colab access tests");
    QVERIFY(m_dir.isValid());
    QCOMPARE(makeEd25519Key(m_dir.filePath("keys/traindeck_ed25519"), QString()), QString());
    QCOMPARE(makeEd25519Key(m_dir.filePath("keys/other_ed25519"), QString()), QString());
    m_publicKey = QString::fromUtf8(readAll(m_dir.filePath("keys/traindeck_ed25519.pub"))).trimmed();
    QCOMPARE(publicKeyProblem(m_publicKey), QString());
  }

  void aKeyIsNeverOverwritten() {
    const QString key = m_dir.filePath("keys/traindeck_ed25519");
    const QByteArray before = readAll(key);
    QVERIFY(!before.isEmpty());
    QVERIFY(makeEd25519Key(key, "secret").contains("already exists"));
    QCOMPARE(readAll(key), before);
    QVERIFY(QFile::remove(key));  // the .pub alone still blocks it
    QVERIFY(!makeEd25519Key(key, QString()).isEmpty());
    QVERIFY(writeScript(key, before));
    QVERIFY(QFile::setPermissions(key, QFile::ReadOwner | QFile::WriteOwner));
  }

  void onlyOneLineEd25519OrEcdsaKeysAreAccepted() {
    QVERIFY(publicKeyProblem("ssh-rsa AAAAB3NzaC1yc2E me").contains("ed25519"));
    QVERIFY(!publicKeyProblem(m_publicKey + "\nssh-ed25519 AAAAC3Nza other").isEmpty());
    QVERIFY(!publicKeyProblem("command=\"rm -rf /\" " + m_publicKey).isEmpty());
    QVERIFY(!publicKeyProblem(QString()).isEmpty());
    QCOMPARE(publicKeyProblem("ecdsa-sha2-nistp256 AAAAE2VjZHNh me@host"), QString());
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, colabSshCell("ssh-ed25519 AAAA\nimport os"));
  }

  void aHostileCommentStaysData() {
    const QString key = m_publicKey.section(' ', 0, 1) + " it's \"me\" \\ {x} '''";
    QCOMPARE(publicKeyProblem(key), QString());
    const QString cell = colabSshCell(key);
    bool ok = false;
    const QByteArray value = runPython(
        "import ast,sys\n"
        "tree = ast.parse(open(sys.argv[1]).read())\n"
        "[v] = [n.value.value for n in tree.body if isinstance(n, ast.Assign) and n.targets[0].id == 'PUBLIC_KEY']\n"
        "sys.stdout.write(v)\n",
        {writeCell(cell)}, ok);
    QVERIFY(ok);
    QCOMPARE(QString::fromUtf8(value), key);
  }

  void theNotebookIsValidNbformat4() {
    const QString path = m_dir.filePath("ssh.ipynb");
    QVERIFY(writeScript(path, colabSshNotebook(m_publicKey)));
    QProcess check;
    check.start("/usr/bin/python3",
                {"-c",
                 "import sys, nbformat\n"
                 "nb = nbformat.read(sys.argv[1], as_version=4)\n"
                 "nbformat.validate(nb)\n"
                 "assert nb.nbformat == 4 and [c.cell_type for c in nb.cells] == ['markdown', 'code']\n"
                 "compile(nb.cells[1].source, 'cell', 'exec')\n",
                 path});
    QVERIFY(check.waitForFinished(60000));
    if (check.exitCode() != 0 && check.readAllStandardError().contains("No module named 'nbformat'"))
      QSKIP("python3-nbformat is not installed");
    QCOMPARE(check.exitCode(), 0);
  }

  // A runtime without sshd: the cell's install branch, run with a stand-in apt-get on PATH, reads
  // the package lists first (a fresh runtime has none, and the install alone fails).
  void theCellUpdatesPackageListsBeforeInstallingSshd() {
    const QStringList lines = colabSshCell(m_publicKey).split('\n');
    const qsizetype at = lines.indexOf("if not os.path.exists(sshd):");
    QVERIFY(at >= 0);
    QString branch = "import subprocess, os\nsshd = '/nonexistent/sshd'\n" + lines[at] + "\n";
    for (qsizetype i = at + 1; i < lines.size() && lines[i].startsWith("    "); ++i) branch += lines[i] + "\n";
    const QString bin = m_dir.filePath("apt-bin");
    QVERIFY(QDir().mkpath(bin));
    QVERIFY(writeScript(bin + "/apt-get",
                        QString("#!/bin/sh\necho \"$*\" >> \"%1/apt.log\"\n").arg(m_dir.path()).toUtf8()));
    QFile(bin + "/apt-get").setPermissions(QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
    QProcess python;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("PATH", bin + ":" + env.value("PATH"));
    python.setProcessEnvironment(env);
    python.start("python3", {"-c", branch});
    QVERIFY(python.waitForFinished(30000));
    QCOMPARE(python.exitCode(), 0);
    QCOMPARE(readAll(m_dir.filePath("apt.log")), QByteArray("update -qq\ninstall -y -qq openssh-server\n"));
  }

  // The cell run for real: its sshd takes this key and no other, its hostname comes back, and
  // the host entry made from that hostname connects through "cloudflared access ssh".
  void theCellOpensSshForThatKeyOnlyThroughTheTunnel() {
    if (const QString missing = SshdServer::missingPackage(); !missing.isEmpty())
      QSKIP(qPrintable("install " + missing + " to run the cell's sshd"));
    const QString home = m_dir.filePath("runtime-home");
    const QString bin = m_dir.filePath("bin");
    QVERIFY(QDir().mkpath(home) && QDir().mkpath(bin));
    const int port = freePort();
    QVERIFY(port > 0);
    // cloudflared: `tunnel --url ssh://...` prints a quick-tunnel URL and stays up like the real
    // one; `access ssh --hostname H` carries the SSH stream to the cell's sshd.
    QVERIFY(
        writeScript(bin + "/cloudflared", QString("#!/bin/sh\n"
                                                  "echo \"$*\" >> \"%1/cloudflared.args\"\n"
                                                  "if [ \"$1\" = tunnel ]; then\n"
                                                  "  echo 'INF |  https://quick-tunnel-7f3a.trycloudflare.com  |' >&2\n"
                                                  "  echo $$ > \"%1/tunnel.pid\"\n"
                                                  "  exec sleep 600\n"
                                                  "fi\n"
                                                  "exec socat - TCP:127.0.0.1:%2\n")
                                              .arg(m_dir.path())
                                              .arg(port)
                                              .toUtf8()));
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("HOME", home);
    env.insert("PATH", bin + ":" + env.value("PATH"));
    QProcess cell;
    cell.setProcessEnvironment(env);
    cell.setProcessChannelMode(QProcess::MergedChannels);
    cell.start("python3", {writeCell(colabSshCell(m_publicKey, port))});
    QVERIFY(cell.waitForFinished(60000));
    const QByteArray printed = cell.readAll();
    m_sshdPidFile = home + "/.ssh/traindeck_sshd.pid";
    QVERIFY2(cell.exitCode() == 0, printed.constData());
    QVERIFY2(printed.contains("quick-tunnel-7f3a.trycloudflare.com"), printed.constData());
    QCOMPARE(readAll(home + "/.ssh/traindeck_authorized_keys"), (m_publicKey + "\n").toUtf8());
    QCOMPARE(QFile::permissions(home + "/.ssh/traindeck_authorized_keys") & 0x0077, QFile::Permissions());
    QVERIFY(
        readAll(m_dir.filePath("cloudflared.args")).contains(QString("--url ssh://127.0.0.1:%1").arg(port).toUtf8()));

    const QString hostname = trycloudflareHostname("https://quick-tunnel-7f3a.trycloudflare.com/\n");
    QCOMPARE(hostname, QString("quick-tunnel-7f3a.trycloudflare.com"));
    HostEntry host = colabTunnelHost(hostname, m_dir.filePath("keys/traindeck_ed25519"));
    QCOMPARE(host.proxyCommand, QString("cloudflared access ssh --hostname %h"));
    if (::geteuid() != 0) host.spec = QString::fromLocal8Bit(::getpwuid(::geteuid())->pw_name) + "@" + hostname;
    const QByteArray oldPath = qgetenv("PATH");
    qputenv("PATH", (bin + ":").toUtf8() + oldPath);
    const CheckSshResult in = connectTo(host, host.identityFile, m_dir.filePath("known_hosts"));
    const CheckSshResult other = connectTo(host, m_dir.filePath("keys/other_ed25519"), m_dir.filePath("known_hosts2"));
    qputenv("PATH", oldPath);
    QVERIFY2(in.ok, qPrintable(in.line));
    QVERIFY2(!other.ok, qPrintable(other.line));  // another key, even this user's, does not get in
  }

  // `colab ssh --proxy-mode` as the ProxyCommand, its words quoted; a stand-in colab carries the
  // stream to a test sshd.
  void theColabCliEntryConnectsThroughItsProxy() {
    if (const QString missing = SshdServer::missingPackage(); !missing.isEmpty())
      QSKIP(qPrintable("install " + missing + " to run the SSH tests"));
    SshdServer server;
    QCOMPARE(server.start(), QString());
    const QString colab = m_dir.filePath("bin dir/colab");
    QVERIFY(QDir().mkpath(m_dir.filePath("bin dir")));
    QVERIFY(writeScript(colab, QString("#!/bin/sh\necho \"$*\" > \"%1/colab.args\"\nexec socat - TCP:127.0.0.1:%2\n")
                                   .arg(m_dir.path())
                                   .arg(server.port())
                                   .toUtf8()));
    QVERIFY(QFile::copy(server.clientKey(), m_dir.filePath("cli_key")));
    QVERIFY(QFile::copy(server.clientKey() + ".pub", m_dir.filePath("cli_key.pub")));
    ColabCliRuntime runtime{.session = "gpt2-a100",
                            .accelerator = "A100",
                            .colabProgram = colab,
                            .identityFile = m_dir.filePath("cli_key")};
    QCOMPARE(colabCliProblem(runtime), QString());
    HostEntry host = colabCliHost(runtime);
    QVERIFY(host.proxyCommand.startsWith(QString("'%1' ssh --proxy-mode -s gpt2-a100 -i ").arg(colab)));
    QVERIFY(host.proxyCommand.endsWith(" --gpu A100"));
    host.spec = server.user() + "@colab-gpt2-a100";
    const CheckSshResult result = connectTo(host, host.identityFile, m_dir.filePath("known_hosts3"));
    QVERIFY2(result.ok, qPrintable(result.line + "\n" + server.log()));
    QCOMPARE(readAll(m_dir.filePath("colab.args")).trimmed(),
             QString("ssh --proxy-mode -s gpt2-a100 -i %1 --gpu A100").arg(m_dir.filePath("cli_key")).toUtf8());

    for (const QString& bad : {QString("a b"), QString("x;rm -rf ~"), QString("$(id)"), QString()}) {
      ColabCliRuntime hostile = runtime;
      hostile.session = bad;
      QVERIFY2(!colabCliProblem(hostile).isEmpty(), qPrintable(bad));
    }
    ColabCliRuntime relative = runtime;
    relative.colabProgram = "colab";
    QVERIFY(!colabCliProblem(relative).isEmpty());
  }

  void cleanupTestCase() {
    for (const QString& pidFile : {m_sshdPidFile, m_dir.filePath("tunnel.pid")}) {
      const qint64 pid = readAll(pidFile).trimmed().toLongLong();
      if (pid > 1) ::kill(static_cast<pid_t>(pid), SIGTERM);
    }
  }

 private:
  QString writeCell(const QString& cell) {
    const QString path = m_dir.filePath(QString("cell-%1.py").arg(++m_cells));
    writeScript(path, cell.toUtf8());
    return path;
  }
  static QString homeCacheTemplate() {
    QDir().mkpath(QDir::homePath() + "/.cache");
    return QDir::homePath() + "/.cache/traindeck-colab-test-XXXXXX";
  }
  static int freePort() {
    QTcpServer probe;
    return probe.listen(QHostAddress::LocalHost, 0) ? probe.serverPort() : -1;
  }

  // Not under /tmp: the cell's sshd keeps StrictModes, which refuses keys below a world-writable
  // folder, and the runtime's home lives in here.
  QTemporaryDir m_dir{homeCacheTemplate()};
  QString m_publicKey;
  QString m_sshdPidFile;
  int m_cells = 0;
};

QTEST_GUILESS_MAIN(ColabAccessTest)
#include "colab_access_test.moc"
