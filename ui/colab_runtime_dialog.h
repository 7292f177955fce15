// ColabRuntimeDialog: a Colab runtime as a host (app/remote/colab_access.h). It says first what
// Colab's terms allow, then offers both ways in: the Colab CLI (`colab ssh --proxy-mode`) or a
// notebook cell to run in Colab (copied, or saved as a notebook) whose printed hostname is
// pasted back. Without a key it offers to make an ed25519 key for TrainDeck, asking first.
#pragma once

#include <QDialog>

#include "colab_access.h"
#include "host_store.h"

class QComboBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QPushButton;
class QTabWidget;

namespace traindeck {

class ColabRuntimeDialog : public QDialog {
  Q_OBJECT
 public:
  explicit ColabRuntimeDialog(QWidget* parent = nullptr);

  // The host the current tab makes; meaningful when problem() is empty.
  HostEntry host() const;
  QString problem() const;  // what to fix first, or empty
  QString cell() const;     // the notebook cell for the key file's public key; empty without one

 public slots:
  void copyCell();
  void saveNotebook();
  void makeKey();

 private:
  QString publicKey() const;
  ColabCliRuntime cliRuntime() const;  // the Colab CLI tab's fields
  void updateProblem();

  QLineEdit* m_key;
  QTabWidget* m_ways;
  QLineEdit* m_session;
  QComboBox* m_accelerator;
  QLineEdit* m_colab;
  QLineEdit* m_hostname;
  QLabel* m_problem;
  QPushButton* m_ok;
};

}  // namespace traindeck
