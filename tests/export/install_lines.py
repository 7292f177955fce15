#!/usr/bin/env python3
"""install_lines.py TRAIN SCRATCH: every notebook's install lines against what each place ships.

TRAIN (traindeck-train) exports every framework on every place for two presets into SCRATCH
(FRAMEWORK-PLACE/train_*.ipynb and .py). For each notebook: every package a `%pip install` or
`!pip install` line names is pinned (==); a package whose module the place already has is pinned
to the version the place has (an install never replaces the image's stack: the unpinned
`pip install 'torch_xla[tpu]'` that put torch_xla 2.9 over Kaggle's 2.8 is what this catches);
companions match (tensorflow-tpu as tensorflow, torch_xla as torch); and every module the script
imports at its top level is either shipped by the place or installed by the notebook. First it
shows, on made-up notebooks, that it catches the torch_xla bug it was written for.
"""
import ast
import glob
import json
import os
import re
import shutil
import subprocess
import sys

# What each place ships, as of late 2026 ("" : shipped, version not recorded here).
#   Colab GPU and TPU: googlecolab/backend-info pip-freeze.gpu.txt / pip-freeze.tpu.txt (Aug 2026,
#     read Dec 2026).
#   Kaggle GPU: Kaggle/docker-python Dockerfile.tmpl builds FROM Colab's runtime image of May 2026
#     and keeps its tensorflow/keras/torch/jax packages (commit of Jun 2026, read Dec 2026).
#   Kaggle TPU: Kaggle/docker-python tpu/config.txt (TORCH_VERSION=2.8.0, TENSORFLOW_VERSION=2.20.0),
#     tpu/requirements.in (tensorflow-cpu only, tensorflow-tpu switched off; jax[tpu]; keras>3;
#     transformers; no keras-hub or tiktoken), tpu/Dockerfile (libtpu==0.0.17, jax 0.7.2) (Aug 2026,
#     read Dec 2026).
COLAB_GPU = {"torch": "2.11.0", "tensorflow": "2.20.0", "keras": "3.13.2", "keras-hub": "0.26.0", "jax": "0.7.2",
             "transformers": "5.15.0", "tiktoken": "0.14.0", "numpy": "2.1.3", "huggingface-hub": "1.27.0"}
PLACES = {
    "colab-gpu": COLAB_GPU,
    "kaggle-t4x2": COLAB_GPU,
    "colab-tpu": {"torch": "2.9.0", "torch-xla": "2.9.0", "libtpu": "0.0.21.1", "jax": "0.7.2", "keras": "3.13.2",
                  "transformers": "5.15.0", "numpy": "2.1.3", "huggingface-hub": "1.27.0"},
    "kaggle-v5e8": {"torch": "2.8.0", "torch-xla": "2.8.0", "libtpu": "0.0.17", "jax": "0.7.2", "keras": "",
                    "tensorflow-cpu": "2.20.0", "transformers": "", "numpy": "", "huggingface-hub": ""},
}
# The module a distribution provides (tensorflow-cpu and tensorflow-tpu both give `tensorflow`).
MODULE_OF = {"torch": "torch", "torch-xla": "torch_xla", "tensorflow": "tensorflow", "tensorflow-cpu": "tensorflow",
             "tensorflow-tpu": "tensorflow", "keras": "keras", "keras-hub": "keras_hub", "jax": "jax",
             "numpy": "numpy", "transformers": "transformers", "huggingface-hub": "huggingface_hub",
             "libtpu": "libtpu", "tiktoken": "tiktoken"}
# An installed package's version must equal its companion's (installed or shipped).
COMPANION = {"tensorflow-tpu": "tensorflow", "torch-xla": "torch"}
STANDARD = set(sys.stdlib_module_names)


def normalized(name):
    return re.sub(r"[-_.]+", "-", name).lower()


def same_release(a, b):
    """2.8.0 and 2.8 (or 0.26.*) name the same release; 2.9.0 and 2.8 do not."""
    a, b = a.rstrip(".*"), b.rstrip(".*")
    return (a + ".").startswith(b + ".") or (b + ".").startswith(a + ".")


def shipped_module_version(place, module):
    """The version of `module` the place ships ("" when known to ship it without a version), or None."""
    for dist, version in PLACES[place].items():
        if MODULE_OF.get(dist) == module:
            return version
    return None


def installs(notebook):
    """(package, version or None, the line) for every requirement of the notebook's pip lines."""
    found = []
    cells = json.load(open(notebook))["cells"]
    for cell in cells:
        if cell["cell_type"] != "code":
            continue
        for line in "".join(cell["source"]).splitlines():
            words = line.split()
            if len(words) < 2 or words[0] not in ("%pip", "!pip", "!pip3", "!python3", "%uv") or "install" not in words:
                continue
            rest = words[words.index("install") + 1:]
            skip_next = False
            for word in rest:
                if skip_next:
                    skip_next = False
                    continue
                if word in ("-f", "--find-links", "-i", "--index-url", "--extra-index-url"):
                    skip_next = True
                    continue
                if word.startswith("-"):
                    continue
                spec = word.strip("'\"")
                match = re.fullmatch(r"([A-Za-z0-9_.-]+)(\[[^\]]*\])?(?:==([0-9][0-9A-Za-z.*+]*))?", spec)
                if not match:
                    found.append((spec, "unparsable", line))
                else:
                    found.append((normalized(match.group(1)), match.group(3), line))
    return found


