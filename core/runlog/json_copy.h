// A parsed JsonValue written back out as JSON text: the same types, numbers that read back the
// same ("-0" stays -0), strings escaped as JsonWriter escapes them, members in their order.
#pragma once

#include <string>

#include "json_value.h"
#include "json_writer.h"

namespace traindeck {

void writeJsonValue(JsonWriter& out, const JsonValue& value);
std::string jsonText(const JsonValue& value);

}  // namespace traindeck
