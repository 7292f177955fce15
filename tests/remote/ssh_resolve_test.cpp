// ~/.ssh/config resolved as OpenSSH resolves it: `ssh -G` and SshConfig's own parser agree where
// both read a keyword (Include, Host patterns, HostKeyAlias, IdentitiesOnly, IdentityAgent,
// ProxyJump); Match only through ssh -G; ProxyJump's command line. Then `traindeck --check-ssh`
// against two test sshds: a login through a ProxyJump bastion with a key that only a real
// ssh-agent holds (IdentityAgent) and a HostKeyAlias (known_hosts checked and written under
// it), and a bastion whose key is unknown, refused in batch mode naming the bastion. HOME is a temporary directory.
#include <QDir>
#include <QFile>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include "check_ssh_run.h"
#include "openssh_resolve.h"
#include "proxy_jump.h"
#include "ssh_config.h"
#include "ssh_error.h"
#include "sshd_server.h"

using namespace traindeck;
using traindeck::test::CheckSshRun;
using traindeck::test::runCheckSsh;
using traindeck::test::SshdServer;

namespace {

bool writeFile(const QString& path, const QString& text) {
  QFile f(path);
  if (!f.open(QIODevice::WriteOnly) || f.write(text.toUtf8()) < 0) return false;
  f.close();
  // OpenSSH refuses a user config that others may write.
  return f.setPermissions(QFile::ReadOwner | QFile::WriteOwner);
}

// "NAME TYPE KEY" for server's host key, the line known_hosts holds under that name.
QString knownHostsLine(const SshdServer& server, const QString& name) {
  QFile pub(server.path("host_key.pub"));
  if (!pub.open(QIODevice::ReadOnly)) return {};
  const QStringList key = QString::fromUtf8(pub.readAll()).trimmed().split(' ');
  return QString("%1 %2 %3\n").arg(name, key.value(0), key.value(1));
}

SshTarget viaParser(const QString& config, const QString& spec) {
  SshTarget t = SshTarget::parse(spec);
  SshConfig::fromFile(config).resolve(t);
  return t;
}

SshTarget viaOpenSsh(const QString& config, const QString& spec) {
  SshTarget t = SshTarget::parse(spec);
  QString why;
  const std::optional<SshConfig::Values> values = openSshValues(t, config, &why);
  if (!values) qWarning("ssh -G failed: %s", qPrintable(why));
  SshConfig::apply(values.value_or(SshConfig::Values{}), t, config);
  return t;
}

}  // namespace

class SshResolveTest : public QObject {
  Q_OBJECT
  QTemporaryDir m_dir;

  QString path(const QString& name) const { return m_dir.filePath(name); }

 private slots:
  void initTestCase() {
    if (QStandardPaths::findExecutable("ssh").isEmpty()) QSKIP("install openssh-client (ssh) to run these tests");
    QVERIFY(m_dir.isValid());
    qputenv("HOME", path("home").toUtf8());
    QDir().mkpath(path("home/.ssh"));
  }

