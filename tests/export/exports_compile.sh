#!/bin/bash
# exports_compile.sh TRAIN SCRATCH: every export, for every preset, framework and place that go
# together, is written by `traindeck-train export-notebook`, compiles (py_compile), has no
# undefined name or other pyflakes warning, and its notebook validates as nbformat 4; a
# framework on a place it cannot run on is refused with a sentence and writes nothing, and so is
# a job whose strategy.kind the framework or place cannot carry (issue 40: the zero3 preset was
# made a single rank on Colab and plain DDP by the PyTorch export).
set -u
train=$1 scratch=$2
python=${PYTHON:-/usr/bin/python3}
rm -rf "$scratch" && mkdir -p "$scratch"
: > "$scratch/exported.txt"
fail() { echo "exports_compile: $*" >&2; exit 1; }
"$python" -c 'import pyflakes, nbformat' 2>/dev/null ||
  fail "$python lacks pyflakes or nbformat: sudo apt-get install -y python3-pyflakes python3-nbformat"

presets=$("$train" presets | awk '{print $1}')
[ -n "$presets" ] || fail "no presets listed"
exported=0 passed_over=0
for preset in $presets; do
  # Every framework on every place it can run on, in one call: DIR/FRAMEWORK-PLACE/.
  "$train" export-notebook --config "$preset" --framework all --place all --out "$scratch/$preset" \
      > "$scratch/$preset.out" 2> "$scratch/$preset.err" || fail "$preset: $(cat "$scratch/$preset.err")"
  for script in $(grep '\.py$' "$scratch/$preset.out"); do
    notebook=${script%.py}.ipynb
    [ -f "$script" ] && [ -f "$notebook" ] || fail "$preset: no $script or $notebook"
    echo "$script $notebook" >> "$scratch/exported.txt"
    exported=$((exported + 1))
  done
  # "all" passes over a pair that cannot carry the job's strategy, saying why, and writes nothing.
  for pair in $(sed -n 's/^note: not exported for \([a-z0-9-]*\) on \([a-z0-9-]*\): .*/\1-\2/p' "$scratch/$preset.err"); do
    [ ! -e "$scratch/$preset/$pair" ] || fail "$preset: $pair was passed over but written"
    passed_over=$((passed_over + 1))
  done
done
[ "$((exported + passed_over))" -eq $(( $(echo "$presets" | wc -l) * 15 )) ] ||
  fail "$exported exports and $passed_over passed over, not 15 pairs per preset"
# The zero3 preset: sharded by FSDP2 on Kaggle's two T4s, never a single rank on one GPU and never
# replicated by a framework that cannot shard.
zero3=gpt2-1.5b-kaggle-t4x2-zero3
grep -q 'Strategy: zero3 as FSDP2' "$scratch/$zero3/pytorch-ddp-kaggle-t4x2/train_pytorch_ddp.py" ||
  fail "the zero3 preset's PyTorch export for kaggle-t4x2 does not say it shards with FSDP2"
grep -q '"kind": "zero3"' "$scratch/$zero3/traindeck-kaggle-t4x2/train_traindeck.py" ||
  fail "the zero3 preset's TrainDeck export for kaggle-t4x2 is not zero3"
for pair in "pytorch-ddp colab-gpu" "traindeck colab-gpu" "keras-gpu kaggle-t4x2"; do
  set -- $pair
  grep -q "^note: not exported for $1 on $2: .*zero3" "$scratch/$zero3.err" ||
    fail "the zero3 preset was not passed over for $1 on $2 with a reason: $(cat "$scratch/$zero3.err")"
done
"$train" export-notebook --config "$zero3" --framework pytorch-ddp --place colab-gpu --out "$scratch/refused-zero3" \
    > /dev/null 2> "$scratch/refused-zero3.err" && fail "the zero3 preset was exported for one Colab GPU"
grep -q "colab-gpu has one GPU" "$scratch/refused-zero3.err" ||
  fail "the zero3 preset's refusal on colab-gpu does not say why: $(cat "$scratch/refused-zero3.err")"
[ ! -e "$scratch/refused-zero3" ] || fail "the refused zero3 export wrote $scratch/refused-zero3"
# A framework on a place it cannot run on: refused with a sentence, nothing written.
preset=$(echo "$presets" | head -1)
for framework in traindeck pytorch-ddp torch-xla keras-gpu keras-tpu keras-jax; do
  for place in colab-gpu colab-tpu kaggle-t4x2 kaggle-v5e8 vm; do
    tpu_framework=no; case $framework in torch-xla|keras-tpu|keras-jax) tpu_framework=yes ;; esac
    tpu_place=no; case $place in colab-tpu|kaggle-v5e8) tpu_place=yes ;; esac
    [ "$tpu_framework" = "$tpu_place" ] && continue
    out="$scratch/refused/$framework-$place"
    mkdir -p "$scratch/refused"
    "$train" export-notebook --config "$preset" --framework "$framework" --place "$place" --out "$out" \
        > /dev/null 2> "$scratch/refused/why" && fail "$framework on $place was exported; it cannot run there"
    grep -q "choose" "$scratch/refused/why" || fail "$framework on $place refused without saying what to choose: $(cat "$scratch/refused/why")"
    [ ! -e "$out" ] || fail "$framework on $place was refused but wrote $out"
  done
