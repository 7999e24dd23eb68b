#!/usr/bin/env python3
"""Executes the examples in the Markdown docs so they cannot go stale.

* ```mlir blocks that contain a complete `mix.network` are parsed and
  verified with `mix-opt` (fragments, e.g. a single op, are skipped).
* ```console blocks are transcripts: each line starting with `$ ` is a
  command run with bash from the repository root (with the build's tools on
  PATH); the lines up to the next `$ ` line are its expected combined
  stdout+stderr, compared exactly.
* ```json blocks in policy.md that hold a policy object are loaded with
  `mix-lint --policy` and must be accepted.
* ```cpp blocks that include `mix/dsl.h` and have a `main` are programs of
  the C++ DSL: each is compiled (c++ -std=c++17 -I dsl/include) and run,
  and what it prints must parse and verify with `mix-opt`. A block tagged
  ```cpp file=PATH must also be PATH's text, exactly (so the page shows
  the file a test builds).
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile

BLOCK = re.compile(r"^```(\w+)([^\n]*)\n(.*?)^```", re.M | re.S)


def run(cmd, root, env):
    proc = subprocess.run(["bash", "-c", cmd], cwd=root, env=env,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True)
    return proc.returncode, proc.stdout


def check_dsl_program(where, info, body, root, env, failures):
    """Compiles and runs a C++ DSL program; mix-opt checks what it prints."""
    tag = re.search(r"\bfile=(\S+)", info)
    if tag:
        try:
            text = open(os.path.join(root, tag.group(1)), encoding="utf-8").read()
        except OSError as e:
            failures.append(f"{where}: {e}")
            return
        if text != body:
            failures.append(f"{where}: the block differs from {tag.group(1)}")
            return
    with tempfile.TemporaryDirectory() as tmp:
        source = os.path.join(tmp, "example.cpp")
        with open(source, "w", encoding="utf-8") as f:
            f.write(body)
        exe = os.path.join(tmp, "example")
        code, out = run(f"c++ -std=c++17 -Wall -Werror -I dsl/include "
                        f"{source} -o {exe}", root, env)
        if code != 0:
            failures.append(f"{where}: the C++ example does not compile:\n{out}")
            return
        model = os.path.join(tmp, "model.mlir")
        code, out = run(f"{exe} > {model}", root, env)
        if code != 0:
            failures.append(f"{where}: the C++ example fails:\n{out}")
            return
        code, out = run(f"mix-opt {model} -o /dev/null", root, env)
        if code != 0:
            failures.append(f"{where}: the C++ example prints a model that "
                            f"does not verify:\n{out}")


def check_file(path, root, env, failures):
    text = open(path, encoding="utf-8").read()
    checked = 0
    for match in BLOCK.finditer(text):
        lang, info, body = match.group(1), match.group(2), match.group(3)
        line = text.count("\n", 0, match.start()) + 1
        where = f"{os.path.relpath(path, root)}:{line}"
        if lang == "mlir" and "mix.network" in body:
            with tempfile.NamedTemporaryFile("w", suffix=".mlir", delete=False) as f:
                f.write(body)
            code, out = run(f"mix-opt {f.name} -o /dev/null", root, env)
            os.unlink(f.name)
            if code != 0:
                failures.append(f"{where}: mlir example does not parse:\n{out}")
            checked += 1
        elif lang == "console":
            commands = []
            for l in body.splitlines():
                if l.startswith("$ "):
                    commands.append([l[2:], []])
                elif commands:
                    commands[-1][1].append(l)
            for cmd, expected in commands:
                _, out = run(cmd, root, env)
                got = out.rstrip("\n").splitlines()
                want = "\n".join(expected).rstrip("\n").splitlines()
                if got != want:
                    failures.append(
                        f"{where}: `{cmd}` printed:\n" + "\n".join(got) +
                        "\n--- but the doc says:\n" + "\n".join(want))
                checked += 1
        elif lang == "cpp" and "mix/dsl.h" in body and "int main" in body:
            check_dsl_program(where, info, body, root, env, failures)
            checked += 1
        elif lang == "json" and os.path.basename(path) == "policy.md":
            with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
                f.write(body)
            code, out = run(f"mix-lint examples/resnet.mlir --policy {f.name}",
                            root, env)
            os.unlink(f.name)
            if code == 2:
                failures.append(f"{where}: policy example is rejected:\n{out}")
            checked += 1
    return checked


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--root", required=True)
    parser.add_argument("--bin", required=True)
    parser.add_argument("docs")
    args = parser.parse_args()
    env = dict(os.environ)
    env["PATH"] = args.bin + os.pathsep + env.get("PATH", "")
    failures = []
    total = 0
    for name in sorted(os.listdir(args.docs)):
        if name.endswith(".md"):
            total += check_file(os.path.join(args.docs, name), args.root, env,
                                failures)
    for f in failures:
        print(f, file=sys.stderr)
    print(f"docs: {total} examples checked, {len(failures)} failed")
    return 1 if failures or total == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
