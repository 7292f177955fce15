// The lookup over the generated range table (unicode_class_table.cpp).
#include "trainer/tokenizer/unicode_classes.h"

#include <algorithm>

namespace traindeck {

CharClass classifyNonAscii(std::uint32_t codePoint) {
  const CodePointRange* begin = unicode_table::kRanges;
  const CodePointRange* end = begin + unicode_table::kRangeCount;
  // The first range that ends at or after the code point; it holds it when it starts at or before.
  const CodePointRange* range =
      std::lower_bound(begin, end, codePoint, [](const CodePointRange& r, std::uint32_t cp) { return r.last < cp; });
  if (range == end || range->first > codePoint) return CharClass::Other;
  return static_cast<CharClass>(range->charClass);
}

}  // namespace traindeck
