# TrainDeck's run-directory writer, embedded in every exported script and notebook. It writes
# what the TrainDeck app reads from a run (docs/design.md, "The run directory"): config.yaml,
# run.json (rewritten atomically) and metrics.jsonl (schema 1), so an exported run is opened,
# followed and compared like one of traindeck-train's own. Only rank 0 makes a RunWriter.
import json
import math
import os
import socket
import time

try:  # only for device memory in system records: the writer itself needs no torch
    import torch
except ImportError:
    torch = None

METRICS_SCHEMA = 1
# The newest weights in Hugging Face's layout, replaced at each save: a run folder's exports/
# holds one folder per export, <name>-hf (core/runlog/run_paths.h).
HF_EXPORT_DIR = os.path.join("exports", "newest-hf")


def run_slug(name):
    """The end of a run id, made as traindeck-train makes it: lower-case ASCII letters and
    digits, one dash for each run of anything else, at most 48 characters."""
    slug = ""
    for ch in name:
        if ch.isascii() and ch.isalnum():
            slug += ch.lower()
        elif slug and not slug.endswith("-"):
            slug += "-"
        if len(slug) >= 48:
            break
    return slug.rstrip("-")


def new_run_dir(name, root="runs"):
    """A fresh folder <root>/<UTC yyyymmdd-HHMMSS>-<slug>; -2, -3... when that one exists."""
    stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime())
    slug = run_slug(name)
    base = os.path.join(root, stamp + "-" + slug if slug else stamp)
    path, n = base, 1
    while os.path.exists(path):
        n += 1
        path = "%s-%d" % (base, n)
    return path


# ---- config.yaml, emitted by hand so that no YAML package is needed --------------------------

_YAML_WORDS = {"", "~", "null", "true", "false", "yes", "no", "on", "off", "y", "n"}
_PLAIN_FIRST = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_/")
_PLAIN_REST = _PLAIN_FIRST | set("0123456789 .~+-")


def _yaml_scalar(value):
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return ".nan"
        if math.isinf(value):
            return ".inf" if value > 0 else "-.inf"
        return repr(value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_yaml_scalar(v) for v in value) + "]"
    text = str(value)
    # Plain only when YAML cannot read it as anything but this string (no leading digit, no
    # ": " or " #", no keyword); otherwise a JSON string, which is a YAML double-quoted scalar.
    plain = (text.lower() not in _YAML_WORDS and text[0] in _PLAIN_FIRST and not text.endswith(" ")
             and all(ch in _PLAIN_REST for ch in text))
    return text if plain else json.dumps(text, ensure_ascii=False)


def yaml_text(config, indent=""):
    """Block-style YAML for a nested dict of scalars and lists, keys in the dict's order."""
    lines = []
    for key, value in config.items():
        if isinstance(value, dict) and value:
            lines.append("%s%s:" % (indent, key))
            lines.append(yaml_text(value, indent + "  "))
        else:
            lines.append("%s%s: %s" % (indent, key, "{}" if isinstance(value, dict) else _yaml_scalar(value)))
    return "\n".join(lines)


# ---- system figures ----------------------------------------------------------------------------

class SystemSampler:
    """The figures of a system record for this process's device: on CUDA the device's memory in
    use (the whole device, as nvidia-smi counts it), else this process's resident memory and its
    share of the CPU since the previous sample."""

    def __init__(self):
        self._cpu = time.process_time()
        self._wall = time.monotonic()

    def sample(self, device="cpu"):
        cpu, wall = time.process_time(), time.monotonic()
        cores = os.cpu_count() or 1
        cpu_util = min(1.0, (cpu - self._cpu) / max(1e-9, (wall - self._wall) * cores))
        self._cpu, self._wall = cpu, wall
        rss, host_total = _resident_bytes(), _host_memory_bytes()
        device = str(device)
        if device.startswith("cuda") and torch is not None and torch.cuda.is_available():
            index = int(device.split(":")[1]) if ":" in device else torch.cuda.current_device()
            free, total = torch.cuda.mem_get_info(index)
            figures = {"mem_used": total - free, "mem_total": total}
            try:  # needs pynvml; without it the record simply has no GPU utilization
                figures["util"] = torch.cuda.utilization(index) / 100.0
            except Exception:
                pass
            figures.update(cpu_util=cpu_util, rss=rss)
            return figures
        return {"util": cpu_util, "mem_used": rss, "mem_total": host_total}


def _resident_bytes():
    try:
        with open("/proc/self/statm") as statm:
            return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0


def _host_memory_bytes():
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError):
        return 0


# ---- the writer ----------------------------------------------------------------------------------

