# ---- Keras 3 + KerasHub on TPU: the strategy ----------------------------------------------------
# The Keras export (above) under tf.distribute.TPUStrategy: one replica per TPU chip of this
# TPU VM (one on Colab's v5e-1 or v6e-1, eight on Kaggle's v5e-8). Every Colab TPU is a TPU VM
# now, so the resolver is TPUClusterResolver(tpu="local"); the older snippets' bare
# TPUClusterResolver() looks for a TPU node by name and fails there.
#
# This path is fragile. Colab's TPU image has no TensorFlow and no KerasHub: the notebook
# installs tensorflow and tensorflow-tpu (from Google's libtpu index) and keras-hub first, and a
# Colab engineer warns that doing so may break the image's other frameworks
# (googlecolab/colabtools#5174); by mid-2025 users reported that even that install no longer
# found the TPU (colabtools#5419). For TPUs, PyTorch/XLA (the torch-xla export) is the path the
# image carries.
# tf comes from above.

FRAMEWORK = "keras-tpu"
DEVICE_KIND = "TPU"


def make_strategy():
    """TPUStrategy over every chip of this TPU VM; record names tpu:0, tpu:1, ..."""
    resolver = tf.distribute.cluster_resolver.TPUClusterResolver(tpu="local")
    tf.config.experimental_connect_to_cluster(resolver)
    tf.tpu.experimental.initialize_tpu_system(resolver)
    strategy = tf.distribute.TPUStrategy(resolver)
    chips = tf.config.list_logical_devices("TPU")
    names = ["tpu:%d" % i for i in range(len(chips))]
    memory = ["TPU:%d" % i for i in range(len(chips))]
    return strategy, names, memory, []


if __name__ == "__main__":
    main()
