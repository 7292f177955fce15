// HostsDialog: the saved SSH hosts (add, add a Colab runtime, edit, remove) and a connection test that does what
// `traindeck --check-ssh` does. The test runs on its own thread (libssh blocks); the host key
// prompt and password prompts it needs are shown on the GUI thread while that thread waits.
// Closing the dialog never waits for a test: the thread finishes on its own (libssh's connect
// may block for its timeout) and its prompts and result find the dialog gone.
#pragma once

#include <QDialog>
#include <QList>
#include <QSettings>
#include <atomic>
#include <memory>

#include "host_store.h"

class QLabel;
class QLineEdit;
class QListWidget;
class QPushButton;

namespace traindeck {

class HostsDialog : public QDialog {
  Q_OBJECT
 public:
  // Hosts are read from and saved to settings (see HostStore).
  explicit HostsDialog(QSettings& settings, QWidget* parent = nullptr);
  ~HostsDialog() override;

  const QList<HostEntry>& hosts() const { return m_hosts; }
  // traindeck-remote.sh's text: with it, Test also asks the host what it has (saved with it).
  void setProbeScript(const QByteArray& script) { m_probeScript = script; }
  bool isTesting() const { return m_testing; }

 public slots:
  void addHost();
  void removeHost();
  void testHost();

 signals:
  void testFinished(bool ok, const QString& line);
  void hostProbed(const QString& spec);

 private:
  void addEntry(HostEntry entry);  // appended (its name made unique), saved and selected
  void showHost(int row);
  void storeEdits();
  void save();

  QSettings& m_settings;
  QList<HostEntry> m_hosts;
  QListWidget* m_list;
  QLineEdit* m_name;
  QLineEdit* m_spec;
  QLineEdit* m_identity;
  QLineEdit* m_proxy;
  QLabel* m_problem;
  QLabel* m_result;
  QLabel* m_probe;
  QPushButton* m_testButton;
  bool m_testing = false;
  bool m_loading = false;
  QByteArray m_probeScript;
  // Shared with the test thread, which may outlive the dialog: true once the dialog closes.
  std::shared_ptr<std::atomic<bool>> m_closing = std::make_shared<std::atomic<bool>>(false);
};

}  // namespace traindeck
