// Follows the pointer over an item view: which index it is over (an invalid one over no item or
// once it has left), for views whose rows highlight something elsewhere (the Compare page's
// legend and summary highlight a run's lines on every chart).
#pragma once

#include <QModelIndex>
#include <functional>

class QAbstractItemView;

namespace traindeck {

// Calls `hovered` as the pointer moves over the view's items and when it leaves the view; the
// watcher lives as long as the view.
void followItemHover(QAbstractItemView* view, std::function<void(const QModelIndex&)> hovered);

}  // namespace traindeck