  // The keywords both readers honour, through Include and Host patterns with a negation.
  void openSshAndTheParserAgree() {
    QVERIFY(writeFile(path("inc.conf"), QString("Host login1.cluster\n  IdentityAgent %1\n  ProxyJump bastion\n"
                                                "Host other\n  User bob\n")
                                            .arg(path("agent.sock"))));
    const QString config = path("agree.conf");
    QVERIFY(writeFile(config, QString("Include %1\n"
                                      "Host login*.cluster !login9.cluster\n"
                                      "  HostName %h.example.org\n  HostKeyAlias cluster-login\n"
                                      "  IdentitiesOnly yes\n  IdentityFile %2/key_%r\n  User alice\n"
                                      "Host *\n  Port 2222\n  UserKnownHostsFile %2/kh %2/kh2\n")
                                  .arg(path("inc.conf"), m_dir.path())));
    for (const auto& resolve : {viaParser, viaOpenSsh}) {
      const SshTarget t = resolve(config, "login1.cluster");
      QCOMPARE(t.host, QString("login1.cluster.example.org"));
      QCOMPARE(t.user, QString("alice"));
      QCOMPARE(t.port, 2222);
      QCOMPARE(t.identityFiles, QStringList{path("key_alice")});
      QCOMPARE(t.hostKeyAlias, QString("cluster-login"));
      QCOMPARE(t.knownHostsName(), QString("cluster-login"));
      QVERIFY(t.identitiesOnly);
      QCOMPARE(t.identityAgent, path("agent.sock"));
      QCOMPARE(t.knownHostsFile, path("kh"));
      QCOMPARE(t.proxyJump, QString("bastion"));
      QVERIFY2(t.proxyCommand.endsWith(QString(" -F %1 -W '[login1.cluster.example.org]:2222' bastion").arg(config)),
               qPrintable(t.proxyCommand));

      const SshTarget negated = resolve(config, "login9.cluster");  // "!login9.cluster" vetoes the block
      QCOMPARE(negated.host, QString("login9.cluster"));
      QVERIFY(negated.hostKeyAlias.isEmpty() && !negated.identitiesOnly && negated.proxyCommand.isEmpty());
      QCOMPARE(negated.knownHostsName(), QString("[login9.cluster]:2222"));

      // The command line wins: its user, port and ProxyCommand (over the config's ProxyJump).
      SshTarget given = SshTarget::parse("carol@login1.cluster:2022");
      given.proxyCommand = "socat - TCP:%h:%p";
      if (resolve == viaParser)
        SshConfig::fromFile(config).resolve(given);
      else
        SshConfig::apply(*openSshValues(given, config), given, config);
      QCOMPARE(given.user, QString("carol"));
      QCOMPARE(given.port, 2022);
      QCOMPARE(given.proxyCommand, QString("socat - TCP:login1.cluster.example.org:2022"));
      QVERIFY(given.proxyJump.isEmpty());
      QCOMPARE(given.identityFiles, QStringList{path("key_carol")});
    }
  }

  // An Include inside a Host block applies only to the hosts of that block, and its own Host
  // lines narrow it further; after it, the enclosing block goes on.
  void includeInsideAHostBlock() {
    QVERIFY(writeFile(path("inner.conf"), "User fromInclude\nHost ab\n  Port 2201\n"));
    const QString config = path("nested.conf");
    QVERIFY(writeFile(
        config,
        QString("Host a*\n  Include %1\n  HostKeyAlias after-include\nHost *\n  User z\n").arg(path("inner.conf"))));
    for (const auto& resolve : {viaParser, viaOpenSsh}) {
      const SshTarget ab = resolve(config, "ab"), ac = resolve(config, "ac"), b = resolve(config, "b");
      QCOMPARE(ab.user, QString("fromInclude"));
      QCOMPARE(ab.port, 2201);
      QCOMPARE(ab.hostKeyAlias, QString("after-include"));
      QCOMPARE(ac.user, QString("fromInclude"));
      QCOMPARE(ac.port, 22);
      QCOMPARE(b.user, QString("z"));
      QVERIFY(b.hostKeyAlias.isEmpty());
    }
  }

