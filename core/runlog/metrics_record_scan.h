// One metrics.jsonl line as the few fields the app reads. scanFlatRecord() is a fast path for
// the flat objects the trainer writes; it accepts a strict subset of JSON and answers anything
// else (escapes, non-ASCII, nesting, odd numbers) with false, so the caller falls back to
// parseJson() and the result never differs from what the strict parser would say.
#pragma once

#include <cstdint>
#include <string_view>

#include "runlog/json_value.h"

namespace traindeck {

enum class FlatKey {
  Kind,
  Time,
  Step,
  Tokens,
  Loss,
  Lr,
  GradNorm,
  TokensPerSecond,
  StepMs,
  Mfu,
  ValLoss,
  Rank,
  Device,
  Util,
  MemUsed,
  MemTotal,
  PowerW,
  TempC,
  Level,
  Msg,
  Schema,
  RunId,
  Parameters,
  WorldSize,
  TokensPerStep,
  TotalSteps,
  StartStep,
  Count
};

// Trivial on purpose (no member initialisers): FlatValue{} is "absent", and the slots of a
// FlatRecord are not cleared per line.
struct FlatValue {
  enum class Type : std::uint8_t { Absent, Null, Bool, Number, String, Other };
  Type type;
  bool exactInteger;  // written as an integer that fits int64: `integer` holds it
  std::int64_t integer;
  double number;
  std::string_view text;  // strings: points into the line or into the parsed JsonValue

  double numberOr(double fallback) const { return type == Type::Number ? number : fallback; }
  std::int64_t integerOr(std::int64_t fallback) const { return exactInteger ? integer : fallback; }
};

// Only the slots named in `present` hold values: a record is made per line, and clearing all
// of them each time would cost more than the scan itself.
class FlatRecord {
 public:
  static_assert(static_cast<int>(FlatKey::Count) <= 32);
  const FlatValue& operator[](FlatKey key) const {
    static const FlatValue kAbsent{};
    return (m_present >> static_cast<int>(key)) & 1u ? m_fields[static_cast<int>(key)] : kAbsent;
  }
  void set(FlatKey key, const FlatValue& value) {
    m_fields[static_cast<int>(key)] = value;
    m_present |= 1u << static_cast<int>(key);
  }
  void clear() { m_present = 0; }
  // The slot of `key` (not FlatKey::Count), marked present, to be written in place.
  FlatValue& slot(FlatKey key) {
    m_present |= 1u << static_cast<int>(key);
    return m_fields[static_cast<int>(key)];
  }

 private:
  std::uint32_t m_present = 0;
  FlatValue m_fields[static_cast<int>(FlatKey::Count)];
};

// The slot of a key we read, or FlatKey::Count for one we ignore.
FlatKey flatKeyOf(std::string_view name);

// Fast path: true when `line` is a flat JSON object this scanner fully understood (then `out`
// holds its known fields; a repeated key: the last wins, as in parseJson()).
bool scanFlatRecord(std::string_view line, FlatRecord& out);

// Slow path: the known members of a parsed object (strings point into `object`).
void flatRecordFromJson(const JsonValue& object, FlatRecord& out);

}  // namespace traindeck
