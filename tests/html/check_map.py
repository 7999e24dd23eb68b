#!/usr/bin/env python3
"""Tests the precision map (mix-lint --format=html, mixc --report-html) in a
real browser: Debian's headless Chromium loads the page, runs its script and
prints the DOM (--dump-dom), which this script checks.

  check_map.py examples    For every bundled example (examples/*.mlir): the
                           layers per color (and per stripe) in the DOM equal
                           the counts computed here from `mix-lint --explain
                           --format json`; a screenshot of each page is kept
                           in ARTIFACTS/<example>.png. The edge INT8 example
                           compiled with mixc --report-html: every layer
                           shows the weight bytes and int32 margin of the
                           JSON report.
  check_map.py no-network  Chromium's network log (--log-net-log) of loading
                           a map has no http/https/ws/ftp request; a control
                           page that does fetch must show up in the same log.
  check_map.py scale       A generated 10,000-layer model (100 blocks of 100
                           layers): the DOM has 10,000 layers with the counts
                           of --explain; the blocks start collapsed; search
                           finds and shows the layers of one block; collapse
                           all hides every layer in a block, expand all shows
                           them again; prints the render time and the page's
                           size.

Options: --bin DIR (mix-lint, mixc), --root DIR (the sources), --artifacts DIR
(pages, DOMs, screenshots, logs), --chromium PATH (default: chromium).
"""

import argparse
import collections
import html.parser
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

PROPS = ["weights", "activations", "accumulator", "output"]

failures = []


def fail(message):
    failures.append(message)
    print("FAIL: " + message, flush=True)


def run(cmd, ok_codes=(0,), **kw):
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True, **kw)
    if proc.returncode not in ok_codes:
        sys.exit(f"command failed ({proc.returncode}): {' '.join(cmd)}\n"
                 f"{proc.stderr}")
    return proc


class Chromium:
    """Headless Chromium, isolated (its own profile) and quiet: no first-run
    pages, sync, extensions, component updates or other background traffic,
    so that the network log holds what the page does."""

    def __init__(self, path, workdir):
        found = shutil.which(path)
        if not found:
            sys.exit(f"'{path}' not found: install Chromium "
                     "(apt-get install chromium; scripts/setup.sh does)")
        self.path = found
        self.workdir = workdir
        self.runs = 0

    def __call__(self, url, *flags, timeout=300):
        self.runs += 1
        profile = os.path.join(self.workdir, f"profile-{self.runs}")
        cmd = [self.path, "--headless", "--no-sandbox", "--disable-gpu",
               "--no-first-run", "--no-default-browser-check",
               "--disable-background-networking", "--disable-component-update",
               "--disable-sync", "--disable-extensions", "--disable-default-apps",
               "--disable-domain-reliability", "--metrics-recording-only",
               "--hide-scrollbars", "--mute-audio",
               f"--user-data-dir={profile}", *flags, url]
        start = time.monotonic()
        proc = subprocess.run(cmd, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True,
                              timeout=timeout)
        elapsed = time.monotonic() - start
        if proc.returncode != 0:
            sys.exit(f"chromium failed ({proc.returncode}) on {url}:\n"
                     f"{proc.stderr[-2000:]}")
        return proc.stdout, elapsed

    def dom(self, page, fragment=""):
        return self(f"file://{os.path.abspath(page)}{fragment}", "--dump-dom")

    def screenshot(self, page, png, size="1400,1000"):
        self(f"file://{os.path.abspath(page)}", f"--screenshot={png}",
             f"--window-size={size}")


