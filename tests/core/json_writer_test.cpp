// The JSON writer: nesting, separators, escaping, and numbers that read back exactly.
#include <gtest/gtest.h>

#include "runlog/json_writer.h"

namespace traindeck {
namespace {

TEST(JsonWriter, NestedObjectsAndArrays) {
  JsonWriter j;
  j.beginObject().field("kind", "train").field("step", 3).key("xs").beginArray().value(1.5).value(false).null();
  j.endArray().key("o").beginObject().endObject().endObject();
  EXPECT_EQ(j.str(), R"({"kind":"train","step":3,"xs":[1.5,false,null],"o":{}})");
}

TEST(JsonWriter, EscapesAndNonFiniteNumbers) {
  EXPECT_EQ(jsonEscape("a\"b\\c\n\x01"), R"("a\"b\\c\n\u0001")");
  JsonWriter j;
  j.beginArray().value(std::numeric_limits<double>::quiet_NaN()).value(0.1).value(std::int64_t{1} << 53).endArray();
  EXPECT_EQ(j.str(), "[null,0.1,9007199254740992]");
}

}  // namespace
}  // namespace traindeck