def _finite(value):
    """NaN and infinities are not JSON: they are written as null, as the native trainer does."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


class RunWriter:
    """One run directory: RunWriter(run_dir, config, framework, place) makes it (a new folder
    under ./runs when run_dir is empty) and writes config.yaml and run.json (status starting);
    begin() writes the metrics header and status running; train(), eval(), system() and
    event() append one record each; finish() ends the run. Used as a context manager, an
    exception marks the run failed (Ctrl-C: stopped) with its message as the exit reason."""

    def __init__(self, run_dir, config, framework, place):
        self.run_dir = run_dir or new_run_dir(config.get("name") or "run")
        os.makedirs(os.path.join(self.run_dir, "logs"), exist_ok=True)
        self.place = place
        self._sampler = SystemSampler()
        self._info = {
            "id": os.path.basename(os.path.abspath(self.run_dir)),
            "name": config.get("name") or "run",
            "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "host": socket.gethostname(),
            "trainer_version": "%s export" % framework,
            "world_size": 1,
            "devices": [],
            "status": "starting",
            "exit_reason": "",
            "supervisor_pid": os.getpid(),
            "rank_pids": [os.getpid()],
            "step": 0,
            # Not in the native run.json; readers ignore keys they do not know.
            "framework": framework,
            "place": place.get("name", "") if isinstance(place, dict) else str(place),
        }
        with open(os.path.join(self.run_dir, "config.yaml"), "w") as out:
            out.write("# TrainDeck job, as exported for %s; every key is described in docs/config.md\n\n"
                      % framework)
            out.write(yaml_text(config) + "\n")
        self._write_run_json()
        # Line-buffered and flushed after every record: a follower sees each line as it ends.
        self._metrics = open(os.path.join(self.run_dir, "metrics.jsonl"), "a", buffering=1)
        self._log = open(os.path.join(self.run_dir, "logs", "rank-0.log"), "a", buffering=1)

    def __enter__(self):
        return self

    def __exit__(self, kind, error, traceback):
        if kind is None:
            if self._info["status"] in ("starting", "running"):
                self.finish("finished", "finished %d steps" % self._info["step"])
        elif issubclass(kind, KeyboardInterrupt):
            self.finish("stopped", "stopped at step %d by an interrupt" % self._info["step"])
        else:  # SystemExit carries a sentence meant for the user; other errors are named
            reason = str(error) if issubclass(kind, SystemExit) else "%s: %s" % (kind.__name__, error)
            self.event("error", reason, step=self._info["step"] or None)
            self.finish("failed", reason)
        return False  # never swallow the exception

    def begin(self, parameters, world_size, devices, tokens_per_step, total_steps, start_step=0, rank_pids=None):
        self._info.update(world_size=world_size, devices=list(devices), status="running", step=start_step)
        if rank_pids:
            self._info["rank_pids"] = list(rank_pids)
        self._write_run_json()
        self._record("header", schema=METRICS_SCHEMA, run_id=self._info["id"], parameters=parameters,
                     world_size=world_size, tokens_per_step=tokens_per_step, total_steps=total_steps,
                     start_step=start_step)

    def train(self, step, tokens, loss, lr, grad_norm, tokens_per_s, step_ms, **extra):
        """One optimizer step; extra fields (mfu, comm_ms) are written as given."""
        self._info["step"] = step
        self._record("train", step=step, tokens=tokens, loss=loss, lr=lr, grad_norm=grad_norm,
                     tokens_per_s=tokens_per_s, step_ms=step_ms, **extra)

    def eval(self, step, tokens, val_loss):
        self._record("eval", step=step, tokens=tokens, val_loss=val_loss)

    def system(self, rank=0, device="cpu", **figures):
        """A rank's device figures (util, mem_used, mem_total, ...); without mem_used, this
        process's own are measured (SystemSampler)."""
        if "mem_used" not in figures:
            figures = dict(self._sampler.sample(device), **figures)
        self._record("system", rank=rank, device=str(device), **figures)

    def event(self, level, msg, rank=0, step=None):
        fields = {"level": level, "rank": rank, "msg": msg}
        if step is not None:
            fields["step"] = step
        self._record("event", **fields)

    def log(self, line):
        """A line on stdout and in logs/rank-0.log, which the app's Logs page shows."""
        stamped = "%s %s" % (time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), line)
        print(line, flush=True)
        self._log.write(stamped + "\n")

    def finish(self, status="finished", reason="", step=None):
        if step is not None:
            self._info["step"] = step
        self._info.update(status=status, exit_reason=reason)
        self._write_run_json()
        self._metrics.flush()

    def _record(self, kind, **fields):
        record = {"kind": kind, "time": time.time()}
        record.update((k, _finite(v)) for k, v in fields.items())
        self._metrics.write(json.dumps(record, separators=(",", ":"), allow_nan=False) + "\n")
        self._metrics.flush()

    def _write_run_json(self):
        # A reader must never see half a run.json: write a temporary file, then rename it over.
        path = os.path.join(self.run_dir, "run.json")
        temp = "%s.tmp-%d" % (path, os.getpid())
        with open(temp, "w") as out:
            out.write(json.dumps(self._info, separators=(",", ":")) + "\n")
            out.flush()
            os.fsync(out.fileno())
        os.replace(temp, path)