def top_level_imports(script):
    """Modules the script imports outside functions, except those in a try whose handler does not
    stop the script (optional ones, such as huggingface_hub)."""
    tree = ast.parse(open(script).read())
    needed = set()

    def visit(statements, optional):
        for node in statements:
            if isinstance(node, ast.Import):
                if not optional:
                    needed.update(a.name.split(".")[0] for a in node.names)
            elif isinstance(node, ast.ImportFrom):
                if not optional and node.level == 0 and node.module:
                    needed.add(node.module.split(".")[0])
            elif isinstance(node, ast.Try):
                stops = any(isinstance(n, (ast.Raise,)) or (isinstance(n, ast.Call) and
                            getattr(n.func, "attr", getattr(n.func, "id", "")) == "exit")
                            for h in node.handlers for n in ast.walk(h))
                visit(node.body, optional or not stops)
            elif isinstance(node, ast.If):
                visit(node.body, optional)
                visit(node.orelse, optional)
    visit(tree.body, False)
    return {m for m in needed if m not in STANDARD}


def check(folder):
    problems, checked = [], 0
    for notebook in sorted(glob.glob(os.path.join(folder, "*", "*.ipynb"))):
        framework_place = os.path.basename(os.path.dirname(notebook))
        place = next((p for p in PLACES if framework_place.endswith("-" + p)), None)
        if place is None:  # a VM of one's own: nothing is known of its image
            continue
        checked += 1
        where = "%s (%s)" % (framework_place, place)
        packages = installs(notebook)
        installed = {}
        for package, version, line in packages:
            if version == "unparsable":
                problems.append("%s: cannot read the requirement %r in %r" % (where, package, line))
                continue
            if version is None:
                problems.append("%s: installs %s unpinned (%r): it may replace what the image ships"
                                % (where, package, line))
                continue
            installed[package] = version
            module = MODULE_OF.get(package)
            has = shipped_module_version(place, module) if module else None
            if has and not same_release(version, has):
                problems.append("%s: installs %s==%s, but the image has %s %s: the import may break"
                                % (where, package, version, module, has))
        for package, companion in COMPANION.items():
            other = installed.get(companion) or shipped_module_version(place, MODULE_OF[companion])
            if package in installed and other and not same_release(installed[package], other):
                problems.append("%s: %s==%s does not match %s %s" % (where, package, installed[package],
                                                                   companion, other))
        have = {MODULE_OF.get(p, p.replace("-", "_")) for p in installed}
        script = notebook[:-len(".ipynb")] + ".py"
        for module in sorted(top_level_imports(script)):
            if module not in have and shipped_module_version(place, module) is None:
                problems.append("%s: the script imports %s, which the place does not ship and the notebook "
                                "does not install" % (where, module))
    return problems, checked


def self_check(scratch):
    """The check itself catches the bug it was written for: Kaggle's TPU notebook installing an
    unpinned torch_xla, and a pinned one of another release than the image's torch."""
    caught = []
    for name, line in (("unpinned", "%pip install -q 'torch_xla[tpu]'"),
                       ("other-release", "%pip install -q torch_xla[tpu]==2.9.0")):
        folder = os.path.join(scratch, name, "torch-xla-kaggle-v5e8")
        os.makedirs(folder, exist_ok=True)
        cells = [{"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None, "source": line}]
        with open(os.path.join(folder, "train_torch_xla.ipynb"), "w") as f:
            json.dump({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}, f)
        with open(os.path.join(folder, "train_torch_xla.py"), "w") as f:
            f.write("import torch_xla\n")
        caught.append(bool(check(os.path.dirname(folder))[0]))
    return all(caught)


def main():
    train, scratch = sys.argv[1], sys.argv[2]
    shutil.rmtree(scratch, ignore_errors=True)
    if not self_check(os.path.join(scratch, "self-check")):
        print("install_lines: FAILED: the check does not catch an unpinned torch_xla on Kaggle's TPU image")
        return 1
    problems, checked = [], 0
    for preset in ("gpt2-124m-colab-t4", "gpt2-774m-8gpu-zero1"):
        out = os.path.join(scratch, preset)
        done = subprocess.run([train, "export-notebook", "--config", preset, "--framework", "all", "--place", "all",
                               "--out", out], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        if done.returncode != 0:
            print("install_lines: FAILED: export-notebook --config %s: %s" % (preset, done.stderr))
            return 1
        found, count = check(out)
        problems += ["%s: %s" % (preset, p) for p in found]
        checked += count
    for p in problems:
        print("install_lines:", p)
    if checked == 0:
        print("install_lines: FAILED: no Colab or Kaggle notebook was exported")
        return 1
    if problems:
        return 1
    print("install_lines: %d notebooks install only what their place lacks, pinned to what it has" % checked)
    return 0


if __name__ == "__main__":
    sys.exit(main())
