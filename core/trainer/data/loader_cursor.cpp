// LoaderCursor <-> JSON through core/runlog's writer and reader.
#include "trainer/data/loader_cursor.h"

#include <string>

#include "runlog/json_value.h"
#include "runlog/json_writer.h"
#include "trainer/data/data_error.h"

namespace traindeck {

void LoaderCursor::writeJson(JsonWriter& json) const {
  json.beginObject();
  json.field("epoch", epoch);
  json.field("position", position);
  json.field("tokens", tokens);
  json.endObject();
}

LoaderCursor LoaderCursor::fromJson(const JsonValue& value) {
  LoaderCursor cursor;
  const char* names[] = {"epoch", "position", "tokens"};
  std::int64_t* fields[] = {&cursor.epoch, &cursor.position, &cursor.tokens};
  for (int i = 0; i < 3; ++i) {
    const JsonValue* field = value.find(names[i]);
    if (!field || !field->isInteger() || field->integerOr(-1) < 0)
      throw DataError(std::string("the saved data cursor has no valid \"") + names[i] +
                      "\" (expected a non-negative integer); the checkpoint's state is damaged");
    *fields[i] = field->integerOr(0);
  }
  return cursor;
}

}  // namespace traindeck
