# ---- Keras 3 on JAX, for TPUs: the backend ------------------------------------------------------
# GPT-2 written in Keras 3 layers, trained with model.fit on the JAX backend under
# keras.distribution.DataParallel: one replica per TPU chip (one on Colab's v5e-1 or v6e-1, eight
# on Kaggle's v5e-8). It needs keras, jax and numpy only, which both TPU images ship (Colab: keras
# 3.13 and jax 0.7, googlecolab/backend-info, Aug 2026; Kaggle: keras>3 and jax[tpu],
# Kaggle/docker-python tpu/requirements.in, Aug 2026), so the notebook installs nothing; it is
# the Keras path that suits 2026's TPU images, where TensorFlow for TPUs is missing
# (keras.distribution works on the JAX backend only).
#
# Generated from the documented API, not run by our tests: the test machines have no TPU and
# Debian has no JAX or Keras 3.
#
# Run: python3 THIS.py [--run-dir DIR] [--data DIR] [--val DIR].
#
# From above: CONFIG, PLACE, RunWriter; TokenStream, WindowLoader, command_line,
# stop_on_sigterm, total_steps; and the modules math, np, os and time. From the parts below:
# compile_model and fit (keras_common); the model and main (keras_jax).
import sys

os.environ["KERAS_BACKEND"] = "jax"  # before Keras is imported

try:
    import jax
    import keras
except ImportError as missing:
    sys.exit("%s: this script needs Keras 3 and JAX (both on Colab's and Kaggle's TPU images): "
             "pip install keras 'jax[tpu]'" % missing)

FRAMEWORK = "keras-jax"
DEVICE_KIND = "TPU"
SYSTEM_SECONDS = 5.0
PROGRESS_SECONDS = 10.0
