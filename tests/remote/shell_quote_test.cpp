// shellQuote against a real /bin/sh: hostile words come back byte for byte and run nothing.
// (remote.sshd repeats this through sshd and the remote login shell.)
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include "shell_quote.h"

using namespace traindeck;

class ShellQuoteTest : public QObject {
  Q_OBJECT
 private slots:
  void safeWordsStayReadable() {
    QCOMPARE(shellQuote("runs/gpt2-small_1.yaml"), QString("runs/gpt2-small_1.yaml"));
    QCOMPARE(shellQuote(""), QString("''"));
    QCOMPARE(shellQuote("a b"), QString("'a b'"));
    QCOMPARE(shellQuote("it's"), QString("'it'\\''s'"));
    QCOMPARE(shellJoin({"ls", "-l", "my dir"}), QString("ls -l 'my dir'"));
  }

  void hostileWordsRoundTripThroughSh() {
    QTemporaryDir dir;
    const QString marker = dir.filePath("pwned");
    const QStringList words = {"$(touch " + marker + ")",
                               "`touch " + marker + "`",
                               "'; touch " + marker + "; '",
                               "\"$(touch " + marker + ")\"",
                               "a;touch " + marker,
                               "line1\ntouch " + marker + "\nline3",
                               "  spaces  ",
                               "$HOME ${PATH} \\ * ? [a] ~ & | > <",
                               "ünïcødé ✓",
                               "-n"};
    for (const QString& w : words) {
      QProcess sh;
      sh.start("/bin/sh", {"-c", "printf '%s' " + shellQuote(w)});
      QVERIFY(sh.waitForFinished(5000));
      QCOMPARE(QString::fromUtf8(sh.readAllStandardOutput()), w);
    }
    QVERIFY2(!QFile::exists(marker), "a quoted word was executed");
  }
};

QTEST_GUILESS_MAIN(ShellQuoteTest)
#include "shell_quote_test.moc"