done
# One Python for all of them (a start per file would take minutes): each script compiles and
# has no pyflakes warning; each notebook validates and writes exactly its script.
"$python" - "$scratch/exported.txt" <<'PY' || fail "the checks above failed"
import sys, py_compile, nbformat
from pyflakes.api import check, checkPath
from pyflakes.reporter import Reporter
failed = 0
for line in open(sys.argv[1]):
    script, notebook = line.split()
    try:
        py_compile.compile(script, doraise=True)
    except py_compile.PyCompileError as e:
        print("does not compile:", e); failed += 1
    if checkPath(script, Reporter(sys.stdout, sys.stdout)):
        print("pyflakes warned on", script); failed += 1
    book = nbformat.read(notebook, as_version=4)
    nbformat.validate(book)
    # The notebook's own Python (the data cell): every code cell without IPython magics or
    # shell lines compiles and passes pyflakes too.
    for cell in book.cells:
        lines = cell.source.splitlines()
        if cell.cell_type == "code" and not any(l.startswith(("%", "!")) for l in lines):
            try:
                compile(cell.source, notebook, "exec")
            except SyntaxError as e:
                print("a cell of", notebook, "does not compile:", e); failed += 1
            if check(cell.source, notebook, Reporter(sys.stdout, sys.stdout)):
                print("pyflakes warned on a cell of", notebook); failed += 1
    written = [c.source for c in book.cells if c.cell_type == "code" and c.source.startswith("%%writefile")]
    if len(written) != 1 or written[0].split("\n", 1)[1] != open(script).read():
        print(notebook, "does not write exactly", script); failed += 1
sys.exit(1 if failed else 0)
PY
# What each place really gives is said in the script and the notebook, not what the config asks.
grep -q '"devices": 1' "$scratch/$preset/pytorch-ddp-colab-gpu/train_pytorch_ddp.py" ||
  fail "a Colab GPU export does not say it has one GPU"
grep -q 'exactly one GPU' "$scratch/$preset/pytorch-ddp-colab-gpu/train_pytorch_ddp.ipynb" ||
  fail "the Colab notebook does not say a runtime has one GPU"
grep -q 'nproc_per_node=2' "$scratch/$preset/pytorch-ddp-kaggle-t4x2/train_pytorch_ddp.ipynb" ||
  fail "the Kaggle T4x2 notebook does not start two ranks"
grep -q 'not run by our tests' "$scratch/$preset/keras-tpu-colab-tpu/train_keras_tpu.ipynb" ||
  fail "the Keras TPU notebook does not say it is not run by our tests"
for place in colab-tpu kaggle-v5e8; do
  grep -q 'Not expected to work on 2026' "$scratch/$preset/keras-tpu-$place/train_keras_tpu.ipynb" ||
    fail "the Keras TPU notebook for $place does not say it is not expected to work"
  grep -q 'keras.distribution.DataParallel' "$scratch/$preset/keras-jax-$place/train_keras_jax.py" ||
    fail "no Keras-on-JAX export for $place"
done
# A hostile job: a name with line breaks holding code, a data folder named with shell and IPython
# syntax. Nothing of them may become code: no call to os.system in any script or notebook cell, and the
# notebooks' launch lines hold only plain words (and IPython's {run_dir}).
mkdir -p "$scratch/hostile"
cat > "$scratch/hostile/job.yaml" <<'YAML'
name: "evil\nimport os; os.system('touch PWNED')\n#"
model: {n_layer: 2, n_head: 2, n_embd: 32, n_positions: 64, block_size: 32, vocab_size: 257}
data: {train: "data/x$(touch PWNED)`id`{__import__('os').system('id')}\"'", tokenizer: byte}
strategy: {kind: single, device: cpu, micro_batch: 4}
YAML
for framework in traindeck pytorch-ddp; do
  for place in colab-gpu kaggle-t4x2; do
    "$train" export-notebook --config "$scratch/hostile/job.yaml" --framework "$framework" --place "$place" \
        --out "$scratch/hostile/$framework-$place" > /dev/null 2> "$scratch/hostile/$framework.err" ||
      fail "the hostile job did not export: $(cat "$scratch/hostile/$framework.err")"
  done
done
"$python" - "$scratch/hostile" <<'PY' || fail "a hostile name or path became code"
import ast, glob, re, sys, nbformat
sources = [(script, open(script).read()) for script in glob.glob(sys.argv[1] + "/*/*.py")]
for notebook in glob.glob(sys.argv[1] + "/*/*.ipynb"):  # and the notebooks' own Python (the data cell)
    sources += [(notebook, c.source) for c in nbformat.read(notebook, as_version=4).cells
                if c.cell_type == "code" and not any(l.startswith(("%", "!")) for l in c.source.splitlines())]
for script, source in sources:
    for node in ast.walk(ast.parse(source)):
        func = node.func if isinstance(node, ast.Call) else None
        if isinstance(func, ast.Attribute) and func.attr == "system" and getattr(func.value, "id", "") == "os":
            sys.exit("%s calls os.system (line %d)" % (script, node.lineno))
for notebook in glob.glob(sys.argv[1] + "/*/*.ipynb"):
    cells = nbformat.read(notebook, as_version=4).cells
    bang = [l for c in cells if c.cell_type == "code" for l in c.source.splitlines() if l.startswith("!")]
    assert len(bang) == 1, notebook
    if not re.fullmatch(r"![A-Za-z0-9 ._/=-]+( \{data_args\})?( --run-dir \{run_dir\})?", bang[0]):
        sys.exit("%s launches with %r" % (notebook, bang[0]))
PY
echo "exports_compile: $exported exports compiled, passed pyflakes and validated as nbformat 4 ($passed_over passed over)"
