// Marks are whole-line backgrounds, light enough that a selection stays readable over them.
#include "problem_marks.h"

#include <QTextBlock>
#include <QTextDocument>

#include "problem_colors.h"

namespace traindeck {

QList<QTextEdit::ExtraSelection> problemMarks(QTextDocument* text, const Diagnostics& problems) {
  QList<QTextEdit::ExtraSelection> marks;
  for (const Diagnostic& d : problems) {
    if (d.line <= 0) continue;
    QTextEdit::ExtraSelection mark;
    mark.cursor = QTextCursor(text->findBlockByNumber(d.line - 1));
    QColor fill = d.severity == Severity::Error ? kErrorColor : kWarningColor;
    fill.setAlpha(60);
    mark.format.setBackground(fill);
    mark.format.setProperty(QTextFormat::FullWidthSelection, true);
    mark.format.setToolTip(QString::fromStdString(d.message));
    marks << mark;
  }
  return marks;
}

}  // namespace traindeck
