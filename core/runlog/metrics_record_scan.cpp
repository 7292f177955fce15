// The fast path reads each byte once and copies nothing: keys are matched by length first,
// numbers go through std::from_chars. Every branch it does not handle returns false.
#include "runlog/metrics_record_scan.h"

#include <charconv>
#include <cstdint>
#include <cstring>
#include <system_error>

#include "runlog/metrics_keys.h"
#include "runlog/utf8.h"

namespace traindeck {

namespace key = metrics_key;

namespace {

// `n` (known to be as long as `k`) is `k`: a compare of a constant length, which the compiler
// inlines (string_view's == calls memcmp, and that call showed in profiles).
template <std::size_t N>
bool sameKey(std::string_view n, std::string_view k) {
  return std::memcmp(n.data(), k.data(), N) == 0;
}

}  // namespace

// Switched on the length first; a test checks that every key constant lands on its own FlatKey.
FlatKey flatKeyOf(std::string_view n) {
  switch (n.size()) {
    case 2:
      if (sameKey<2>(n, key::kLr)) return FlatKey::Lr;
      break;
    case 3:
      if (sameKey<3>(n, key::kMfu)) return FlatKey::Mfu;
      if (sameKey<3>(n, key::kMsg)) return FlatKey::Msg;
      break;
    case 4:
      if (sameKey<4>(n, key::kKind)) return FlatKey::Kind;
      if (sameKey<4>(n, key::kTime)) return FlatKey::Time;
      if (sameKey<4>(n, key::kStep)) return FlatKey::Step;
      if (sameKey<4>(n, key::kLoss)) return FlatKey::Loss;
      if (sameKey<4>(n, key::kRank)) return FlatKey::Rank;
      if (sameKey<4>(n, key::kUtil)) return FlatKey::Util;
      break;
    case 5:
      if (sameKey<5>(n, key::kLevel)) return FlatKey::Level;
      break;
    case 6:
      if (sameKey<6>(n, key::kTokens)) return FlatKey::Tokens;
      if (sameKey<6>(n, key::kDevice)) return FlatKey::Device;
      if (sameKey<6>(n, key::kTempC)) return FlatKey::TempC;
      if (sameKey<6>(n, key::kSchema)) return FlatKey::Schema;
      if (sameKey<6>(n, key::kRunId)) return FlatKey::RunId;
      break;
    case 7:
      if (sameKey<7>(n, key::kStepMs)) return FlatKey::StepMs;
      if (sameKey<7>(n, key::kPowerW)) return FlatKey::PowerW;
      break;
    case 8:
      if (sameKey<8>(n, key::kValLoss)) return FlatKey::ValLoss;
      if (sameKey<8>(n, key::kMemUsed)) return FlatKey::MemUsed;
      break;
    case 9:
      if (sameKey<9>(n, key::kGradNorm)) return FlatKey::GradNorm;
      if (sameKey<9>(n, key::kMemTotal)) return FlatKey::MemTotal;
      break;
    case 10:
      if (sameKey<10>(n, key::kParameters)) return FlatKey::Parameters;
      if (sameKey<10>(n, key::kWorldSize)) return FlatKey::WorldSize;
      if (sameKey<10>(n, key::kStartStep)) return FlatKey::StartStep;
      break;
    case 11:
      if (sameKey<11>(n, key::kTotalSteps)) return FlatKey::TotalSteps;
      break;
    case 12:
      if (sameKey<12>(n, key::kTokensPerSecond)) return FlatKey::TokensPerSecond;
      break;
    case 15:
      if (sameKey<15>(n, key::kTokensPerStep)) return FlatKey::TokensPerStep;
      break;
    default:
      break;
  }
  return FlatKey::Count;
}

namespace {

bool isSpace(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

class FlatScanner {
 public:
  explicit FlatScanner(std::string_view line) : m_p(line.data()), m_end(line.data() + line.size()) {}

  bool object(FlatRecord& out) {
    skipSpace();
    if (!consume('{')) return false;
    skipSpace();
    if (consume('}')) return atEnd();
    for (;;) {
      std::string_view name;
      if (!string(name)) return false;
      skipSpace();
      if (!consume(':')) return false;
      skipSpace();
      // Scanned into its slot (a value we ignore into a scratch one): no 40-byte copy a field.
      const FlatKey key = flatKeyOf(name);
      FlatValue ignored;
      if (!scalar(key == FlatKey::Count ? ignored : out.slot(key))) return false;
      skipSpace();
      if (consume(',')) {
        skipSpace();
        continue;
      }
      if (consume('}')) return atEnd();
      return false;
    }
  }

 private:
  bool atEnd() {
    skipSpace();
    return m_p == m_end;
  }
  void skipSpace() {
    while (m_p < m_end && isSpace(*m_p)) ++m_p;
  }
  bool consume(char c) {
    if (m_p < m_end && *m_p == c) {
      ++m_p;
      return true;
    }
    return false;
  }
  bool literal(std::string_view word) {
    if (static_cast<std::size_t>(m_end - m_p) < word.size() || std::string_view(m_p, word.size()) != word) return false;
    m_p += word.size();
    return true;
  }
  // Printable ASCII without escapes only; anything else is the slow path's business.
  bool string(std::string_view& out) {
    if (!consume('"')) return false;
    const char* start = m_p;
    while (m_p < m_end) {
      const auto c = static_cast<unsigned char>(*m_p);
      if (c == '"') {
        out = std::string_view(start, static_cast<std::size_t>(m_p - start));
        ++m_p;
        return true;
      }
      if (c == '\\' || c < 0x20 || c >= 0x80) return false;
      ++m_p;
    }
    return false;
  }
  bool scalar(FlatValue& v) {
    if (m_p >= m_end) return false;
    v.exactInteger = false;  // a slot is not cleared between lines
    switch (*m_p) {
      case '"':
        v.type = FlatValue::Type::String;
        return string(v.text);
      case 't':
      case 'f':
        v.type = FlatValue::Type::Bool;
        return literal(*m_p == 't' ? "true" : "false");
      case 'n':
        v.type = FlatValue::Type::Null;
        return literal("null");
      default:
        return number(v);
    }
  }
  // RFC 8259's number grammar, checked here so that from_chars' laxer rules (leading zeros,
  // "1.", a lone "-") never decide. Most numbers we write have at most 15 significant digits
  // and a small exponent: then mantissa and power of ten are exact doubles and one IEEE
  // multiplication or division rounds correctly (Clinger's fast path); others go to from_chars.
  bool number(FlatValue& v) {
    static constexpr double kPow10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                        1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
    constexpr std::uint64_t kExactLimit = std::uint64_t(1) << 53;
    const char* start = m_p;
    const bool negative = consume('-');
    if (m_p >= m_end) return false;
    std::uint64_t mantissa = 0;
    bool exact = true;  // mantissa holds every digit so far, below 2^53
    auto digit = [&](char c) {
      if (!exact) return;
      mantissa = mantissa * 10 + static_cast<std::uint64_t>(c - '0');
      exact = mantissa < kExactLimit;
    };
    if (*m_p == '0') {
      ++m_p;
    } else if (isAsciiDigit(*m_p)) {
      while (m_p < m_end && isAsciiDigit(*m_p)) digit(*m_p++);
    } else {
      return false;
    }
    bool integer = true;
    int exponent = 0;
    if (consume('.')) {
      integer = false;
      if (m_p >= m_end || !isAsciiDigit(*m_p)) return false;
      while (m_p < m_end && isAsciiDigit(*m_p)) {
        digit(*m_p++);
        --exponent;
      }
    }
    if (m_p < m_end && (*m_p == 'e' || *m_p == 'E')) {
      integer = false;
      ++m_p;
      bool negativeExponent = false;
      if (m_p < m_end && (*m_p == '+' || *m_p == '-')) negativeExponent = *m_p++ == '-';
      if (m_p >= m_end || !isAsciiDigit(*m_p)) return false;
      int written = 0;
      while (m_p < m_end && isAsciiDigit(*m_p)) {
        if (written < 100000) written = written * 10 + (*m_p - '0');
        ++m_p;
      }
      exponent += negativeExponent ? -written : written;
    }
    v.type = FlatValue::Type::Number;
    if (integer && exact) {  // below 2^53: the digits read are the value
      v.integer = negative ? -static_cast<std::int64_t>(mantissa) : static_cast<std::int64_t>(mantissa);
      v.exactInteger = true;
      v.number = (v.integer == 0 && negative) ? -0.0 : static_cast<double>(v.integer);
      return true;
    }
    if (integer) {
      const auto r = std::from_chars(start, m_p, v.integer);
      if (r.ec == std::errc() && r.ptr == m_p) {
        v.exactInteger = true;
        // int64 -> double rounds to nearest like a correctly rounded decimal parse.
        v.number = (v.integer == 0 && negative) ? -0.0 : static_cast<double>(v.integer);
        return true;
      }
    }
    if (exact && exponent >= -22 && exponent <= 22) {
      const double m = static_cast<double>(mantissa);
      const double value = exponent < 0 ? m / kPow10[-exponent] : m * kPow10[exponent];
      v.number = negative ? -value : value;
      return true;
    }
    const auto r = std::from_chars(start, m_p, v.number);
    return r.ec == std::errc() && r.ptr == m_p;  // out of range: let parseJson() decide
  }

  const char* m_p;
  const char* m_end;
};

}  // namespace

bool scanFlatRecord(std::string_view line, FlatRecord& out) {
  return FlatScanner(line).object(out);
}

void flatRecordFromJson(const JsonValue& object, FlatRecord& out) {
  for (const auto& [name, value] : object.members()) {
    const FlatKey key = flatKeyOf(name);
    if (key == FlatKey::Count) continue;
    FlatValue v{};
    switch (value.type()) {
      case JsonValue::Type::Null:
        v.type = FlatValue::Type::Null;
        break;
      case JsonValue::Type::Bool:
        v.type = FlatValue::Type::Bool;
        break;
      case JsonValue::Type::Number:
        v.type = FlatValue::Type::Number;
        v.number = value.numberOr(0);
        v.exactInteger = value.isInteger();
        v.integer = value.integerOr(0);
        break;
      case JsonValue::Type::String:
        v.type = FlatValue::Type::String;
        v.text = value.text();
        break;
      default:
        v.type = FlatValue::Type::Other;
        break;
    }
    out.set(key, v);
  }
}

}  // namespace traindeck
