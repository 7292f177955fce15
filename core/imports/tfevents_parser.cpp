// Field order on the wire is not relied on: an Event's step and time may follow its summary.
#include "imports/tfevents_parser.h"

#include <cstring>
#include <unordered_map>
#include <vector>

#include "imports/hparams_plugin.h"
#include "imports/proto_reader.h"

namespace traindeck {

namespace {

constexpr std::uint64_t kDtFloat = 1, kDtDouble = 2;

// A TensorProto holding exactly one float or double, as a double.
bool tensorScalar(std::string_view tensor, double& out) {
  ProtoReader r(tensor);
  std::uint64_t dtype = 0;
  std::int64_t elements = 1;
  int values = 0;
  bool contentSeen = false;
  std::string_view content;
  while (r.next()) {
    switch (r.field()) {
      case 1:
        if (r.wire() == ProtoReader::Wire::Varint) dtype = r.varint();
        break;
      case 2: {  // TensorShapeProto{dim=2 repeated Dim{size=1}}
        if (r.wire() != ProtoReader::Wire::Bytes) return false;
        ProtoReader shape(r.bytes());
        while (shape.next()) {
          if (shape.field() != 2 || shape.wire() != ProtoReader::Wire::Bytes) continue;
          ProtoReader dim(shape.bytes());
          while (dim.next())
            if (dim.field() == 1 && dim.wire() == ProtoReader::Wire::Varint) elements *= dim.int64() == 1 ? 1 : 0;
          if (dim.failed()) return false;
        }
        if (shape.failed()) return false;
        break;
      }
      case 4:
        if (r.wire() != ProtoReader::Wire::Bytes) return false;
        content = r.bytes();
        contentSeen = true;
        break;
      case 5:  // float_val: packed or one by one
        if (r.wire() == ProtoReader::Wire::Fixed32) {
          out = r.float32();
          ++values;
        } else if (r.wire() == ProtoReader::Wire::Bytes && r.bytes().size() % 4 == 0) {
          for (std::size_t i = 0; i < r.bytes().size(); i += 4) {
            float f = 0;
            std::memcpy(&f, r.bytes().data() + i, 4);
            out = f;
            ++values;
          }
        } else {
          return false;
        }
        break;
      case 6:  // double_val
        if (r.wire() == ProtoReader::Wire::Fixed64) {
          out = r.float64();
          ++values;
        } else if (r.wire() == ProtoReader::Wire::Bytes && r.bytes().size() % 8 == 0) {
          for (std::size_t i = 0; i < r.bytes().size(); i += 8) {
            std::memcpy(&out, r.bytes().data() + i, 8);
            ++values;
          }
        } else {
          return false;
        }
        break;
      default:
        break;
    }
  }
  if (r.failed() || elements != 1) return false;
  if (contentSeen) {
    if (dtype == kDtFloat && content.size() == 4) {
      float f = 0;
      std::memcpy(&f, content.data(), 4);
      out = f;
      return true;
    }
    if (dtype == kDtDouble && content.size() == 8) {
      std::memcpy(&out, content.data(), 8);
      return true;
    }
    return false;
  }
  return (dtype == kDtFloat || dtype == kDtDouble || dtype == 0) && values == 1;
}

// SummaryMetadata{plugin_data=1 {plugin_name=1, content=2}}: the plugin a summary belongs to.
bool pluginName(std::string_view metadata, std::string_view& name, std::string_view& content) {
  ProtoReader m(metadata);
  while (m.next()) {
    if (m.field() != 1 || m.wire() != ProtoReader::Wire::Bytes) continue;
    ProtoReader data(m.bytes());
    while (data.next()) {
      if (data.field() == 1 && data.wire() == ProtoReader::Wire::Bytes) name = data.bytes();
      if (data.field() == 2 && data.wire() == ProtoReader::Wire::Bytes) content = data.bytes();
    }
    if (data.failed()) return false;
  }
  return !m.failed();
}

}  // namespace

bool parseTfEvent(std::string_view event, const std::function<void(const TfScalar&)>& onScalar,
                  const std::function<void(std::string_view, std::string)>& onHparam) {
  ProtoReader r(event);
  TfScalar scalar;
  std::vector<std::string_view> summaries;
  while (r.next()) {
    if (r.field() == 1 && r.wire() == ProtoReader::Wire::Fixed64) scalar.wallTime = r.float64();
    if (r.field() == 2 && r.wire() == ProtoReader::Wire::Varint) scalar.step = r.int64();
    if (r.field() == 5 && r.wire() == ProtoReader::Wire::Bytes) summaries.push_back(r.bytes());
  }
  if (r.failed()) return false;
  for (const std::string_view summary : summaries) {
    ProtoReader s(summary);
    while (s.next()) {
      if (s.field() != 1 || s.wire() != ProtoReader::Wire::Bytes) continue;
      ProtoReader v(s.bytes());
      bool hasValue = false;
      std::string_view tag, tensor, plugin, content;
      while (v.next()) {
        if (v.field() == 1 && v.wire() == ProtoReader::Wire::Bytes) tag = v.bytes();
        if (v.field() == 2 && v.wire() == ProtoReader::Wire::Fixed32) {
          scalar.value = v.float32();
          hasValue = true;
        }
        if (v.field() == 8 && v.wire() == ProtoReader::Wire::Bytes) tensor = v.bytes();
        if (v.field() == 9 && v.wire() == ProtoReader::Wire::Bytes && !pluginName(v.bytes(), plugin, content))
          return false;
      }
      if (v.failed()) return false;
      if (plugin == "hparams") {  // its content is the plugin's own: damage there is not the Event's
        if (onHparam) parseHparamsPluginData(content, onHparam);
        continue;
      }
      // A one-element tensor of another plugin (hparams' session markers, say) is not a scalar.
      if (!hasValue && !tensor.empty() && (plugin.empty() || plugin == "scalars"))
        hasValue = tensorScalar(tensor, scalar.value);
      if (!hasValue || tag.empty()) continue;
      scalar.tag = tag;
      onScalar(scalar);
    }
    if (s.failed()) return false;
  }
  return true;
}

FramedScan readTfEventsBytes(std::string_view bytes, const std::string& label, const std::string& tagPrefix,
                             RunBuilder& into) {
  std::string name;
  int malformed = 0, hparams = 0;
  std::size_t firstMalformed = 0, scalars = 0;
  // A tag's step going back: another session in the same file (a writer reopened in append mode
  // or a loop started over). Said once, with the first place.
  std::unordered_map<std::string, std::int64_t> lastStep;
  std::string restart;
  std::size_t at = 0;
  FramedScan scan = scanTfRecords(bytes, [&](std::string_view data, std::size_t offset) {
    at = offset;
    const bool ok = parseTfEvent(
        data,
        [&](const TfScalar& s) {
          name.assign(tagPrefix).append(s.tag);
          const auto [it, added] = lastStep.try_emplace(name, s.step);
          if (!added && s.step < it->second && restart.empty())
            restart = "the step counter starts again at byte " + std::to_string(at) + " (" + name + " at step " +
                      std::to_string(s.step) + " after step " + std::to_string(it->second) +
                      "): a later session in the same file, read on after the first";
          it->second = s.step;
          into.add(name, s.step, s.wallTime, s.value);
          ++scalars;
        },
        [&](std::string_view key, std::string value) {
          into.setConfig(std::string(key), std::move(value));
          ++hparams;
        });
    if (!ok && malformed++ == 0) firstMalformed = offset;
  });
  if (malformed > 0)
    into.addProblem(label + ": " + std::to_string(malformed) + " record(s) from byte " +
                    std::to_string(firstMalformed) + " are not Event messages; skipped");
  if (!scan.ok())
    into.addProblem(label + ": " + scan.error + "; the " + std::to_string(scan.records) +
                    " records before it are read, the rest of the file is skipped");
  if (!restart.empty()) into.addProblem(label + ": " + restart);
  // The first record of every file is its file_version event: more than that and no scalar.
  if (scalars == 0 && hparams == 0 && scan.records > 1 && scan.ok())
    into.addProblem(label + ": " + std::to_string(scan.records) +
                    " records and no scalar among them (text, images, histograms or other plugins' data "
                    "only): nothing in it to chart");
  return scan;
}

}  // namespace traindeck
