# write_run.py RUN_WRITER RUN_DIR STEPS DELAY_MS [die]: the exports' embedded writer
# (resources/exports/run_writer.py, loaded as the exported scripts hold it) run for real: a
# header, STEPS train records (loss 5/sqrt(step)), an eval every 10 steps and a system record
# every 25, DELAY_MS apart. With "die" it writes half a record and SIGKILLs itself, as a run
# killed mid-write leaves its file; else it finishes.
import os
import signal
import sys
import time

exec(open(sys.argv[1]).read())  # noqa: S102 - the writer part, as the exported scripts embed it
run_dir, steps, delay = sys.argv[2], int(sys.argv[3]), int(sys.argv[4]) / 1000.0
die = len(sys.argv) > 5 and sys.argv[5] == "die"
config = {"name": "exported run", "seed": 1, "model": {"n_layer": 2}, "optimizer": {"betas": [0.9, 0.95]}}
place = {"name": "vm", "devices": 1, "note": "a test"}
writer = RunWriter(run_dir, config, "pytorch-ddp", place)  # noqa: F821 - defined by the exec above
writer.begin(parameters=1234, world_size=1, devices=["cpu"], tokens_per_step=256, total_steps=steps)
for step in range(1, steps + 1):
    writer.train(step, step * 256, 5.0 / step ** 0.5, 1e-3, 0.5, 1000.0, 2.5)
    if step % 10 == 0:
        writer.eval(step, step * 256, 4.0 / step ** 0.5)
    if step % 25 == 0:
        writer.system(0, "cpu")
    time.sleep(delay)
if die:
    with open(os.path.join(run_dir, "metrics.jsonl"), "a") as metrics:
        metrics.write('{"kind":"train","time":1,"step":%d,"lo' % (steps + 1))
    os.kill(os.getpid(), signal.SIGKILL)
writer.finish("finished", "finished %d steps" % steps)
