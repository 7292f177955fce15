#!/usr/bin/env python3
"""tutorial_code.py TRAIN TUTORIAL: docs/tutorial.md cannot rot silently.

Every ```python block of the page compiles and passes pyflakes (each block alone: an example
must name everything it uses), and the table of what fits, between the page's plan-table
markers, is exactly what tests/export/plan_table.py prints from the planner (TRAIN is
traindeck-train). The examples need GPUs, TPUs and frameworks the test machines lack, so they
are checked, not run.
"""
import os
import re
import sys

try:
    from pyflakes.api import check
    from pyflakes.reporter import Reporter
except ImportError:
    print("tutorial_code: FAILED: %s has no pyflakes: sudo apt-get install -y python3-pyflakes "
          "(packaging/install-deps.sh installs it)" % sys.executable)
    sys.exit(1)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import plan_table  # noqa: E402  (beside this file)

BLOCK = re.compile(r"^```python\n(.*?)^```", re.S | re.M)
TABLE = re.compile(r"<!-- plan-table: [^>]*-->\n(.*?)<!-- /plan-table -->", re.S)


def main():
    train, page = sys.argv[1], sys.argv[2]
    text = open(page).read()
    failed = 0
    blocks = [(text.count("\n", 0, m.start()) + 2, m.group(1)) for m in BLOCK.finditer(text)]
    if len(blocks) < 4:
        print("tutorial_code: FAILED: %s has %d python blocks; the four paths want one each" % (page, len(blocks)))
        return 1
    for line, source in blocks:
        name = "%s, block at line %d" % (page, line)
        try:
            compile(source, name, "exec")
        except SyntaxError as error:
            print("tutorial_code: does not compile:", error)
            failed += 1
            continue
        if check(source, name, Reporter(sys.stdout, sys.stdout)):
            print("tutorial_code: pyflakes warned on", name)
            failed += 1
    tables = TABLE.findall(text)
    if len(tables) != 1:
        print("tutorial_code: FAILED: %s has %d plan-table sections, not 1" % (page, len(tables)))
        return 1
    made = plan_table.table(train)
    if tables[0] != made:
        print("tutorial_code: the page's table of what fits is not the planner's; replace it with:\n" + made)
        failed += 1
    if failed:
        return 1
    print("tutorial_code: %d python blocks compile and pass pyflakes; the plan table is the planner's" % len(blocks))
    return 0


if __name__ == "__main__":
    sys.exit(main())
