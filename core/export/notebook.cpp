#include "export/notebook.h"

#include "runlog/json_writer.h"

namespace traindeck {

namespace {

// A cell's source as nbformat keeps it: its lines, each with its newline but the last.
void writeLines(JsonWriter& json, const std::string& text) {
  json.beginArray();
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t nl = text.find('\n', start);
    const std::size_t end = nl == std::string::npos ? text.size() : nl + 1;
    json.value(std::string_view(text).substr(start, end - start));
    start = end;
  }
  json.endArray();
}

}  // namespace

std::string notebookJson(const std::vector<NotebookCell>& cells, const std::string& accelerator) {
  JsonWriter json;
  json.beginObject().key("cells").beginArray();
  int index = 0;
  for (const NotebookCell& cell : cells) {
    const bool code = cell.kind == NotebookCell::Kind::Code;
    json.beginObject().field("cell_type", code ? "code" : "markdown").field("id", "cell-" + std::to_string(++index));
    json.key("metadata").beginObject().endObject();
    if (code) {
      json.key("execution_count").null();
      json.key("outputs").beginArray().endArray();
    }
    json.key("source");
    writeLines(json, cell.source);
    json.endObject();
  }
  json.endArray();
  json.key("metadata").beginObject();
  json.key("kernelspec").beginObject().field("display_name", "Python 3").field("language", "python");
  json.field("name", "python3").endObject();
  json.key("language_info").beginObject().field("name", "python").endObject();
  if (!accelerator.empty()) json.field("accelerator", accelerator);
  json.endObject();
  json.field("nbformat", 4).field("nbformat_minor", 5).endObject();
  return json.str() + "\n";
}

}  // namespace traindeck