class DomLayers(html.parser.HTMLParser):
    """The layer elements of a dumped DOM (class "layer ..."), in document
    order, with their data-* attributes; and the #selftest text."""

    def __init__(self):
        super().__init__()
        self.layers = []
        self.scopes = 0
        self.collapsible = 0
        self.body = {}
        self.selftest = None
        self._in_selftest = False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        classes = (a.get("class") or "").split()
        if tag == "div" and "layer" in classes:
            self.layers.append({k[5:]: v for k, v in a.items()
                                if k.startswith("data-")})
        if tag == "section" and "scope" in classes:
            self.scopes += 1
        if tag == "button" and "toggle" in classes:
            self.collapsible += 1
        if tag == "body":
            self.body = a
        if tag == "pre" and a.get("id") == "selftest":
            self._in_selftest = True
            self.selftest = ""

    def handle_endtag(self, tag):
        if tag == "pre":
            self._in_selftest = False

    def handle_data(self, data):
        if self._in_selftest:
            self.selftest += data


def parse_dom(text):
    p = DomLayers()
    p.feed(text)
    return p


def kind(precision):
    """The color of a precision: int8 schemes are one color."""
    return precision.split("<")[0]


def explain(bin_dir, model, cwd=None):
    """The rows of mix-lint --explain --format json (exit 0 or 1)."""
    proc = run([os.path.join(bin_dir, "mix-lint"), model, "--explain",
                "--format", "json"], ok_codes=(0, 1), cwd=cwd)
    return json.loads(proc.stdout)["layers"]


def expected_kinds(rows):
    """Per layer, the color of each property as --explain gives it ("none"
    for the weights of a layer without)."""
    return [{p: kind(r["properties"][p]["precision"])
             if p in r["properties"] else "none" for p in PROPS} for r in rows]


def compare_counts(name, rows, dom):
    want = expected_kinds(rows)
    got = [{p: layer.get(p) for p in PROPS} for layer in dom.layers]
    if len(got) != len(want):
        fail(f"{name}: {len(got)} layers in the DOM, --explain has {len(want)}")
        return
    for prop in PROPS:
        w = collections.Counter(k[prop] for k in want)
        g = collections.Counter(k[prop] for k in got)
        if w != g:
            fail(f"{name}: {prop} per precision: DOM {dict(g)}, "
                 f"--explain {dict(w)}")
    # The box color is the activations precision.
    colors = collections.Counter(layer.get("color") for layer in dom.layers)
    w = collections.Counter(k["activations"] for k in want)
    if colors != w:
        fail(f"{name}: layers per color: DOM {dict(colors)}, --explain {dict(w)}")
    # And layer by layer, in the model's order.
    if got != want:
        first = next(i for i, (a, b) in enumerate(zip(got, want)) if a != b)
        fail(f"{name}: layer {first} ({rows[first]['location']}): DOM {got[first]}, "
             f"--explain {want[first]}")
    print(f"{name}: {len(got)} layers; per color "
          f"{dict(sorted(colors.items()))} as --explain", flush=True)


