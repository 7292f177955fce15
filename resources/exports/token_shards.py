# ---- TrainDeck's prepared data: token shards, read in traindeck-train's order -----------------
# The folder `traindeck-train prepare` writes (docs/design.md, "Dataset folder"): dataset.json
# names each split's shards and their token counts; a shard is a 64-byte TDTOKENS header, then
# little-endian token ids. They are read through numpy memory maps, so nothing is loaded whole
# and no framework is needed: every export, PyTorch's and Keras's, shares this part. Batches are
# numpy (B, T + 1) int64 arrays dealt in the native loader's order, so the same seed reads the
# same tokens as traindeck-train. Also here, being plain Python that every export shares: the
# step count and learning-rate schedule, and the command line (--run-dir, --data, --val).
# CONFIG comes from above, and so do json, math and os (the run writer imports them).
import argparse
import bisect
import glob
import signal
import struct

import numpy as np

SHARD_MAGIC = b"TDTOKENS"
SHARD_HEADER_BYTES = 64
TOKENIZER_VOCAB = {"byte": 257, "gpt2": 50257}
MASK64 = (1 << 64) - 1


class DataError(SystemExit):
    """Data that cannot be trained on, said in a sentence for the user: a SystemExit, so the
    script stops with that sentence alone and the run writer records it as the exit reason."""


def expand_path(path):
    """~ and ${VAR} expanded, as traindeck-train expands the config's paths."""
    return os.path.expandvars(os.path.expanduser(path))


def read_manifest(folder):
    path = os.path.join(folder, "dataset.json")
    try:
        with open(path) as f:
            manifest = json.load(f)
    except (OSError, ValueError) as error:
        raise DataError("%s cannot be read (%s); give a folder written by traindeck-train prepare" % (path, error))
    if not isinstance(manifest, dict) or manifest.get("format") != "traindeck-dataset" or manifest.get("version") != 1:
        raise DataError("%s is not a version 1 TrainDeck dataset manifest; run traindeck-train prepare again" % path)
    return manifest


def has_val_split(spec):
    """True for a prepared folder whose val split holds tokens (the default validation data)."""
    if not os.path.isfile(os.path.join(spec, "dataset.json")):
        return False
    return read_manifest(spec).get("val", {}).get("tokens", 0) > 0


def shard_paths(spec, split):
    """data.train / data.val as (shard, token count or None) pairs: a folder written by prepare
    (its dataset.json lists the split's shards and what each holds), one shard file, or a glob of
    shards (sorted; the same files whichever split is asked for)."""
    if os.path.isdir(spec):
        return [(os.path.join(spec, entry["file"]), entry["tokens"])
                for entry in read_manifest(spec)[split]["shards"]]
    if os.path.exists(spec):
        return [(spec, None)]
    matches = sorted(glob.glob(spec))
    if not matches:
        raise DataError("%s does not exist; give a folder written by traindeck-train prepare, a shard or a glob" % spec)
    return [(path, None) for path in matches]


def open_shard(path, tokenizer=""):
    """A shard's tokens, memory-mapped (None when it holds none), and its header's facts. The
    header: magic TDTOKENS, version, token width, count, vocabulary size, end-of-text id and
    tokenizer name; then the uint16 or uint32 ids. An empty `tokenizer` accepts any."""
    with open(path, "rb") as f:
        header = f.read(SHARD_HEADER_BYTES)
    if len(header) < SHARD_HEADER_BYTES or header[:8] != SHARD_MAGIC:
        raise DataError("%s is not a token shard (no TDTOKENS header); run traindeck-train prepare" % path)
    version, width, count, vocab, end_of_text = struct.unpack_from("<IIQII", header, 8)
    info = {"tokenizer": header[32:].split(b"\0", 1)[0].decode("utf-8", "replace"), "vocab_size": vocab,
            "end_of_text": end_of_text}
    if version != 1 or width not in (2, 4):
        raise DataError("%s is shard version %d with %d-byte tokens; this script reads version 1"
                        % (path, version, width))
    if os.path.getsize(path) != SHARD_HEADER_BYTES + count * width:
        raise DataError("%s is cut short or has bytes after its %d tokens; prepare it again" % (path, count))
    if tokenizer and (info["tokenizer"] != tokenizer or vocab != TOKENIZER_VOCAB.get(tokenizer, vocab)):
        raise DataError("%s was prepared with the %s tokenizer (vocabulary %d), but the config uses %s; set "
                        "data.tokenizer to %s or prepare it again" % (path, info["tokenizer"], vocab, tokenizer,
                                                                      info["tokenizer"]))
    if count == 0:
        return None, info
    tokens = np.memmap(path, dtype="<u2" if width == 2 else "<u4", mode="r", offset=SHARD_HEADER_BYTES, shape=(count,))
    return tokens, info


