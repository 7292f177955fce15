# ---- Keras 3 + KerasHub on GPUs: the strategy ---------------------------------------------------
# The Keras export (above) under tf.distribute.MirroredStrategy: one replica per GPU this
# machine has (one on Colab, two on Kaggle's T4x2, all of a cloud VM's), gradients summed over
# NCCL. Keras 3 is TensorFlow's GPT-2 path now: transformers v5 removed its TensorFlow classes,
# so the TFAutoModelForCausalLM snippets of older answers no longer run.
# tf and CONFIG come from above.

FRAMEWORK = "keras-gpu"
DEVICE_KIND = "GPU"


def make_strategy():
    """MirroredStrategy over every visible GPU; record names as traindeck-train writes them."""
    gpus = tf.config.list_physical_devices("GPU")
    strategy = tf.distribute.MirroredStrategy()
    names = ["cuda:%d" % i for i in range(len(gpus))] or ["cpu"]
    memory = ["GPU:%d" % i for i in range(len(gpus))]
    notes = []
    for gpu in gpus:
        capability = tf.config.experimental.get_device_details(gpu).get("compute_capability")
        if capability and capability < (8, 0) and CONFIG["strategy"].get("precision") == "bf16":
            notes.append("%s has no bf16 units (compute capability %d.%d): bf16 runs slowly there; fp16 suits it"
                         % (gpu.name, capability[0], capability[1]))
    return strategy, names, memory, notes


if __name__ == "__main__":
    main()
