// Name mapping: ours are GPT2LMHeadModel's ("transformer.h.0.attn.c_attn.weight"); a GPT2Model
// file lacks "transformer."; "lm_head.weight" is the tied embedding and is not read separately.
#include "hf_weights.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "runlog/json_value.h"
#include "runlog/json_writer.h"
#include "train/checkpointer.h"

namespace traindeck {

namespace fs = std::filesystem;

void loadHuggingFaceWeights(Gpt2& model, const std::string& path) {
  const std::string file = fs::is_directory(path) ? (fs::path(path) / "model.safetensors").string() : path;
  std::map<std::string, torch::Tensor> stored;
  try {
    stored = readTensorFile(file);
  } catch (const std::exception& e) {
    throw std::runtime_error("cannot read weights from " + file + ": " + e.what());
  }
  copyWeights(model, stored, file);
}

namespace {

// `stored`'s tensor for the model's weight `name` of `sizes`, or a sentence saying why there is none.
const torch::Tensor& storedWeight(const std::map<std::string, torch::Tensor>& stored, const std::string& name,
                                  c10::IntArrayRef sizes, const std::string& source) {
  auto it = stored.find(name);
  if (it == stored.end()) it = stored.find(name.substr(std::string("transformer.").size()));
  if (it == stored.end()) throw std::runtime_error(source + " has no weight " + name + ": is it a GPT-2 model?");
  if (it->second.sizes() != sizes) {
    std::ostringstream why;
    why << source << ": " << name << " is " << it->second.sizes() << " there but " << sizes
        << " in this model; set the model sizes (or model.preset) to the checkpoint's";
    throw std::runtime_error(why.str());
  }
  return it->second;
}

}  // namespace

void checkWeights(Gpt2& model, const std::map<std::string, torch::Tensor>& stored, const std::string& source) {
  for (auto& [name, tensor] : model->namedWeights()) storedWeight(stored, name, tensor.sizes(), source);
}

void copyWeights(Gpt2& model, const std::map<std::string, torch::Tensor>& stored, const std::string& source) {
  torch::NoGradGuard noGrad;
  for (auto& [name, tensor] : model->namedWeights())
    tensor.copy_(storedWeight(stored, name, tensor.sizes(), source).to(tensor.scalar_type()));
}

ModelConfig readHuggingFaceConfig(const std::string& configJsonPath) {
  std::ifstream in(configJsonPath);
  if (!in) throw std::runtime_error("cannot open " + configJsonPath);
  std::stringstream text;
  text << in.rdbuf();
  const JsonParseResult parsed = parseJson(text.str());
  if (!parsed.ok() || !parsed.value.isObject())
    throw std::runtime_error(configJsonPath + " is not a JSON object" + (parsed.ok() ? "" : ": " + parsed.error));
  const JsonValue& c = parsed.value;
  if (c.stringOr("model_type", "gpt2") != "gpt2")
    throw std::runtime_error(configJsonPath + " describes a " + c.stringOr("model_type", "") + " model, not gpt2");
  ModelConfig m;
  m.n_layer = c.integerOr("n_layer", m.n_layer);
  m.n_head = c.integerOr("n_head", m.n_head);
  m.n_embd = c.integerOr("n_embd", m.n_embd);
  m.n_positions = c.integerOr("n_positions", m.n_positions);
  m.block_size = m.n_positions;
  m.vocab_size = c.integerOr("vocab_size", m.vocab_size);
  m.dropout = c.numberOr("resid_pdrop", 0.0);
  if (m.n_layer <= 0 || m.n_head <= 0 || m.n_embd <= 0 || m.n_embd % m.n_head != 0 || m.vocab_size <= 0)
    throw std::runtime_error(configJsonPath + " has sizes that make no GPT-2 model");
  return m;
}

std::string huggingFaceConfigJson(const ModelConfig& m, std::int64_t endOfText) {
  JsonWriter j;
  j.beginObject();
  j.key("architectures").beginArray().value("GPT2LMHeadModel").endArray();
  j.field("model_type", "gpt2").field("activation_function", "gelu_new");
  j.field("vocab_size", m.vocab_size).field("n_positions", m.n_positions).field("n_ctx", m.n_positions);
  j.field("n_embd", m.n_embd).field("n_layer", m.n_layer).field("n_head", m.n_head).key("n_inner").null();
  j.field("resid_pdrop", m.dropout).field("embd_pdrop", m.dropout).field("attn_pdrop", m.dropout);
  j.field("layer_norm_epsilon", 1e-5).field("initializer_range", 0.02);
  j.field("bos_token_id", endOfText).field("eos_token_id", endOfText);
  j.field("scale_attn_weights", true).field("scale_attn_by_inverse_layer_idx", false);
  j.field("reorder_and_upcast_attn", false).field("use_cache", true).field("tie_word_embeddings", true);
  j.field("summary_type", "cls_index").field("summary_use_proj", true).key("summary_activation").null();
  j.field("summary_proj_to_labels", true).field("summary_first_dropout", 0.1);
  j.field("torch_dtype", "float32");
  j.endObject();
  return j.str() + "\n";
}

}  // namespace traindeck