def check_examples(args, chromium):
    examples = sorted(f for f in os.listdir(os.path.join(args.root, "examples"))
                      if f.endswith(".mlir"))
    if not examples:
        fail("no examples found")
    for example in examples:
        name = example[:-5]
        model = os.path.join("examples", example)
        rows = explain(args.bin, model, cwd=args.root)
        page = os.path.join(args.artifacts, name + ".html")
        run([os.path.join(args.bin, "mix-lint"), model, "--format=html",
             "-o", page], ok_codes=(0, 1), cwd=args.root)
        text, elapsed = chromium.dom(page)
        with open(os.path.join(args.artifacts, name + ".dom.html"), "w") as f:
            f.write(text)
        dom = parse_dom(text)
        compare_counts(name, rows, dom)
        if dom.collapsible != dom.scopes or dom.scopes == 0:
            fail(f"{name}: {dom.scopes} boxes, {dom.collapsible} collapsible")
        png = os.path.join(args.artifacts, name + ".png")
        if os.path.exists(png):
            os.unlink(png)
        chromium.screenshot(page, png)
        with open(png, "rb") as f:
            head = f.read(8)
        if head != b"\x89PNG\r\n\x1a\n" or os.path.getsize(png) < 10000:
            fail(f"{name}: no screenshot in {png}")
        else:
            print(f"{name}: screenshot {png} ({os.path.getsize(png)} bytes)")

    # Search and details, on the resnet example: "conv2d" finds the conv2d
    # layers (no other path, op, location or source contains the word).
    rows = explain(args.bin, "examples/resnet.mlir", cwd=args.root)
    want = sum(1 for r in rows if r["op"] == "mix.conv2d")
    text, _ = chromium.dom(os.path.join(args.artifacts, "resnet.html"),
                           "#selftest=search:conv2d;click:0")
    dom = parse_dom(text)
    result = json.loads(dom.selftest or "{}")
    steps = result.get("steps", [])
    if len(steps) != 2 or steps[0].get("matches") != want or \
            steps[0].get("shown") != want:
        fail(f"resnet: search 'conv2d' should find {want} layers: {result}")
    elif not steps[1].get("details", "").startswith("resnet/"):
        fail(f"resnet: clicking layer 0 shows no details: {result}")
    else:
        print(f"resnet: search 'conv2d' finds {want} layers; click shows "
              f"{steps[1]['details']}")

    # Compiled: the edge example with its example weights.
    with tempfile.TemporaryDirectory() as tmp:
        run([sys.executable, os.path.join(args.root, "examples", "embed-app",
                                          "make_data.py"), tmp])
        page = os.path.join(args.artifacts, "edge_int8.compiled.html")
        report = os.path.join(tmp, "report.json")
        run([os.path.join(args.bin, "mixc"), "examples/edge_int8.mlir",
             "--weights", os.path.join(tmp, "weights.safetensors"),
             "-o", os.path.join(tmp, "edge"), "--report-html", page,
             "--report", report], cwd=args.root)
        with open(report) as f:
            layers = json.load(f)["layers"]
    text, _ = chromium.dom(page)
    dom = parse_dom(text)
    rows = explain(args.bin, "examples/edge_int8.mlir", cwd=args.root)
    compare_counts("edge_int8 (mixc)", rows, dom)
    chromium.screenshot(page, os.path.join(args.artifacts,
                                           "edge_int8.compiled.png"))
    for layer, el in zip(layers, dom.layers):
        if str(layer["weight_bytes"]) != el.get("weight-bytes"):
            fail(f"edge_int8 (mixc): {layer['layer']}: weight bytes "
                 f"{el.get('weight-bytes')}, the report says "
                 f"{layer['weight_bytes']}")
        margin = layer.get("int32_proof", {}).get("margin")
        if (str(margin) if margin is not None else None) != el.get("margin"):
            fail(f"edge_int8 (mixc): {layer['layer']}: int32 margin "
                 f"{el.get('margin')}, the report says {margin}")
    print(f"edge_int8 (mixc): weight bytes and int32 margins of "
          f"{len(layers)} layers as the JSON report")


NETWORK_SCHEMES = re.compile(r"^(https?|wss?|ftp)://", re.I)


def network_requests(netlog):
    """The http/https/ws/wss/ftp requests of pages in a Chromium network log,
    and those of the browser itself. Every request starts a job
    (URL_REQUEST_START_JOB) whose `initiator` is the origin of the document
    that asked ("null" for a file:// page); the browser's own traffic
    (component updates, account checks, which some Chromium builds send
    despite the flags) says "not an origin"."""
    with open(netlog, encoding="utf-8", errors="replace") as f:
        text = f.read()
    # A log cut short (the browser exiting) lacks the closing brackets.
    try:
        log = json.loads(text)
    except json.JSONDecodeError:
        log = json.loads(text.rstrip().rstrip(",") + "]}")
    types = {v: k for k, v in log["constants"]["logEventTypes"].items()}
    page, browser = set(), set()
    for event in log.get("events", []):
        params = event.get("params") or {}
        url = params.get("url", "")
        if not NETWORK_SCHEMES.match(url):
            continue
        if types.get(event["type"]) != "URL_REQUEST_START_JOB":
            continue
        if params.get("initiator", "") == "not an origin" and \
                "file://" not in params.get("network_isolation_key", ""):
            browser.add(url)
        else:
            page.add(url)
    return sorted(page), sorted(browser)