  // Match host is OpenSSH's alone (SshConfig never applies a Match block); ssh -G's default
  // identity files and known_hosts stay out, so the app's defaults under $HOME apply.
  void matchThroughOpenSshOnly() {
    const QString config = path("match.conf");
    QVERIFY(writeFile(config,
                      "Host *.gpu\n  HostName %h.internal\nMatch host *.internal user root,alice\n"
                      "  Port 2200\n  ProxyCommand none\nHost *\n  ProxyJump bastion\n"));
    SshTarget t = SshTarget::parse("alice@n1.gpu");
    resolveSshTarget(t, config);
    QCOMPARE(t.host, QString("n1.gpu.internal"));
    QCOMPARE(t.port, 2200);
    QVERIFY2(t.proxyCommand.isEmpty(), qPrintable(t.proxyCommand));  // ProxyCommand none came first
    QVERIFY(t.identityFiles.isEmpty());
    QCOMPARE(t.knownHostsFile, path("home/.ssh/known_hosts"));
    const SshTarget parsed = viaParser(config, "alice@n1.gpu");
    QCOMPARE(parsed.port, 22);
    QCOMPARE(parsed.proxyJump, QString("bastion"));

    // A missing file is an empty config, as before.
    SshTarget bare = SshTarget::parse("n2.gpu");
    resolveSshTarget(bare, path("no-such-config"));
    QCOMPARE(bare.host, QString("n2.gpu"));
    QCOMPARE(bare.port, 22);
  }

  // A chain: -J for the earlier hops, the last one as ssh's destination (a URI when it has a
  // port), BatchMode and the app's known_hosts when given; every word shell-quoted.
  void proxyJumpChainCommand() {
    SshTarget t = SshTarget::parse("node7");
    t.port = 22;
    t.batch = true;
    t.proxyJump = "gw.example.org,ops@login:2200";
    const QString ssh = QStandardPaths::findExecutable("ssh");
    QCOMPARE(proxyJumpCommand(t, path("no-such-config"), path("my kh")),
             QString("%1 -o BatchMode=yes -o 'UserKnownHostsFile=\"%2\"' -J gw.example.org -W '[node7]:22' "
                     "ssh://ops@login:2200")
                 .arg(ssh, path("my kh")));
    t.proxyJump = "-oProxyCommand=x";
    QVERIFY_THROWS_EXCEPTION(SshError, proxyJumpCommand(t, QString(), QString()));
  }
};

// The CLI through a bastion: two sshds, a real ssh-agent.
class SshJumpCliTest : public QObject {
  Q_OBJECT
  SshdServer m_bastion, m_login;
  QProcess m_agent;

  QString agentSocket() const { return m_login.path("agent.sock"); }
  QString config() const { return m_login.path("home/.ssh/config"); }

  // No SSH_AUTH_SOCK: the agent is reached through IdentityAgent only.
  CheckSshRun traindeck(const QStringList& args, const QByteArray& input = QByteArray()) {
    return runCheckSsh(TRAINDECK_BIN, m_login.path("home"), args, input);
  }

 private slots:
  void initTestCase() {
    if (const QString missing = SshdServer::missingPackage(); !missing.isEmpty())
      QSKIP(qPrintable("install " + missing + " to run the SSH tests"));
    for (const char* tool : {"ssh", "ssh-agent", "ssh-add"})
      if (QStandardPaths::findExecutable(tool).isEmpty())
        QSKIP(qPrintable(QString("install openssh-client (for %1) to run the ProxyJump tests").arg(tool)));
    if (const QString e = m_bastion.start(); !e.isEmpty()) QSKIP(qPrintable("cannot run sshd here: " + e));
    if (const QString e = m_login.start(); !e.isEmpty()) QSKIP(qPrintable("cannot run sshd here: " + e));
    QVERIFY(QDir().mkpath(m_login.path("home/.ssh")));

    // A real agent holding the login's client key, which no file in the config names.
    m_agent.start("ssh-agent", {"-D", "-a", agentSocket()});
    QVERIFY2(m_agent.waitForStarted(5000), qPrintable(m_agent.errorString()));
    QTRY_VERIFY_WITH_TIMEOUT(QFile::exists(agentSocket()), 5000);
    QProcess add;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("SSH_AUTH_SOCK", agentSocket());
    add.setProcessEnvironment(env);
    add.start("ssh-add", {m_login.clientKey()});
    QVERIFY(add.waitForFinished(10000));
    QVERIFY2(add.exitCode() == 0, add.readAllStandardError().constData());

    QVERIFY(writeFile(config(), QString("Host bastion\n  HostName 127.0.0.1\n  Port %1\n  User %2\n"
                                        "  IdentityFile %3\n  IdentitiesOnly yes\n"
                                        "Host cluster\n  HostName 127.0.0.1\n  Port %4\n  User %2\n"
                                        "  ProxyJump bastion\n  IdentityAgent %5\n  HostKeyAlias cluster-login\n")
                                    .arg(m_bastion.port())
                                    .arg(m_bastion.user(), m_bastion.clientKey())
                                    .arg(m_login.port())
                                    .arg(agentSocket())));
  }

