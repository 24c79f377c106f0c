"""The official @e2b/code-interpreter JS SDK (js/package.json pins it; `scripts/test
code_interpreter` installs it with npm) against the same daemon: js/run.mjs checks
state, JavaScript, bash, a chart's PNG size, a context's cwd, an error and an interrupt
by timeout, and prints one line per check."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent / "js"


def test_the_js_sdk_runs_code_as_the_python_one_does(daemon):
    node = shutil.which("node")
    if node is None:
        pytest.fail("node is not installed (the JS SDK needs Node.js 20 or later)")
    if not (HERE / "node_modules" / "@e2b" / "code-interpreter").is_dir():
        pytest.fail(f"the JS SDK is not installed: run `npm ci` in {HERE}")
    env = dict(os.environ, E2B_API_URL=daemon.url, E2B_SANDBOX_URL=daemon.url, E2B_API_KEY=daemon.api_key)
    done = subprocess.run([node, "run.mjs"], cwd=HERE, env=env, capture_output=True, text=True, timeout=150)
    assert done.returncode == 0, done.stderr[-4000:]
    assert done.stdout.splitlines() == [
        "state ok",
        "js ok",
        "bash ok",
        "chart ok",
        "context ok",
        "error ok",
        "interrupt ok",
    ]
