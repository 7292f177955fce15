# ---- The data: a text file tokenized here, or a folder prepared by traindeck-train --------------
# An exported notebook's data cell, so that a reader with only a browser (Colab, Kaggle, Windows)
# needs nothing of TrainDeck: prepare_text() turns one UTF-8 text file into the dataset folder
# the script reads (docs/design.md, "Dataset folder": dataset.json and 64-byte-header TDTOKENS
# shards of uint16 ids), with the job's tokenizer. byte: UTF-8 bytes, end of text 256. gpt2:
# GPT-2's BPE through tiktoken where it is installed (Colab's and Kaggle's GPU images), else
# through transformers' GPT2TokenizerFast (both TPU images); either fetches GPT-2's vocabulary
# once, so the runtime needs the internet (on Kaggle: Settings, Internet on). The whole file is
# read into memory: a few hundred MB is fine; for more, use traindeck-train prepare.
# The file is one document, ended by end-of-text; its last VAL_FRACTION of tokens is the val
# split (traindeck-train prepare splits by documents instead).
import json
import os
import struct

import numpy as np

VOCABULARY = {"byte": (257, 256), "gpt2": (50257, 50256)}  # tokenizer -> (vocab size, end of text)


def encode_text(text, tokenizer):
    """The token ids of `text`, then end-of-text."""
    vocab, end = VOCABULARY[tokenizer]
    if tokenizer == "byte":
        return list(text.encode("utf-8")) + [end]
    try:
        import tiktoken
        return tiktoken.get_encoding("gpt2").encode_ordinary(text) + [end]
    except ImportError:
        from transformers import GPT2TokenizerFast
        encoder = GPT2TokenizerFast.from_pretrained("gpt2")
        encoder.model_max_length = 1 << 62  # a whole file at once; no "too long" warning
        return encoder(text)["input_ids"] + [end]


def write_shard(path, tokens, tokenizer):
    """A TDTOKENS shard: magic, version 1, 2-byte tokens, count, vocabulary size, end-of-text id,
    tokenizer name (NUL-padded to 64 bytes), then the little-endian uint16 ids."""
    vocab, end = VOCABULARY[tokenizer]
    header = b"TDTOKENS" + struct.pack("<IIQII", 1, 2, len(tokens), vocab, end) + tokenizer.encode()
    with open(path + ".tmp", "wb") as f:
        f.write(header.ljust(64, b"\0"))
        f.write(np.asarray(tokens, dtype="<u2").tobytes())
    os.replace(path + ".tmp", path)


def prepare_text(text_file, folder, tokenizer, val_fraction, least_val):
    """Tokenizes `text_file` into `folder` (made when missing) unless it already holds that file's
    tokens; returns the folder. The val split gets the last `val_fraction` of the tokens, at
    least `least_val` (one window per device), or nothing when the text is too short for both."""
    stamp = {"source": os.path.abspath(text_file), "bytes": os.path.getsize(text_file), "tokenizer": tokenizer}
    manifest_path = os.path.join(folder, "dataset.json")
    if os.path.exists(manifest_path):
        with open(manifest_path) as f:
            if json.load(f).get("prepared_from") == stamp:
                print("%s already holds %s's tokens" % (folder, text_file))
                return folder
    with open(text_file, encoding="utf-8", errors="replace") as f:
        tokens = encode_text(f.read(), tokenizer)
    val_count = max(int(len(tokens) * val_fraction), least_val) if val_fraction > 0 else 0
    if len(tokens) - val_count < 2 * least_val:
        val_count = 0
    train, val = tokens[:len(tokens) - val_count], tokens[len(tokens) - val_count:]
    os.makedirs(folder, exist_ok=True)
    splits = {}
    for name, part in (("train", train), ("val", val)):
        shards = []
        if part:
            write_shard(os.path.join(folder, name + "-000000.bin"), part, tokenizer)
            shards.append({"file": name + "-000000.bin", "tokens": len(part)})
        splits[name] = {"tokens": len(part), "documents": 1 if part else 0, "shards": shards}
    vocab, end = VOCABULARY[tokenizer]
    manifest = dict(format="traindeck-dataset", version=1, tokenizer=tokenizer, vocab_size=vocab, end_of_text=end,
                    token_width=2, shard_tokens=max(1, len(train)), val_fraction=val_fraction, doc_separator=None,
                    prepared_from=stamp, **splits)
    with open(manifest_path + ".tmp", "w") as f:
        json.dump(manifest, f)
    os.replace(manifest_path + ".tmp", manifest_path)
    print("%s: %d train and %d val tokens (%s tokenizer) from %s" % (folder, len(train), len(val), tokenizer, text_file))
    return folder