  void cleanupTestCase() {
    m_agent.terminate();
    m_agent.waitForFinished(5000);
  }

  void loginThroughBastionWithAgentKey() {
    const QString kh = m_login.path("jump_known_hosts");
    QVERIFY(writeFile(kh, knownHostsLine(m_bastion, QString("[127.0.0.1]:%1").arg(m_bastion.port())) +
                              knownHostsLine(m_login, "cluster-login")));
    const CheckSshRun r = traindeck({"cluster", "--ssh-config", config(), "--known-hosts", kh, "--batch"});
    QVERIFY2(r.code == 0, qPrintable(r.out + r.err));
    QVERIFY2(r.out.startsWith("ok: ") && r.out.contains("known in " + kh) && r.out.contains("ssh-agent"),
             qPrintable(r.out));
    // The login came through the bastion: its sshd let the jump in.
    QVERIFY2(m_bastion.log().contains("Accepted publickey"), qPrintable(m_bastion.log()));
  }

  // known_hosts holds the login's key under its HostKeyAlias, not its address and port: checked
  // and written so.
  void hostKeyAliasNamesTheKnownHostsEntry() {
    const QString kh = m_login.path("address_known_hosts");
    const QString bastionLine = knownHostsLine(m_bastion, QString("[127.0.0.1]:%1").arg(m_bastion.port()));
    QVERIFY(writeFile(kh, bastionLine + knownHostsLine(m_login, QString("[127.0.0.1]:%1").arg(m_login.port()))));
    CheckSshRun r = traindeck({"cluster", "--ssh-config", config(), "--known-hosts", kh, "--batch"});
    QCOMPARE(r.code, 1);
    QVERIFY2(r.out.startsWith("refused: Unknown host key for cluster-login"), qPrintable(r.out + r.err));

    QVERIFY(writeFile(kh, bastionLine));
    r = traindeck({"cluster", "--ssh-config", config(), "--known-hosts", kh}, "yes\n");
    QVERIFY2(r.code == 0, qPrintable(r.out + r.err));
    QFile written(kh);
    QVERIFY(written.open(QIODevice::ReadOnly));
    const QString text = QString::fromUtf8(written.readAll());
    QVERIFY2(text.contains("\ncluster-login ssh-ed25519 "), qPrintable(text));
  }

  void unknownBastionKeyRefusedInBatch() {
    const QString kh = m_login.path("login_only_known_hosts");
    QVERIFY(writeFile(kh, knownHostsLine(m_login, "cluster-login")));
    const CheckSshRun r = traindeck({"cluster", "--ssh-config", config(), "--known-hosts", kh, "--batch"});
    QCOMPARE(r.code, 1);
    QVERIFY2(r.out.startsWith("failed: ") && r.out.contains("through the jump host bastion (ProxyJump)") &&
                 r.out.contains("Host key verification failed"),
             qPrintable(r.out + r.err));
    QCOMPARE(r.out.count('\n'), 1);
  }
};

int main(int argc, char** argv) {
  QCoreApplication app(argc, argv);
  int status = 0;
  {
    SshResolveTest resolve;
    status |= QTest::qExec(&resolve, argc, argv);
  }
  {
    SshJumpCliTest jump;
    status |= QTest::qExec(&jump, argc, argv);
  }
  return status;
}

#include "ssh_resolve_test.moc"
