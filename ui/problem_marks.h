// Problems marked in a text editor across their lines, red for an error and amber for a
// warning, each with its message as the tooltip: the job's YAML and the sweep's.
#pragma once

#include <QList>
#include <QTextEdit>

#include "config/diagnostic.h"

class QTextDocument;

namespace traindeck {

// One mark per problem that has a line.
QList<QTextEdit::ExtraSelection> problemMarks(QTextDocument* text, const Diagnostics& problems);

}  // namespace traindeck