class TokenStream:
    """Every shard of a split end to end, as one sequence of `size` token ids; `info` is what
    their headers say (tokenizer, vocab_size, end_of_text), the same for all of them."""

    def __init__(self, spec, split, tokenizer=""):
        self.parts, self.starts, self.size, self.info = [], [], 0, None
        for path, listed in shard_paths(spec, split):
            tokens, info = open_shard(path, tokenizer)
            held = 0 if tokens is None else len(tokens)
            if listed is not None and held != listed:
                raise DataError("%s holds %d tokens but dataset.json says %d; the dataset is damaged: prepare "
                                "it again" % (path, held, listed))
            if self.info is None:
                self.info, first = info, path
            elif info != self.info:
                raise DataError("%s was prepared with the %s tokenizer (vocabulary %d, end of text %d) but %s with "
                                "%s (%d, %d); train on shards of one tokenizer"
                                % ((path,) + tuple(info.values()) + (first,) + tuple(self.info.values())))
            if held:
                self.parts.append(tokens)
                self.starts.append(self.size)
                self.size += held
        if self.size == 0:
            raise DataError("%s holds no %s tokens; give it data prepared by traindeck-train prepare (for a val "
                            "split, with --val-fraction above 0)" % (spec, split))

    def read(self, start, count):  # -> (count,) int64
        out = np.empty(count, dtype=np.int64)
        done = 0
        i = bisect.bisect_right(self.starts, start) - 1
        while done < count:
            offset = start + done - self.starts[i]
            piece = self.parts[i][offset:offset + count - done]
            out[done:done + len(piece)] = piece
            done += len(piece)
            i += 1
        return out


