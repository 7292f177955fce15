// The precompiled header of the widget targets (ui/, the app, tests/ui and the widget SSH
// tests, bench_monitor): parsed once in traindeck_ui, reused by the rest (REUSE_FROM).
// Qt Widgets and QCustomPlot are most of a page's compile time; nothing includes this by name.
#pragma once

#include "qt_core_pch.h"

#include <qcustomplot.h>
#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDialog>
#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSplitter>
#include <QTableView>
#include <QToolButton>
#include <QVBoxLayout>
#include <QWidget>
