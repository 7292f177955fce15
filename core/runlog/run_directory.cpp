// run.json is small and rewritten whole (temp file + rename), so a reader never sees half.
#include "run_directory.h"

#include <unistd.h>

#include <cstdio>
#include <ctime>
#include <fstream>
#include <sstream>

#include "atomic_file.h"
#include "json_value.h"
#include "json_writer.h"
#include "utf8.h"

namespace traindeck {

const char* toString(RunStatus status) {
  switch (status) {
    case RunStatus::Starting:
      return "starting";
    case RunStatus::Running:
      return "running";
    case RunStatus::Finished:
      return "finished";
    case RunStatus::Failed:
      return "failed";
    case RunStatus::Stopped:
      return "stopped";
    case RunStatus::Killed:
      return "killed";
    case RunStatus::Requeued:
      return "requeued";
  }
  return "unknown";
}

std::optional<RunStatus> runStatusFromString(std::string_view text) {
  for (const RunStatus s : {RunStatus::Starting, RunStatus::Running, RunStatus::Finished, RunStatus::Failed,
                            RunStatus::Stopped, RunStatus::Killed, RunStatus::Requeued})
    if (text == toString(s)) return s;
  return std::nullopt;
}

const char* toString(EndCause cause) {
  switch (cause) {
    case EndCause::None:
      return "";
    case EndCause::Asked:
      return "asked";
    case EndCause::TimeLimit:
      return "time_limit";
    case EndCause::Preempted:
      return "preempted";
    case EndCause::Cancelled:
      return "cancelled";
    case EndCause::NodeFailure:
      return "node_failure";
  }
  return "";
}

EndCause endCauseFromString(std::string_view text) {
  for (const EndCause c :
       {EndCause::Asked, EndCause::TimeLimit, EndCause::Preempted, EndCause::Cancelled, EndCause::NodeFailure})
    if (text == toString(c)) return c;
  return EndCause::None;
}

const char* endCauseWords(EndCause cause) {
  switch (cause) {
    case EndCause::None:
      return "";
    case EndCause::Asked:
      return "asked by you";
    case EndCause::TimeLimit:
      return "time limit reached";
    case EndCause::Preempted:
      return "preempted, requeued";
    case EndCause::Cancelled:
      return "cancelled through Slurm";
    case EndCause::NodeFailure:
      return "a node failed";
  }
  return "";
}

namespace {
std::tm utc(std::chrono::system_clock::time_point when) {
  const std::time_t t = std::chrono::system_clock::to_time_t(when);
  std::tm out{};
  gmtime_r(&t, &out);
  return out;
}
}  // namespace

std::string makeRunId(std::chrono::system_clock::time_point when, const std::string& slug) {
  const std::tm tm = utc(when);
  char buffer[32];
  std::strftime(buffer, sizeof buffer, "%Y%m%d-%H%M%S", &tm);
  return slug.empty() ? std::string(buffer) : std::string(buffer) + "-" + slug;
}

namespace {
// Whether a code point may stand in a slug: a letter, digit or combining mark of some script, as
// far as can be told without Unicode's tables: what is not space, punctuation, a symbol, an emoji,
// a control, a format or private-use character by its block.
bool isSlugCodePoint(char32_t c) {
  if (c < 0x80) return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
  struct Range {
    char32_t first, last;
  };
  static constexpr Range kNotWords[] = {
      {0x80, 0xBF},         // C1 controls, Latin-1 signs and punctuation
      {0xD7, 0xD7},         // ×
      {0xF7, 0xF7},         // ÷
      {0x2000, 0x2BFF},     // spaces, punctuation, currency, arrows, maths, shapes, dingbats
      {0x2E00, 0x2E7F},     // more punctuation
      {0x3000, 0x3004},     // CJK space and punctuation (々〆〇 are letters)
      {0x3008, 0x303F},     // CJK brackets and marks
      {0xD800, 0xF8FF},     // surrogates, private use
      {0xFE00, 0xFE6F},     // variation selectors, vertical and small forms
      {0xFEFF, 0xFEFF},     // byte order mark
      {0xFF00, 0xFF0F},     // fullwidth punctuation
      {0xFF1A, 0xFF20},     // fullwidth punctuation
      {0xFF3B, 0xFF40},     // fullwidth punctuation
      {0xFF5B, 0xFF65},     // fullwidth punctuation
      {0xFFE0, 0xFFFF},     // fullwidth signs, specials
      {0x1F000, 0x1FBFF},   // emoji and other pictographs
      {0xE0000, 0x10FFFF},  // tags, private use
  };
  for (const Range& r : kNotWords)
    if (c >= r.first && c <= r.last) return false;
  return true;
}
}  // namespace

std::string runSlug(std::string_view name) {
  std::string slug;
  for (std::string_view rest = name; !rest.empty();) {
    const Utf8Sequence seq = decodeUtf8(rest);
    const std::string_view bytes = rest.substr(0, seq.length);
    rest.remove_prefix(seq.length);
    if (seq.valid && isSlugCodePoint(seq.codePoint)) {
      if (slug.size() + bytes.size() > kRunSlugBytes) break;
      for (const char ch : bytes) slug += (ch >= 'A' && ch <= 'Z') ? static_cast<char>(ch - 'A' + 'a') : ch;
    } else if (!slug.empty() && slug.back() != '-') {
      slug += '-';
    }
    if (slug.size() >= kRunSlugBytes) break;
  }
  while (!slug.empty() && slug.back() == '-') slug.pop_back();
  if (!slug.empty() || name.empty()) return slug;
  std::uint32_t hash = 2166136261u;  // FNV-1a: the same name, the same short id
  for (const char ch : name) hash = (hash ^ static_cast<unsigned char>(ch)) * 16777619u;
  char text[16];
  std::snprintf(text, sizeof text, "run-%08x", static_cast<unsigned>(hash));
  return text;
}

std::string isoTimeUtc(std::chrono::system_clock::time_point when) {
  const std::tm tm = utc(when);
  char buffer[32];
  std::strftime(buffer, sizeof buffer, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buffer;
}

double unixSeconds(std::chrono::system_clock::time_point when) {
  return std::chrono::duration<double>(when.time_since_epoch()).count();
}

std::string hostName() {
  char buffer[256] = {};
  if (::gethostname(buffer, sizeof buffer - 1) != 0) return "unknown";
  return buffer;
}

std::string runInfoJson(const RunInfo& info) {
  using namespace run_json;
  JsonWriter j;
  j.beginObject();
  j.field(kId, info.id).field(kName, info.name).field(kCreated, info.created).field(kHost, info.host);
  j.field(kTrainerVersion, info.trainerVersion).field(kWorldSize, info.worldSize);
  j.key(kDevices).beginArray();
  for (const std::string& d : info.devices) j.value(d);
  j.endArray();
  j.field(kStatus, toString(info.status)).field(kExitReason, info.exitReason);
  if (info.endCause != EndCause::None) j.field(kEndCause, toString(info.endCause));
  if (info.failedRank >= 0) j.field(kFailedRank, info.failedRank);
  j.field(kSupervisorPid, info.supervisorPid);
  j.key(kRankPids).beginArray();
  for (const int pid : info.rankPids) j.value(pid);
  j.endArray();
  j.field(kStep, info.step);
  j.endObject();
  return j.str() + "\n";
}

std::string writeRunInfo(const RunPaths& paths, const RunInfo& info) {
  return writeFileAtomically(paths.runJson(), runInfoJson(info));
}

RunInfoReadResult parseRunInfo(std::string_view json) {
  using namespace run_json;
  RunInfoReadResult result;
  const JsonParseResult parsed = parseJson(json);
  if (!parsed.ok() || !parsed.value.isObject()) {
    result.error = "run.json is not a JSON object" + (parsed.ok() ? std::string() : ": " + parsed.error);
    return result;
  }
  const JsonValue& v = parsed.value;
  RunInfo& info = result.info;
  info.id = v.stringOr(kId, "");
  info.name = v.stringOr(kName, "");
  info.created = v.stringOr(kCreated, "");
  info.host = v.stringOr(kHost, "");
  info.trainerVersion = v.stringOr(kTrainerVersion, "");
  info.worldSize = static_cast<int>(v.integerOr(kWorldSize, 1));
  if (const JsonValue* devices = v.find(kDevices); devices && devices->isArray())
    for (const JsonValue& d : devices->items()) info.devices.push_back(d.stringOr(""));
  info.exitReason = v.stringOr(kExitReason, "");
  info.endCause = endCauseFromString(v.stringOr(kEndCause, ""));
  info.failedRank = static_cast<int>(v.integerOr(kFailedRank, -1));
  info.supervisorPid = static_cast<int>(v.integerOr(kSupervisorPid, 0));
  if (const JsonValue* pids = v.find(kRankPids); pids && pids->isArray())
    for (const JsonValue& pid : pids->items()) info.rankPids.push_back(static_cast<int>(pid.integerOr(0)));
  info.step = v.integerOr(kStep, 0);
  const std::string status = v.stringOr(kStatus, "");
  if (const auto known = runStatusFromString(status))
    info.status = *known;
  else
    result.error = "run.json has an unknown status '" + status + "'";
  return result;
}

RunInfoReadResult readRunInfo(const RunPaths& paths) {
  std::ifstream in(paths.runJson(), std::ios::binary);
  if (!in) return {RunInfo{}, "cannot open " + paths.runJson()};
  std::ostringstream text;
  text << in.rdbuf();
  return parseRunInfo(text.str());
}

}  // namespace traindeck