def mix64(value):
    """splitmix64's finaliser, as the native loader uses it to pick each epoch's offset."""
    value = (value + 0x9E3779B97F4A7C15) & MASK64
    value = ((value ^ (value >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    value = ((value ^ (value >> 27)) * 0x94D049BB133111EB) & MASK64
    return value ^ (value >> 31)


class WindowLoader:
    """The native loader's order (core/trainer/data/token_loader.h): the stream is cut into
    windows of T + 1 tokens at stride T from an offset below T drawn from (seed, epoch); window k
    goes to rank k mod W; each row of a batch takes the next round of W windows; a round that does
    not fit begins the next epoch. shift=False (validation) starts every epoch at 0; restart()
    goes back to the first window. rank=None takes every rank's window of each round, in rank
    order: a (B*W, T + 1) batch, what the W ranks read together."""

    def __init__(self, stream, batch, length, rank, world, seed, shift):
        if stream.size < world * length + 1:
            raise DataError("the data holds %d tokens, too few for one window per rank (%d); use more data or "
                            "a shorter block_size" % (stream.size, world * length + 1))
        self.stream, self.batch, self.length = stream, batch, length
        self.rank, self.world, self.seed, self.shift = rank, world, seed, shift
        self.restart()

    def restart(self):
        self.epoch, self.position = 0, self.epoch_start(0)

    def epoch_start(self, epoch):
        if not self.shift:
            return 0
        slack = self.stream.size - self.world * self.length - 1
        return mix64(self.seed ^ mix64(epoch)) % min(self.length, slack + 1)

    def next_batch(self):  # -> (B, T + 1) int64, or (B*W, T + 1) with rank None
        ranks = range(self.world) if self.rank is None else [self.rank]
        rows = np.empty((self.batch * len(ranks), self.length + 1), dtype=np.int64)
        for b in range(self.batch):
            if self.position + self.world * self.length + 1 > self.stream.size:
                self.epoch += 1
                self.position = self.epoch_start(self.epoch)
            for i, r in enumerate(ranks):
                rows[b * len(ranks) + i] = self.stream.read(self.position + r * self.length, self.length + 1)
            self.position += self.world * self.length
        return rows


# ---- the schedule (core/trainer/optim/lr_schedule.cpp) -----------------------------------------

def total_steps(tokens_per_step):
    """schedule.max_steps, or fewer when schedule.max_tokens is reached first (0: no limit)."""
    s = CONFIG["schedule"]
    steps = s["max_steps"]
    if s.get("max_tokens", 0) > 0:
        by_tokens = -(-s["max_tokens"] // tokens_per_step)
        steps = min(steps, by_tokens) if steps > 0 else by_tokens
    return steps


def learning_rate(step, total):
    """Step s (from 0) of warmup W uses lr*(s+1)/W, so the first step already learns; then cosine
    or linear decay reaching min_lr at the last step, or constant."""
    o, s = CONFIG["optimizer"], CONFIG["schedule"]
    lr, min_lr, warmup = o["lr"], s["min_lr"], s["warmup_steps"]
    if step < warmup:
        return lr * (step + 1) / warmup
    if s["decay"] == "constant":
        return lr
    progress = min(1.0, max(0.0, (step - warmup) / max(1, max(1, total) - 1 - warmup)))
    if s["decay"] == "linear":
        return lr - progress * (lr - min_lr)
    return min_lr + 0.5 * (1.0 + math.cos(math.pi * progress)) * (lr - min_lr)


# ---- the command line every export takes ----------------------------------------------------

def command_line(description, init_from=False):
    """--run-dir, --data and --val, and --init-from where the model can start from Hugging Face
    weights. Returns the flags, with config (CONFIG as the flags change it: what config.yaml
    records) and train_spec, val_spec (the data to read; val_spec "" for none)."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--run-dir", default="", metavar="DIR",
                        help="run folder to write (default: a new folder under ./runs)")
    parser.add_argument("--data", default="", metavar="DIR",
                        help="prepared dataset folder, shard or glob (default: the config's data.train)")
    parser.add_argument("--val", default="", metavar="DIR",
                        help="validation tokens (default: the config's data.val, else the val split of the data "
                             "folder; with --data, that folder's val split)")
    if init_from:
        parser.add_argument("--init-from", default=None, metavar="PATH",
                            help="Hugging Face GPT-2 weights to start from: a model.safetensors, its folder or a "
                                 "model name (default: the config's model.init_from; \"\" for none)")
    args = parser.parse_args()
    data, model = dict(CONFIG["data"]), dict(CONFIG["model"])
    if args.data:  # the config's data.val goes with its data.train
        data.update(train=args.data, val=args.val)
    elif args.val:
        data["val"] = args.val
    if init_from and args.init_from is not None:
        model["init_from"] = args.init_from
    args.config = dict(CONFIG, data=data, model=model)
    args.train_spec = expand_path(data["train"])
    if data.get("val"):
        args.val_spec = expand_path(data["val"])
    else:  # the val split of a prepared folder, when it has one, as traindeck-train defaults it
        args.val_spec = args.train_spec if has_val_split(args.train_spec) else ""
    return args


def stop_on_sigterm():
    """From now on SIGTERM (a scheduler's, torchrun's or the app's stop) raises KeyboardInterrupt
    in the main thread, which the run writer records as the run stopped."""
    signal.signal(signal.SIGTERM, _interrupted)


def _interrupted(signum, frame):
    raise KeyboardInterrupt
