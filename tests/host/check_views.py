#!/usr/bin/python3
"""Host side of the views' tests: each flame graph the guest suites wrote
(build/vm/flame-<kver>.svg, written by tests/guest/test_fibtrace_truth.py's
run in context and checked there by test_fibtrace_views.comp_tree) opened in
headless Chromium, screenshotted, and the screenshot checked not blank: many
colours, most of the frame drawn. Prints PASS/FAIL/SKIP lines for
tests/run.sh; the screenshots stay in build/vm/ for a person to look at.
"""
import glob
import os
import shutil
import subprocess
import sys
import tempfile

try:
    from PIL import Image
except ImportError:
    Image = None

CHROME_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--hide-scrollbars", "--window-size=1200,900"]


def result(status, name, detail=""):
    print(f"{status} host/{name}{': ' + detail if detail else ''}", flush=True)
    return status != "FAIL"


def screenshot(chrome, svg, png):
    with tempfile.TemporaryDirectory() as profile:
        p = subprocess.run([chrome] + CHROME_FLAGS + [f"--user-data-dir={profile}",
                                                      f"--screenshot={png}",
                                                      "file://" + os.path.abspath(svg)],
                           capture_output=True, text=True, timeout=120)
    return p.returncode, p.stderr.strip()[-300:]


def check_png(png):
    """(ok, detail): distinct colours and the share of pixels that are not background."""
    img = Image.open(png).convert("RGB")
    w, h = img.size
    px = img.load()
    colours, drawn = set(), 0
    for y in range(0, h, 3):
        for x in range(0, w, 3):
            c = px[x, y]
            colours.add(c)
            if c != (255, 255, 255) and c != px[0, 0]:
                drawn += 1
    share = drawn / ((w // 3 + 1) * (h // 3 + 1))
    return len(colours) >= 20 and share >= 0.05, f"{w}x{h}, {len(colours)} colours, {share:.0%} drawn"


def main():
    svgs = sorted(glob.glob("build/vm/flame-*.svg"))
    chrome = shutil.which("chromium") or shutil.which("chromium-browser")
    if not svgs:
        return result("SKIP", "flamegraph.browser", "no build/vm/flame-*.svg (the guest test did not write one)")
    if not chrome or not Image:
        return result("FAIL", "flamegraph.browser", "chromium or python3-pil missing (make deps installs them)")
    ok = True
    for svg in svgs:
        name = "flamegraph.browser." + os.path.basename(svg)[len("flame-"):-len(".svg")]
        png = svg[:-4] + ".png"
        if os.path.exists(png):
            os.unlink(png)
        rc, err = screenshot(chrome, svg, png)
        if rc or not os.path.exists(png):
            ok = result("FAIL", name, f"chromium exit {rc}: {err}") and ok
            continue
        good, detail = check_png(png)
        ok = result("PASS" if good else "FAIL", name, "" if good else f"{png}: {detail}") and ok
    return ok


sys.exit(0 if main() else 1)