def check_no_network(args, chromium):
    page = os.path.join(args.artifacts, "no-network.html")
    run([os.path.join(args.bin, "mix-lint"), "examples/transformer.mlir",
         "--format=html", "-o", page], ok_codes=(0, 1), cwd=args.root)
    with open(page, encoding="utf-8") as f:
        source = f.read()
    # Statically: no reference to anything outside the page.
    for pattern in [r"<link\b", r"\bsrc\s*=", r"@import", r"\burl\(",
                    r"(?i)https?://(?!json\.schemastore)"]:
        if re.search(pattern, source):
            fail(f"the page refers to something outside: /{pattern}/")
    # In the browser: the page and its self-test (search, click) make no
    # request.
    netlog = os.path.join(args.artifacts, "no-network.netlog.json")
    text, _ = chromium(f"file://{os.path.abspath(page)}#selftest=search:dense;click:0",
                       "--dump-dom", f"--log-net-log={netlog}",
                       "--net-log-capture-mode=Everything")
    if not parse_dom(text).layers:
        fail("no-network: the page drew no layers")
    requests, browser = network_requests(netlog)
    if requests:
        fail(f"no-network: the map made requests: {requests}")
    else:
        print(f"no-network: the map made no http/https/ws/ftp request (the "
              f"browser itself made {len(browser)}, not the page's)")
    # The control: a page that requests must be seen in the same kind of log.
    control = os.path.join(args.artifacts, "control.html")
    with open(control, "w") as f:
        f.write('<!DOCTYPE html><html><body><img src="http://127.0.0.1:9/probe.png">'
                '<script>fetch("http://127.0.0.1:9/fetch").catch(function(){});'
                '</script></body></html>\n')
    control_log = os.path.join(args.artifacts, "control.netlog.json")
    chromium(f"file://{os.path.abspath(control)}", "--dump-dom",
             f"--log-net-log={control_log}", "--net-log-capture-mode=Everything")
    seen, _ = network_requests(control_log)
    if sorted(seen) != ["http://127.0.0.1:9/fetch",
                        "http://127.0.0.1:9/probe.png"]:
        fail(f"no-network: the control page's requests are not in the log "
             f"({seen}): the check would not see a request")
    else:
        print(f"no-network: the control page's requests are seen: {seen}")


