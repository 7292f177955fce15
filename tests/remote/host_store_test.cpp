// HostStore: saved hosts round-trip through QSettings (an INI file in a temporary directory),
// and entries that cannot be saved say why.
#include <QSettings>
#include <QTemporaryDir>
#include <QTest>

#include "host_store.h"

using namespace traindeck;

class HostStoreTest : public QObject {
  Q_OBJECT
 private slots:
  void roundTrip() {
    QTemporaryDir dir;
    const QList<HostEntry> hosts = {{.name = "colab",
                                     .spec = "root@colab-abc",
                                     .identityFile = "",
                                     .proxyCommand = "cloudflared access ssh --hostname %h"},
                                    {.name = "gpu box",
                                     .spec = "me@10.0.0.5:2222",
                                     .identityFile = "/home/me/.ssh/id_ed25519",
                                     .proxyCommand = ""}};
    {
      QSettings s(dir.filePath("t.ini"), QSettings::IniFormat);
      HostStore::save(s, hosts);
    }
    QSettings s(dir.filePath("t.ini"), QSettings::IniFormat);
    QCOMPARE(HostStore::load(s), hosts);
    HostStore::save(s, {hosts[1]});
    QCOMPARE(HostStore::load(s).size(), 1);
  }

  void problems() {
    // A host entry with a name and a spec only.
    const auto host = [](const QString& name, const QString& spec) {
      return HostEntry{.name = name, .spec = spec, .identityFile = {}, .proxyCommand = {}};
    };
    const QList<HostEntry> others = {host("a", "h")};
    QVERIFY(HostStore::problem(host("b", "u@h:22"), others).isEmpty());
    QVERIFY(HostStore::problem(host("", "h"), others).contains("name"));
    QVERIFY(HostStore::problem(host("a", "h"), others).contains("already"));
    QVERIFY(HostStore::problem(host("c", "h:0"), others).contains("port"));
  }
};

QTEST_GUILESS_MAIN(HostStoreTest)
#include "host_store_test.moc"
