# ---- Keras 3: what the TensorFlow and JAX exports share ---------------------------------------
# The learning-rate schedule in Keras ops, AdamW as traindeck-train's, and the callback that
# writes the run folder from model.fit, whatever the backend. Keras logs the running mean of the
# loss since the epoch began; the callback recovers each step's own loss from it,
# loss_n = n*mean_n - (n-1)*mean_(n-1), and writes the run folder TrainDeck's app opens
# (metrics.jsonl, run.json, config.yaml). Weights are saved to keras/model.weights.h5 in the run
# folder every checkpoint.every steps and at the end.
# From above: keras, CONFIG, learning_rate, the modules math, os and time, and the backend's
# device_memory_in_use(name) (bytes, or None).

# ---- the schedule -----------------------------------------------------------------------------

class TrainDeckSchedule(keras.optimizers.schedules.LearningRateSchedule):
    """learning_rate, in Keras ops, evaluated by the optimizer at its iteration count (the step index)."""

    def __init__(self, total):
        self.total = total

    def __call__(self, step):
        o, s = CONFIG["optimizer"], CONFIG["schedule"]
        lr, min_lr, warmup = o["lr"], s["min_lr"], s["warmup_steps"]
        step = keras.ops.cast(step, "float32")
        warm = lr * (step + 1.0) / max(1, warmup)
        progress = keras.ops.clip((step - warmup) / max(1, max(1, self.total) - 1 - warmup), 0.0, 1.0)
        if s["decay"] == "constant":
            after = keras.ops.ones_like(step) * lr
        elif s["decay"] == "linear":
            after = lr - progress * (lr - min_lr)
        else:
            after = min_lr + 0.5 * (1.0 + keras.ops.cos(math.pi * progress)) * (lr - min_lr)
        return keras.ops.where(step < warmup, warm, after)

    def get_config(self):
        return {"total": self.total}


# ---- the callback that writes the run folder ----------------------------------------------------

class RunRecorder(keras.callbacks.Callback):
    """Per-step train records from Keras's running mean, eval records from val_loss, system
    records every 5 s, weights every checkpoint.every steps, and the stop at the last step."""

    def __init__(self, writer, tokens_per_step, total, names, memory):
        super().__init__()
        self.writer, self.tokens_per_step, self.total = writer, tokens_per_step, total
        self.names, self.memory = names, memory
        self.step = 0
        self.previous_mean = 0.0
        self.system_at = self.progress_at = time.monotonic()

    def on_train_begin(self, logs=None):
        self.clock = time.monotonic()

    def on_epoch_begin(self, epoch, logs=None):
        self.previous_mean = 0.0  # Keras starts its running mean again each epoch

    def on_train_batch_end(self, batch, logs=None):
        # With steps_per_execution=1, `batch` is the step's index within the epoch and
        # logs["loss"] the mean of the epoch's losses so far.
        n, mean = batch + 1, float(logs["loss"])
        loss = n * mean - (n - 1) * self.previous_mean
        self.previous_mean = mean
        self.step += 1
        now = time.monotonic()
        step_ms = 1000.0 * (now - self.clock)
        self.clock = now
        tokens_per_s = self.tokens_per_step / (step_ms / 1000.0) if step_ms > 0 else 0.0
        lr = learning_rate(self.step - 1, self.total)
        # Keras does not report the gradient norm: null in the record.
        self.writer.train(self.step, self.step * self.tokens_per_step, loss, lr, None, tokens_per_s, step_ms)
        if now - self.progress_at >= PROGRESS_SECONDS or self.step == self.total:
            self.progress_at = now
            self.writer.log("step %d/%s loss %.4f lr %.3g %.0f tokens/s"
                            % (self.step, self.total or "?", loss, lr, tokens_per_s))
        if now - self.system_at >= SYSTEM_SECONDS:
            self.system_at = now
            self.write_system()
        every = CONFIG["checkpoint"]["every"]
        if self.step == self.total or (every > 0 and self.step % every == 0):
            self.save_weights()
        if self.step == self.total:
            self.model.stop_training = True  # Keras still runs this epoch's validation

    def on_epoch_end(self, epoch, logs=None):
        if logs and "val_loss" in logs:
            self.writer.eval(self.step, self.step * self.tokens_per_step, float(logs["val_loss"]))

    def write_system(self):
        for rank, (name, device) in enumerate(zip(self.names, self.memory)):
            used = device_memory_in_use(device)  # from the backend's part; None when unknown
            if used is not None:
                self.writer.system(rank, name, mem_used=int(used))

    def save_weights(self):
        folder = os.path.join(self.writer.run_dir, "keras")
        os.makedirs(folder, exist_ok=True)
        temp = os.path.join(folder, "model-tmp.weights.h5")
        self.model.save_weights(temp)
        os.replace(temp, os.path.join(folder, "model.weights.h5"))


def compile_model(model, total):
    """AdamW with the job's schedule, betas, epsilon, weight decay (not on biases or LayerNorm
    scales and offsets) and global gradient clip; the loss on logits. Call inside the strategy's
    scope where there is one."""
    o = CONFIG["optimizer"]
    clip = o.get("grad_clip", 1.0)
    betas = o.get("betas", [0.9, 0.95])
    optimizer = keras.optimizers.AdamW(
        learning_rate=TrainDeckSchedule(total), weight_decay=o["weight_decay"], beta_1=betas[0], beta_2=betas[1],
        epsilon=o.get("eps", 1e-8),
        # Under tf.distribute with several replicas Keras clips each replica's share before the
        # all-reduce (its TensorFlow optimizer sums gradients inside the update), not the sum.
        global_clipnorm=clip if clip > 0 else None)
    optimizer.exclude_from_weight_decay(
        var_list=[v for v in model.trainable_variables if v.path.split("/")[-1] in ("bias", "gamma", "beta")])
    model.compile(optimizer=optimizer, loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                  weighted_metrics=[], steps_per_execution=1)


def fit(model, writer, train_data, val_data, tokens_per_step, total, names, memory):
    """model.fit in epochs of eval.every steps, each ending with Keras's validation, as
    traindeck-train evaluates every eval.every steps (the running mean restarts each epoch, so it
    never grows stale); the callback stops it at the last step. Returns the steps trained."""
    every, eval_batches = CONFIG["eval"]["every"], CONFIG["eval"]["batches"]
    per_epoch = every if every > 0 else 100
    if total > 0:
        per_epoch = min(per_epoch, total)
    epochs = -(-total // per_epoch) if total > 0 else 1 << 30
    recorder = RunRecorder(writer, tokens_per_step, total, names, memory)
    model.fit(train_data, epochs=epochs, steps_per_epoch=per_epoch, validation_data=val_data,
              validation_steps=eval_batches if val_data is not None else None, callbacks=[recorder], verbose=0)
    recorder.write_system()
    return recorder.step
