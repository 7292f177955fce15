# ---- Keras 3 + KerasHub on TPU: the strategy ----------------------------------------------------
# The Keras export (above) under tf.distribute.TPUStrategy: one replica per TPU chip of this
# TPU VM (one on Colab's v5e-1 or v6e-1, eight on Kaggle's v5e-8). Every Colab TPU is a TPU VM
# now, so the resolver is TPUClusterResolver(tpu="local"); the older snippets' bare
# TPUClusterResolver() looks for a TPU node by name and fails there.
#
# NOT EXPECTED TO WORK on 2026's Colab or Kaggle TPU images, kept for TPU VMs that carry
# TensorFlow for TPUs. Colab's TPU image has no TensorFlow and no KerasHub (googlecolab/
# backend-info, Aug 2026): the notebook installs tensorflow and tensorflow-tpu 2.20 (from
# Google's libtpu index) and keras-hub first, and a Colab engineer warns that doing so may break
# the image's other frameworks (googlecolab/colabtools#5174); users reported installs that no
# longer found the TPU (colabtools#5419). Kaggle's TPU image ships tensorflow-cpu only; its
# tensorflow-tpu is switched off until a compatible libtpu is found, and its libtpu is pinned
# to 0.0.17 for torch_xla 2.8 (Kaggle/docker-python tpu/requirements.in and tpu/Dockerfile,
# Aug 2026), so a TensorFlow TPU install there brings a libtpu of its own. On a TPU use the
# keras-jax export (Keras 3 on JAX, which both images ship) or torch-xla.
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
