# ---- Keras 3 on JAX: GPT-2, the data and the run ---------------------------------------------------
# GPT-2 small's shapes in plain Keras layers (no KerasHub, which the TPU images lack): token and
# position embeddings, pre-LayerNorm blocks of causal self-attention and a GELU MLP, the output
# layer tied to the token embedding; initialised as GPT-2 (normal 0.02, residual projections
# 0.02/sqrt(2L)). Not the native trainer's initialisation order: its losses start elsewhere.


class Block(keras.layers.Layer):
    def __init__(self, width, heads, layers, dropout, **kwargs):
        super().__init__(**kwargs)
        normal = keras.initializers.RandomNormal(stddev=0.02)
        residual = keras.initializers.RandomNormal(stddev=0.02 / math.sqrt(2 * layers))
        self.ln_1 = keras.layers.LayerNormalization(epsilon=1e-5)
        self.attn = keras.layers.MultiHeadAttention(heads, width // heads, dropout=dropout, kernel_initializer=normal)
        self.ln_2 = keras.layers.LayerNormalization(epsilon=1e-5)
        self.fc = keras.layers.Dense(4 * width, kernel_initializer=normal)
        self.proj = keras.layers.Dense(width, kernel_initializer=residual)
        self.drop = keras.layers.Dropout(dropout)

    def call(self, x, training=False):  # (B, T, C) -> (B, T, C)
        h = self.ln_1(x)
        x = x + self.attn(h, h, use_causal_mask=True, training=training)
        h = keras.activations.gelu(self.fc(self.ln_2(x)), approximate=True)  # (B, T, 4C)
        return x + self.drop(self.proj(h), training=training)


class GPT2(keras.Model):
    def __init__(self, m, **kwargs):
        super().__init__(**kwargs)
        self.wte = keras.layers.Embedding(m["vocab_size"], m["n_embd"],
                                          embeddings_initializer=keras.initializers.RandomNormal(stddev=0.02))
        self.wpe = keras.layers.Embedding(m["n_positions"], m["n_embd"],
                                          embeddings_initializer=keras.initializers.RandomNormal(stddev=0.01))
        self.drop = keras.layers.Dropout(m["dropout"])
        self.blocks = [Block(m["n_embd"], m["n_head"], m["n_layer"], m["dropout"]) for _ in range(m["n_layer"])]
        self.ln_f = keras.layers.LayerNormalization(epsilon=1e-5)

    def call(self, ids, training=False):  # (B, T) int32 -> logits (B, T, V)
        positions = keras.ops.arange(keras.ops.shape(ids)[1])
        x = self.drop(self.wte(ids) + self.wpe(positions), training=training)  # (B, T, C)
        for block in self.blocks:
            x = block(x, training=training)
        return keras.ops.matmul(self.ln_f(x), keras.ops.transpose(self.wte.embeddings))  # tied: (B, T, V)


# ---- the data and the devices ---------------------------------------------------------------------

def batches(loader, restart_every=0):
    """(inputs, targets) of a WindowLoader's global batches, (G, T) int32 each, for ever; with
    restart_every, from the first window again every that many batches (validation)."""
    count = 0
    while True:
        if restart_every and count % restart_every == 0:
            loader.restart()
        count += 1
        rows = loader.next_batch()  # (G, T+1)
        yield rows[:, :-1].astype(np.int32), rows[:, 1:].astype(np.int32)


def device_memory_in_use(name):
    """Bytes in use on the JAX device named `name` ("tpu:0"), or None where it cannot say."""
    index = int(name.split(":")[1])
    try:
        stats = jax.local_devices()[index].memory_stats() or {}
    except (IndexError, RuntimeError):
        return None
    return stats.get("bytes_in_use")


def train(writer, train_spec, val_spec):
    m, st = CONFIG["model"], CONFIG["strategy"]
    devices = keras.distribution.list_devices()
    keras.distribution.set_distribution(keras.distribution.DataParallel(devices=devices))
    replicas = len(devices)
    names = ["tpu:%d" % i for i in range(replicas)]
    writer.log("Keras %s on JAX %s, DataParallel over %d device(s) (%s); this place (%s) has %d TPU chip(s)"
               % (keras.__version__, jax.__version__, replicas, ", ".join(devices), PLACE["name"], PLACE["devices"]))
    writer.log("run folder: %s" % writer.run_dir)
    if replicas != PLACE["devices"]:
        writer.event("warn", "%s should have %d TPU chip(s); JAX sees %d devices, so training uses %d"
                     % (PLACE["name"], PLACE["devices"], replicas, replicas))
    if CONFIG["checkpoint"].get("resume"):
        writer.event("warn", "checkpoint.resume is not supported by this export: training starts from step 0")
    if m.get("init_from"):
        writer.event("warn", "model.init_from is not supported by this export: training starts from random weights")

    B, T, accum = st["micro_batch"], m["block_size"], st["grad_accum"]
    if accum > 1:
        writer.event("info", "each replica takes grad_accum x micro_batch = %d sequences at once (the same step, "
                     "more memory)" % (accum * B))
    if st.get("precision", "fp32") in ("bf16", "fp16"):
        keras.mixed_precision.set_dtype_policy("mixed_bfloat16")  # TPUs compute in bf16, not fp16
    keras.utils.set_random_seed(CONFIG["seed"])

    tokens_per_step = B * accum * T * replicas
    total = total_steps(tokens_per_step)
    tokenizer = CONFIG["data"].get("tokenizer", "")
    train_data = batches(WindowLoader(TokenStream(train_spec, "train", tokenizer), B * accum, T, None, replicas,
                                      CONFIG["seed"], True))
    val_data = None
    if val_spec and CONFIG["eval"]["every"] > 0:
        val_loader = WindowLoader(TokenStream(val_spec, "val", tokenizer), B, T, None, replicas, CONFIG["seed"], False)
        val_data = batches(val_loader, restart_every=CONFIG["eval"]["batches"])

    model = GPT2(m)
    model(keras.Input((T,), dtype="int32"))  # a symbolic call makes every variable, laid out by DataParallel
    compile_model(model, total)
    parameters = int(model.count_params())
    writer.begin(parameters, replicas, names, tokens_per_step, total)
    writer.log("training %d parameters on %d device(s) for %s steps of %d tokens; the first step compiles"
               % (parameters, replicas, total or "unlimited", tokens_per_step))
    steps = fit(model, writer, train_data, val_data, tokens_per_step, total, names, names)
    writer.finish("finished", "finished %d steps" % steps, step=steps)


def main():
    args = command_line("Train the exported TrainDeck job with Keras 3 on JAX.")
    print("TrainDeck export: Keras 3 on JAX on %s, %d TPU chip(s) there: %s"
          % (PLACE["name"], PLACE["devices"], PLACE.get("note", "")), flush=True)
    stop_on_sigterm()
    with RunWriter(args.run_dir, args.config, FRAMEWORK, PLACE) as writer:
        train(writer, args.train_spec, args.val_spec)


if __name__ == "__main__":
    main()
