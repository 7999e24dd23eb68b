#!/usr/bin/env python3
"""Runs the quick start of docs/mixc.md exactly as written (ctest
docs.quickstart).

The first ```sh block of the "## Quick start" section is run verbatim with
`bash -e -o pipefail` in a scratch directory that looks like the repository
root after scripts/build.sh: every top-level entry of the source tree is a
symbolic link to the source, `build` links to the build directory, and `out/`
starts empty, so the source tree is never written. Then:

* every comment `# out/FILE: ... name(...) ...` names a file that exists, and
  for a header every `name(` the comment mentions is declared in it;
* the last comment line of the block is the last line the commands print.
"""

import argparse
import os
import re
import shutil
import subprocess
import sys


def quickstart_block(doc):
    text = open(doc, encoding="utf-8").read()
    section = re.search(r"^## Quick start\n(.*?)(?=^## )", text, re.M | re.S)
    if not section:
        sys.exit(f"{doc}: no '## Quick start' section")
    block = re.search(r"^```sh\n(.*?)^```", section.group(1), re.M | re.S)
    if not block:
        sys.exit(f"{doc}: the quick start has no ```sh block")
    return block.group(1)


def make_scratch(source, build, work):
    if os.path.lexists(work):
        shutil.rmtree(work)
    os.makedirs(work)
    for name in os.listdir(source):
        if name.startswith(".") or name in ("build", "out"):
            continue
        os.symlink(os.path.join(source, name), os.path.join(work, name))
    os.symlink(build, os.path.join(work, "build"))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--source", required=True)
    parser.add_argument("--build", required=True)
    parser.add_argument("--work", required=True)
    args = parser.parse_args()
    source = os.path.abspath(args.source)
    build = os.path.abspath(args.build)
    work = os.path.abspath(args.work)

    block = quickstart_block(os.path.join(source, "docs", "mixc.md"))
    make_scratch(source, build, work)
    print(block, end="")
    proc = subprocess.run(["bash", "-e", "-o", "pipefail", "-c", block],
                          cwd=work, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True)
    print("--- output:\n" + proc.stdout, end="")
    failures = []
    if proc.returncode != 0:
        failures.append(f"the commands exit with status {proc.returncode}")

    comments = [l.split("#", 1)[1].strip() for l in block.splitlines()
                if l.lstrip().startswith("#")]
    for comment in comments:
        m = re.match(r"(out/\S+): (.*)", comment)
        if not m:
            continue
        path = os.path.join(work, m.group(1))
        if not os.path.isfile(path):
            failures.append(f"the doc names {m.group(1)}, which was not written")
            continue
        if path.endswith(".h"):
            header = open(path, encoding="utf-8").read()
            for name in re.findall(r"(\w+)\(", m.group(2)):
                if not re.search(rf"\b{name}\(", header):
                    failures.append(f"{m.group(1)} does not declare {name}")
    lines = proc.stdout.rstrip("\n").splitlines()
    if not comments or not lines or lines[-1] != comments[-1]:
        failures.append("the last line printed is "
                        f"'{lines[-1] if lines else ''}', the doc says "
                        f"'{comments[-1] if comments else ''}'")
    for f in failures:
        print(f"quickstart: {f}", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
