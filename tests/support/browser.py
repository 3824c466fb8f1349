"""Headless Chromium for the HTML report tests: the page's DOM after its scripts ran, and
screenshots. Tests skip when it is missing (tools/setup.sh --no-build installs it)."""

from __future__ import annotations

import shutil
import subprocess

CHROMIUM = shutil.which("chromium-headless-shell") or shutil.which("chromium")
NO_CHROMIUM = "no chromium-headless-shell (tools/setup.sh --no-build installs it)"


def chromium(*args: str) -> subprocess.CompletedProcess:
    assert CHROMIUM is not None, NO_CHROMIUM
    return subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu",
                           "--virtual-time-budget=5000", *args],
                          capture_output=True, text=True, timeout=120)
