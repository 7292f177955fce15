// HostsDialog: the saved SSH hosts (add, edit, remove) and a connection test that does what
// `traindeck --check-ssh` does. The test runs on its own thread (libssh blocks); the host key
// prompt and password prompts it needs are shown on the GUI thread while that thread waits.
#pragma once

#include <QDialog>
#include <QList>
#include <QSettings>
#include <atomic>

#include "host_store.h"

class QLabel;
class QLineEdit;
class QListWidget;
class QPushButton;
class QThread;

namespace traindeck {

class HostsDialog : public QDialog {
  Q_OBJECT
 public:
  // Hosts are read from and saved to settings (see HostStore).
  explicit HostsDialog(QSettings& settings, QWidget* parent = nullptr);
  ~HostsDialog() override;

  const QList<HostEntry>& hosts() const { return m_hosts; }
  bool isTesting() const { return m_testThread != nullptr; }

 public slots:
  void addHost();
  void removeHost();
  void testHost();

 signals:
  void testFinished(bool ok, const QString& line);

 private:
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
  QPushButton* m_testButton;
  QThread* m_testThread = nullptr;
  bool m_loading = false;
  std::atomic<bool> m_closing{false};
};

}  // namespace traindeck
