// An event filter on the view's viewport: item views announce entering an item
// (QAbstractItemView::entered) but not leaving one for empty space or leaving the view.
#include "item_hover.h"

#include <QAbstractItemView>
#include <QEvent>
#include <QMouseEvent>

namespace traindeck {

namespace {

class ItemHoverWatcher : public QObject {
 public:
  ItemHoverWatcher(QAbstractItemView* view, std::function<void(const QModelIndex&)> hovered)
      : QObject(view), m_view(view), m_hovered(std::move(hovered)) {}

  bool eventFilter(QObject* watched, QEvent* event) override {
    if (event->type() == QEvent::MouseMove)
      m_hovered(m_view->indexAt(static_cast<QMouseEvent*>(event)->position().toPoint()));
    else if (event->type() == QEvent::Leave)
      m_hovered({});
    return QObject::eventFilter(watched, event);
  }

 private:
  QAbstractItemView* m_view;
  std::function<void(const QModelIndex&)> m_hovered;
};

}  // namespace

void followItemHover(QAbstractItemView* view, std::function<void(const QModelIndex&)> hovered) {
  view->setMouseTracking(true);
  view->viewport()->setMouseTracking(true);
  view->viewport()->installEventFilter(new ItemHoverWatcher(view, std::move(hovered)));
}

}  // namespace traindeck
