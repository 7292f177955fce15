# ---- Keras 3 + KerasHub: what the GPU and TPU exports share ---------------------------------
# KerasHub's GPT2CausalLM, built from the config's sizes (or from a preset when model.init_from
# names one), trained with model.fit under the tf.distribute strategy that make_strategy(), in
# the part below, makes for this machine's devices.
#
# Generated from the documented API, not run by our tests: Debian has no TensorFlow or
# KerasHub, so TrainDeck's tests only check that this script compiles and names nothing
# undefined.
#
# The schedule, AdamW, the callback that writes the run folder and the fit loop are in the
# part below (keras_common), shared with the JAX export.
#
# Run: python3 THIS.py [--run-dir DIR] [--data DIR] [--val DIR].
#
# From above: CONFIG, PLACE, RunWriter; TokenStream, WindowLoader, command_line,
# stop_on_sigterm, total_steps, learning_rate; and the modules math, np, os and time. From the
# parts below: compile_model and fit (keras_common); FRAMEWORK, DEVICE_KIND and make_strategy().
import sys

os.environ["KERAS_BACKEND"] = "tensorflow"  # before Keras is imported: tf.distribute needs it

try:
    import tensorflow as tf
    import keras
    import keras_hub
except ImportError as missing:  # e.g. Colab's TPU image, which has neither: the notebook installs them
    sys.exit("%s: this script needs TensorFlow, Keras 3 and KerasHub: pip install tensorflow keras-hub; for a TPU, "
             "tensorflow-tpu of the same version V as tensorflow: pip install tensorflow==V tensorflow-tpu==V "
             "keras-hub --find-links=https://storage.googleapis.com/libtpu-tf-releases/index.html" % missing)

SYSTEM_SECONDS = 5.0
PROGRESS_SECONDS = 10.0


# ---- the data -----------------------------------------------------------------------------------

def dataset(stream, length, replicas, seed, shift, rounds):
    """Global batches of `rounds` rounds of one window per replica, in the native loader's order
    (WindowLoader with every rank's windows): the (rounds*replicas, T+1) tokens that the native
    trainer's ranks read together in one step of A micro-batches of B when rounds is A*B (core/
    trainer/data/token_loader.h). The strategy splits each among the replicas."""
    loader = WindowLoader(stream, rounds, length, None, replicas, seed, shift)  # checks the size now

    def batches():
        # The windows come from the memory-mapped shards through Python, so nothing is loaded
        # whole; that needs Python beside the accelerator, true of GPU machines and of TPU VMs
        # (every Colab and Kaggle TPU now), not of the old TPU Nodes.
        loader.restart()  # each pass over the dataset starts at the first window
        while True:
            yield loader.next_batch().astype(np.int32)  # (rounds*replicas, T+1)

    rows = tf.data.Dataset.from_generator(
        batches, output_signature=tf.TensorSpec((rounds * replicas, length + 1), tf.int32))

    def inputs_and_targets(b):  # (G, T+1) -> inputs (G, T), targets (G, T)
        ids = b[:, :-1]
        return {"token_ids": ids, "padding_mask": tf.ones_like(ids)}, b[:, 1:]

    return rows.map(inputs_and_targets)


def device_memory_in_use(device):
    """Bytes TensorFlow has allocated on `device` ("GPU:0"), or None where it cannot say."""
    try:
        return tf.config.experimental.get_memory_info(device)["current"]
    except (ValueError, RuntimeError):
        return None


# ---- the model ------------------------------------------------------------------------------------

def build_model(strategy, total):
    m = CONFIG["model"]
    with strategy.scope():
        source = m.get("init_from")
        if source:
            # A KerasHub preset name (gpt2_base_en), an hf:// or kaggle:// handle, or a folder
            # holding config.json and model.safetensors (Hugging Face's layout, which
            # `traindeck-train export` writes); for a model.safetensors file, its folder.
            if os.path.isfile(os.path.expanduser(source)):
                source = os.path.dirname(os.path.abspath(os.path.expanduser(source)))
            backbone = keras_hub.models.GPT2Backbone.from_preset(source, dropout=m["dropout"])
        else:
            backbone = keras_hub.models.GPT2Backbone(
                vocabulary_size=m["vocab_size"], num_layers=m["n_layer"], num_heads=m["n_head"],
                hidden_dim=m["n_embd"], intermediate_dim=4 * m["n_embd"], dropout=m["dropout"],
                max_sequence_length=m["n_positions"])
        model = keras_hub.models.GPT2CausalLM(backbone=backbone, preprocessor=None)
        compile_model(model, total)
    return model


