// SshTarget parsing and SshConfig resolution, without a server: host specs, Host patterns
// with negation, first value wins, command line over config, %h %p %r in ProxyCommand.
#include <QDir>
#include <QTest>

#include "ssh_config.h"
#include "ssh_error.h"
#include "ssh_target.h"

using namespace traindeck;

class SshTargetTest : public QObject {
  Q_OBJECT
 private slots:
  void parsesSpecs() {
    SshTarget t = SshTarget::parse("alice@gpu-1.example.org:2222");
    QCOMPARE(t.user, QString("alice"));
    QCOMPARE(t.alias, QString("gpu-1.example.org"));
    QCOMPARE(t.port, 2222);
    t = SshTarget::parse("box");
    QCOMPARE(t.user, QString());
    QCOMPARE(t.port, 0);
    t = SshTarget::parse("root@[::1]:22");
    QCOMPARE(t.alias, QString("::1"));
    QCOMPARE(t.port, 22);
    t = SshTarget::parse("fe80::1");
    QCOMPARE(t.alias, QString("fe80::1"));
    QCOMPARE(t.port, 0);
    // Host and user reach ProxyCommand's %h and %r: shell syntax is refused.
    for (const char* bad : {"", "@host", "host:", "host:99999", "host:x", "[::1", "a b", "user@", "h;reboot", "h$(id)",
                            "h`id`", "$(id)@h", "u'x@h", "a|b@h", "h/x"})
      QVERIFY_THROWS_EXCEPTION(SshError, SshTarget::parse(bad));
  }

  void knownHostsNames() {
    SshTarget t = SshTarget::parse("h:2200");
    QCOMPARE(t.knownHostsName(), QString("[h]:2200"));
    t = SshTarget::parse("h");
    t.applyDefaults();
    QCOMPARE(t.knownHostsName(), QString("h"));
    QCOMPARE(t.port, 22);
  }

  void patterns() {
    QVERIFY(SshConfig::hostMatches({"*.colab"}, "abc.colab"));
    QVERIFY(SshConfig::hostMatches({"gpu?"}, "GPU1"));
    QVERIFY(!SshConfig::hostMatches({"gpu?"}, "gpu12"));
    QVERIFY(!SshConfig::hostMatches({"*", "!bastion"}, "bastion"));
    QVERIFY(SshConfig::hostMatches({"*", "!bastion"}, "other"));
    QVERIFY(!SshConfig::hostMatches({"!x"}, "y"));  // a negation alone matches nothing
  }

  void resolvesLikeOpenSsh() {
    const SshConfig config = SshConfig::fromText(R"(
# global
Host colab-*
  HostName %h.trycloudflare.com
  User root
  ProxyCommand cloudflared access ssh --hostname %h --port %p # as written
  IdentityFile ~/.ssh/colab_key
Host gpu1 gpu2
  HostName=10.0.0.%n
  Port 2200
  User first
  IdentityFile "/keys/with space"
Match host whatever
  User ignored
Host *
  User fallback
  Port 2222
  IdentityFile /keys/default
  UserKnownHostsFile ~/kh
)");
    SshTarget t = SshTarget::parse("colab-abc");
    config.resolve(t);
    QCOMPARE(t.host, QString("colab-abc.trycloudflare.com"));
    QCOMPARE(t.user, QString("root"));
    QCOMPARE(t.port, 2222);
    QCOMPARE(t.proxyCommand,
             QString("cloudflared access ssh --hostname colab-abc.trycloudflare.com --port 2222 # as written"));
    QCOMPARE(t.identityFiles, QStringList({QDir::homePath() + "/.ssh/colab_key", "/keys/default"}));
    QCOMPARE(t.knownHostsFile, QDir::homePath() + "/kh");

    t = SshTarget::parse("bob@gpu2:22");  // the command line wins over the config
    config.resolve(t);
    QCOMPARE(t.user, QString("bob"));
    QCOMPARE(t.port, 22);
    QCOMPARE(t.identityFiles.first(), QString("/keys/with space"));
    QVERIFY(t.proxyCommand.isEmpty());

    t = SshTarget::parse("plain");
    t.proxyCommand = "socat - TCP:%h:%p,user=%r%%";
    SshConfig::fromText("").resolve(t);
    QCOMPARE(t.proxyCommand, QString("socat - TCP:plain:22,user=%1%").arg(t.user));
  }
};

QTEST_GUILESS_MAIN(SshTargetTest)
#include "ssh_target_test.moc"