def write_scale_model(path, blocks=100, per_block=100):
    """A 10,000-layer network: blocks cycle through f16, bf16, f32 and
    inheriting; in each block, dense layers (every fourth int8 by layer
    precision), relus, adds, layer norms at f32 (a sensitive op)."""
    precisions = ["f16", "bf16", "f32", None]
    lines = ["mix.network @big precision(f32) (%x: tensor<1x8xf32>) -> tensor<1x8xf32> {",
             '  %w = mix.weight external "w" : tensor<8x8xf32>',
             '  %g = mix.weight external "g" : tensor<8xf32>']
    t = "tensor<1x8xf32>"
    prev = "%x"
    for b in range(blocks):
        p = precisions[b % len(precisions)]
        prec = f" precision({p})" if p else ""
        lines.append(f"  %b{b} = mix.block @b{b}{prec} (%a = {prev}, %k = %w, %s = %g) "
                     f": ({t}, tensor<8x8xf32>, tensor<8xf32>) -> {t} {{")
        cur = "%a"
        for i in range(per_block):
            v = f"%v{i}"
            r = i % 4
            if r == 0:
                over = " precision(int8)" if i % 8 == 0 else ""
                lines.append(f"    {v} = mix.dense {cur}, %k{over} : ({t}, tensor<8x8xf32>) -> {t}")
            elif r == 1:
                lines.append(f"    {v} = mix.relu {cur} : ({t}) -> {t}")
            elif r == 2:
                lines.append(f"    {v} = mix.layer_norm {cur}, %s, %s precision(f32) "
                             f"{{axis = 1 : i64}} : ({t}, tensor<8xf32>, tensor<8xf32>) -> {t}")
            else:
                lines.append(f"    {v} = mix.add {cur}, %a : ({t}, {t}) -> {t}")
            cur = v
        lines.append(f"    mix.yield {cur} : {t}")
        lines.append("  }")
        prev = f"%b{b}"
    lines.append(f"  mix.return {prev} : {t}")
    lines.append("}")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def check_scale(args, chromium):
    model = os.path.join(args.artifacts, "scale-10000.mlir")
    write_scale_model(model)
    rows = explain(args.bin, model)
    if len(rows) != 10000:
        fail(f"scale: the generated model has {len(rows)} layers, not 10000")
    page = os.path.join(args.artifacts, "scale-10000.html")
    start = time.monotonic()
    run([os.path.join(args.bin, "mix-lint"), model, "--format=html", "-o", page],
        ok_codes=(0, 1))
    lint_time = time.monotonic() - start
    size = os.path.getsize(page)
    text, elapsed = chromium.dom(
        page, "#selftest=state;search:big/b42/;collapse-all;expand-all")
    dom = parse_dom(text)
    compare_counts("scale", rows, dom)
    want_search = sum(1 for r in rows if r["scope"] == "block @b42")
    result = json.loads(dom.selftest or "{}")
    steps = result.get("steps", [])
    if len(steps) != 4:
        fail(f"scale: the self-test did not run: {result}")
    else:
        # A model this large starts with its 100 blocks collapsed.
        if steps[0].get("visibleLayers") != 0 or steps[0].get("collapsed") != 100:
            fail(f"scale: the blocks should start collapsed: {steps[0]}")
        # Search opens the block of the matches, and only that one.
        if steps[1].get("matches") != want_search or \
                steps[1].get("shown") != want_search or \
                steps[1].get("visibleLayers") != want_search:
            fail(f"scale: search 'big/b42/' should find and show "
                 f"{want_search}: {steps[1]}")
        if steps[2].get("visibleLayers") != 0 or steps[2].get("collapsed") != 100:
            fail(f"scale: collapse all should hide every layer: {steps[2]}")
        if steps[3].get("visibleLayers") != 10000 or steps[3].get("collapsed") != 0:
            fail(f"scale: expand all should show every layer: {steps[3]}")
    render_ms = dom.body.get("data-render-ms")
    chromium.screenshot(page, os.path.join(args.artifacts, "scale-10000.png"))
    print(f"scale: 10000 layers, page {size} bytes ({size / 1e6:.2f} MB), "
          f"mix-lint {lint_time:.2f} s, drawn by the script in {render_ms} ms, "
          f"chromium load + dump {elapsed:.2f} s; search, collapse and expand "
          f"as expected")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("what", choices=["examples", "no-network", "scale"])
    parser.add_argument("--bin", required=True)
    parser.add_argument("--root", required=True)
    parser.add_argument("--artifacts", required=True)
    parser.add_argument("--chromium", default="chromium")
    args = parser.parse_args()
    args.bin = os.path.abspath(args.bin)
    args.root = os.path.abspath(args.root)
    args.artifacts = os.path.abspath(args.artifacts)
    os.makedirs(args.artifacts, exist_ok=True)
    with tempfile.TemporaryDirectory() as work:
        chromium = Chromium(args.chromium, work)
        {"examples": check_examples, "no-network": check_no_network,
         "scale": check_scale}[args.what](args, chromium)
    if failures:
        print(f"{len(failures)} failure(s)")
        return 1
    print("all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