def train(writer, train_spec, val_spec):
    m, st = CONFIG["model"], CONFIG["strategy"]
    strategy, names, memory, notes = make_strategy()
    replicas = strategy.num_replicas_in_sync
    writer.log("%s over %d replica(s) (%s); this place (%s) has %d %s(s)"
               % (type(strategy).__name__, replicas, ", ".join(names), PLACE["name"], PLACE["devices"], DEVICE_KIND))
    writer.log("run folder: %s" % writer.run_dir)
    if replicas != PLACE["devices"]:
        writer.event("warn", "%s should have %d %s(s); TensorFlow sees %d, so training uses %d"
                     % (PLACE["name"], PLACE["devices"], DEVICE_KIND, replicas, replicas))
    for note in notes:
        writer.event("warn", note)
    if CONFIG["checkpoint"].get("resume"):
        writer.event("warn", "checkpoint.resume is not supported by this export: training starts from step 0")

    B, T, accum = st["micro_batch"], m["block_size"], st["grad_accum"]
    if accum > 1:
        # Keras's gradient_accumulation_steps fails under a tf.distribute strategy
        # (keras-team/keras#20582): one batch of A*B sequences per replica is the same step.
        writer.event("warn", "Keras cannot accumulate gradients under %s: each replica takes grad_accum x "
                     "micro_batch = %d sequences at once (the same step, more memory)"
                     % (type(strategy).__name__, accum * B))
    precision = st.get("precision", "fp32")
    if DEVICE_KIND == "TPU" and precision == "fp16":
        precision = "bf16"
        writer.event("info", "TPUs compute in bf16, not fp16: mixed_bfloat16 is used")
    if precision in ("bf16", "fp16"):
        keras.mixed_precision.set_dtype_policy("mixed_bfloat16" if precision == "bf16" else "mixed_float16")
    keras.utils.set_random_seed(CONFIG["seed"])

    tokens_per_step = B * accum * T * replicas
    total = total_steps(tokens_per_step)
    tokenizer = CONFIG["data"].get("tokenizer", "")
    train_data = dataset(TokenStream(train_spec, "train", tokenizer), T, replicas, CONFIG["seed"], True,
                         B * accum).prefetch(tf.data.AUTOTUNE)
    every, eval_batches = CONFIG["eval"]["every"], CONFIG["eval"]["batches"]
    val_data = None
    if val_spec and every > 0:
        # The same first windows at every evaluation: exactly eval.batches batches, repeated.
        val_data = dataset(TokenStream(val_spec, "val", tokenizer), T, replicas, CONFIG["seed"], False,
                           B).take(eval_batches).cache().repeat()

    model = build_model(strategy, total)
    parameters = int(model.count_params())
    writer.begin(parameters, replicas, names, tokens_per_step, total)
    writer.log("training %d parameters on %d replica(s) for %s steps of %d tokens"
               % (parameters, replicas, total or "unlimited", tokens_per_step))
    steps = fit(model, writer, train_data, val_data, tokens_per_step, total, names, memory)
    try:  # Hugging Face's layout, where this KerasHub can write it for GPT-2 (0.27 and newer)
        os.makedirs(os.path.join(writer.run_dir, HF_EXPORT_DIR), exist_ok=True)
        model.backbone.export_to_transformers(os.path.join(writer.run_dir, HF_EXPORT_DIR))
    except Exception as error:
        writer.log("no Hugging Face export (%s); the weights are in keras/model.weights.h5" % error)
    writer.finish("finished", "finished %d steps" % steps, step=steps)


def main():
    args = command_line("Train the exported TrainDeck job with Keras 3 and KerasHub.")
    print("TrainDeck export: Keras 3 + KerasHub on %s, %d %s(s) there: %s"
          % (PLACE["name"], PLACE["devices"], DEVICE_KIND, PLACE.get("note", "")), flush=True)
    print("TensorFlow %s, Keras %s, KerasHub %s" % (tf.__version__, keras.__version__, keras_hub.__version__),
          file=sys.stderr)
    stop_on_sigterm()
    with RunWriter(args.run_dir, args.config, FRAMEWORK, PLACE) as writer:
        train(writer, args.train_spec, args.val_spec)

