# TrainDeck's own trainer where SSH is not allowed (a free Colab runtime, a Kaggle notebook):
# this script carries the trainer's C++ sources (TRAINER_SOURCES, below the job), builds
# `traindeck-train` against the torch this runtime has, and trains the job, writing the run
# directory (to Google Drive on Colab when it is mounted) that the app opens like its own runs.
#   python3 this_script.py [--run-dir DIR] [--data DIR] [--work DIR]
#   python3 this_script.py ... [--val DIR] [--vocab encoder.json --merges vocab.bpe]
# JOB_YAML, TRAINER_SOURCES, PLACE and CONFIG are defined above this part.
import argparse
import base64
import hashlib
import io
import os
import shutil
import subprocess
import sys
import tarfile
import time

BUILD_PACKAGES = ["cmake", "g++", "ninja-build", "libyaml-cpp-dev", "libgloo-dev"]


def say(text):
    print("[traindeck] " + text, flush=True)


def missing_packages():
    """The build tools the runtime lacks, by Debian/Ubuntu package (dpkg knows)."""
    missing = []
    for package in BUILD_PACKAGES:
        found = subprocess.run(["dpkg", "-s", package], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if found.returncode != 0:
            missing.append(package)
    return missing


def install_build_tools():
    missing = missing_packages() if shutil.which("dpkg") else []
    if not missing:
        return
    if os.geteuid() != 0 or not shutil.which("apt-get"):
        sys.exit("[traindeck] the build needs " + " ".join(missing) + ": install them with "
                 "sudo apt-get install -y " + " ".join(missing))
    say("installing " + " ".join(missing) + " (apt-get)")
    subprocess.run(["apt-get", "update", "-qq"], check=True)
    subprocess.run(["apt-get", "install", "-y", "-qq"] + missing, check=True)


def sources_key():
    """What the sources and the build are kept under: these sources, this torch."""
    try:
        import torch
        version = torch.__version__
    except ImportError:
        version = "no-torch"
    return hashlib.sha256((TRAINER_SOURCES + version).encode()).hexdigest()[:16]


def unpack_sources(work):
    """The carried sources into WORK/src once (a .done marker says they are whole)."""
    src = os.path.join(work, "src")
    if os.path.exists(os.path.join(src, ".done")):
        return src
    shutil.rmtree(src, ignore_errors=True)
    os.makedirs(src)
    with tarfile.open(fileobj=io.BytesIO(base64.b64decode(TRAINER_SOURCES)), mode="r:gz") as sources:
        for member in sources.getmembers():  # our own archive, still: nothing may leave src
            target = os.path.realpath(os.path.join(src, member.name))
            if not target.startswith(os.path.realpath(src) + os.sep) or member.issym() or member.islnk():
                sys.exit("[traindeck] the carried sources hold an unexpected entry: " + member.name)
        if hasattr(tarfile, "data_filter"):
            sources.extractall(src, filter="data")  # no device nodes, no odd modes either
        else:
            sources.extractall(src)
    open(os.path.join(src, ".done"), "w").close()
    return src


def built_trainer(work):
    """The trainer a run before built in WORK, or None."""
    binary = os.path.join(work, "build", "bin", "traindeck-train")
    done = os.path.exists(os.path.join(work, "build", ".done")) and os.access(binary, os.X_OK)
    return binary if done else None


def build_trainer(src, work):
    """traindeck-train built against this runtime's torch (once per work folder)."""
    install_build_tools()
    build = os.path.join(work, "build")
    say("building the trainer against this runtime's torch (a few minutes, once)")
    started = time.time()
    env = dict(os.environ, LIBTORCH="pip", TESTS="OFF")
    script = os.path.join(src, "packaging", "build-trainer.sh")
    status = subprocess.run(["bash", script, src, build, "traindeck-train"], env=env).returncode
    if status != 0:
        sys.exit("[traindeck] the trainer's build failed (exit %d): the lines above say why" % status)
    open(os.path.join(build, ".done"), "w").close()
    say("built in %.0f s" % (time.time() - started))
    return os.path.join(build, "bin", "traindeck-train")


def default_run_dir():
    """The job's folder under Drive's traindeck/runs when Drive is mounted, else under ./runs:
    one folder per job, so that a new runtime resumes the run the last one left."""
    drive = "/content/drive/MyDrive"
    root = os.path.join(drive, "traindeck", "runs") if os.path.isdir(drive) else os.path.join(os.getcwd(), "runs")
    slug = "".join(c if c.isalnum() else "-" for c in CONFIG["name"].lower()).strip("-") or "run"
    return os.path.join(root, slug)


def data_settings(args):
    """--set overrides for the trainer: the data where it is here. With --data, the validation
    tokens come from --val (or that folder's own val split), and GPT-2's tokenizer files from
    --vocab/--merges, else from the dataset folder, when the job's are not here."""
    data = CONFIG["data"]
    train = args.data or data["train"]
    sets = ["data.train=" + train]
    if args.val or args.data:
        sets.append("data.val=" + (args.val or ""))
    if data.get("tokenizer") == "gpt2":
        for key, flag, names in (("vocab", args.vocab, ("encoder.json", "vocab.json")),
                                 ("merges", args.merges, ("vocab.bpe", "merges.txt"))):
            found = flag or (data.get(key) if data.get(key) and os.path.exists(data[key]) else "")
            for name in names if not found else ():
                if os.path.exists(os.path.join(train, name)):
                    found = os.path.join(train, name)
                    break
            if not found:
                sys.exit("[traindeck] the gpt2 tokenizer needs GPT-2's %s: put it in the dataset folder or pass --%s"
                         % (names[0], key))
            sets.append("data.%s=%s" % (key, found))
    return train, sets


def main():
    parser = argparse.ArgumentParser(description="Build TrainDeck's trainer here and train the job.")
    parser.add_argument("--run-dir", default="", help="the run directory (default: a new one under runs/)")
    parser.add_argument("--data", default="", help="the prepared dataset folder (default: the job's data.train)")
    parser.add_argument("--val", default="", help="the validation tokens (default: the dataset's val split)")
    parser.add_argument("--vocab", default="", help="GPT-2's encoder.json (gpt2 tokenizer)")
    parser.add_argument("--merges", default="", help="GPT-2's vocab.bpe (gpt2 tokenizer)")
    parser.add_argument("--trainer", default="", help="a traindeck-train built before, used instead of building")
    parser.add_argument("--work", default=os.path.expanduser("~/.cache/traindeck-notebook"),
                        help="where the sources and the build go")
    args = parser.parse_args()
    say(PLACE["note"])
    data, sets = data_settings(args)
    if not os.path.exists(data) and not any(c in data for c in "*?["):
        sys.exit("[traindeck] no prepared dataset at " + data + ": upload the folder `traindeck-train prepare` "
                 "wrote and pass its path with --data")
    work = os.path.join(args.work, sources_key())  # other sources or another torch: another build
    os.makedirs(work, exist_ok=True)
    src = unpack_sources(work)
    binary = args.trainer or built_trainer(work)
    if args.trainer and not os.access(args.trainer, os.X_OK):
        sys.exit("[traindeck] --trainer " + args.trainer + " is not an executable traindeck-train")
    if binary:
        say("the trainer is built already: " + binary)
    else:
        binary = build_trainer(src, work)
    job = os.path.join(work, "job.yaml")
    with open(job, "w") as out:
        out.write(JOB_YAML)
    run_dir = args.run_dir or default_run_dir()
    os.makedirs(os.path.dirname(run_dir) or ".", exist_ok=True)
    say("training; the run directory is " + run_dir)
    command = [binary, "run", "--config", job, "--run-dir", run_dir]
    for setting in sets:
        command += ["--set", setting]
    resume = os.path.isdir(os.path.join(run_dir, "checkpoints"))
    if resume:
        command.append("--resume")  # a runtime that ended: go on from the newest checkpoint
    sys.exit(subprocess.run(command).returncode)


if __name__ == "__main__":
    main()
