"""The official e2b-code-interpreter SDK against dsh: kernels keep state, results come
back in their formats, errors with tracebacks, output streams in order, contexts are
apart, a cell whose client gives up is interrupted, JavaScript and bash run too.
Exact values throughout."""

from __future__ import annotations

import base64
import struct
import time

import pytest
from e2b import TimeoutException
from e2b_code_interpreter import Sandbox
from e2b_code_interpreter.charts import ChartType


def _png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n", data[:8]
    assert data[12:16] == b"IHDR"
    return struct.unpack(">II", data[16:24])


def test_state_is_kept_across_calls_and_executions_are_counted(daemon):
    sbx = Sandbox.create()
    try:
        first = sbx.run_code("x = 40")
        assert first.error is None
        assert first.results == []
        assert first.execution_count == 1
        second = sbx.run_code("x + 2")
        assert second.text == "42"
        assert second.execution_count == 2
        [result] = second.results
        assert result.is_main_result is True
        assert list(result.formats()) == ["text"]
        info = sbx.get_info()
        assert info.template_id != "base"
        assert sbx.run_code("import os; os.getcwd()").text == "/home/user"
        assert sbx.run_code("import getpass; getpass.getuser()").text == "user"
    finally:
        sbx.kill()


def test_a_matplotlib_chart_comes_back_as_png_with_its_size_and_chart_data(sandbox):
    code = """
import matplotlib.pyplot as plt
%config InlineBackend.print_figure_kwargs = {'bbox_inches': None}
fig = plt.figure(figsize=(4, 3), dpi=100)
plt.plot([1, 2, 3], [3, 1, 2])
plt.title("three points")
plt.show()
"""
    execution = sandbox.run_code(code)
    assert execution.error is None, execution.error
    [chart] = execution.results
    assert chart.is_main_result is False
    assert chart.text == "<Figure size 400x300 with 1 Axes>"
    png = base64.b64decode(chart.png)
    assert _png_size(png) == (400, 300)
    assert chart.chart is not None
    assert chart.chart.type == ChartType.LINE
    assert chart.chart.title == "three points"


def test_a_dataframe_comes_back_as_text_html_and_data(sandbox):
    execution = sandbox.run_code(
        "import pandas as pd\npd.DataFrame({'a': [1, 2], 'b': ['x', 'y']})"
    )
    assert execution.error is None, execution.error
    [frame] = execution.results
    assert frame.is_main_result is True
    assert frame.text == "   a  b\n0  1  x\n1  2  y"
    assert frame.html.startswith("<div>")
    assert '<table border="1" class="dataframe">' in frame.html
    assert "<td>x</td>" in frame.html and "<td>y</td>" in frame.html
    assert frame.data == {"a": [1, 2], "b": ["x", "y"]}
    assert set(frame.formats()) == {"text", "html", "data"}


def test_an_exception_comes_back_with_its_traceback(sandbox):
    execution = sandbox.run_code("def fail():\n    raise ValueError('bad value')\n\nfail()")
    assert execution.results == []
    error = execution.error
    assert error is not None
    assert error.name == "ValueError"
    assert error.value == "bad value"
    assert "\x1b" not in error.traceback  # no terminal colors
    assert "----> 4 fail()" in error.traceback
    assert "----> 2     raise ValueError('bad value')" in error.traceback
    assert error.traceback.rstrip().endswith("ValueError: bad value")
    # The kernel goes on.
    assert sandbox.run_code("'still here'").text == "still here"


def test_output_streams_in_order_as_it_is_printed(sandbox):
    seen: list[tuple[str, str, float]] = []
    started = time.monotonic()
    execution = sandbox.run_code(
        "import sys, time\n"
        "print('one', flush=True)\n"
        "time.sleep(1)\n"
        "print('two', file=sys.stderr, flush=True)\n"
        "time.sleep(1)\n"
        "print('three', flush=True)\n",
        on_stdout=lambda m: seen.append(("out", m.line, time.monotonic() - started)),
        on_stderr=lambda m: seen.append(("err", m.line, time.monotonic() - started)),
    )
    assert execution.error is None
    assert execution.logs.stdout == ["one\n", "three\n"]
    assert execution.logs.stderr == ["two\n"]
    assert [(kind, line) for kind, line, _ in seen] == [("out", "one\n"), ("err", "two\n"), ("out", "three\n")]
    # Streamed as printed, not at the end: a second apart.
    assert seen[1][2] - seen[0][2] >= 0.8
    assert seen[2][2] - seen[1][2] >= 0.8


def test_contexts_are_apart_and_can_be_listed_restarted_and_removed(sandbox):
    one = sandbox.create_code_context()
    other = sandbox.create_code_context(cwd="/tmp", language="python")
    assert (one.language, one.cwd) == ("python", "/home/user")
    assert (other.language, other.cwd) == ("python", "/tmp")
    assert one.id != other.id

    assert sandbox.run_code("secret = 7", context=one).error is None
    missing = sandbox.run_code("secret", context=other)
    assert missing.error.name == "NameError"
    assert missing.error.value == "name 'secret' is not defined"
    assert sandbox.run_code("secret * 6", context=one).text == "42"
    assert sandbox.run_code("import os; os.getcwd()", context=other).text == "/tmp"

    listed = {c.id: (c.language, c.cwd) for c in sandbox.list_code_contexts()}
    assert listed[one.id] == ("python", "/home/user")
    assert listed[other.id] == ("python", "/tmp")
    assert len(listed) == 3  # and the default Python context

    sandbox.remove_code_context(other)
    assert other.id not in {c.id for c in sandbox.list_code_contexts()}

    sandbox.restart_code_context(one)
    gone = sandbox.run_code("secret", context=one)
    assert gone.error.name == "NameError"
    assert sandbox.run_code("import os; os.getcwd()", context=one).text == "/home/user"


def test_env_vars_of_one_call_are_set_for_it_only(sandbox):
    with_var = sandbox.run_code("import os; print(os.environ['GREETING'])", envs={"GREETING": "it's \"here\" $HOME"})
    assert with_var.logs.stdout == ["it's \"here\" $HOME\n"]
    bash = sandbox.run_code("echo \"$GREETING\"", language="bash", envs={"GREETING": "it's $HOME"})
    assert bash.logs.stdout == ["it's $HOME\n"]
    assert sandbox.run_code("echo \"[$GREETING]\"", language="bash").logs.stdout == ["[]\n"]
    assert sandbox.run_code("import os; os.environ.get('GREETING')").text is None


def test_a_cell_whose_client_gives_up_is_interrupted(sandbox):
    assert sandbox.run_code("kept = 'kept'").error is None
    started = time.monotonic()
    with pytest.raises(TimeoutException):
        sandbox.run_code("import time\nwhile True:\n    time.sleep(0.05)", timeout=2)
    assert time.monotonic() - started < 10
    after = time.monotonic()
    # The kernel was interrupted, not restarted: the next cell runs at once, state kept.
    assert sandbox.run_code("kept").text == "kept"
    assert time.monotonic() - after < 12


def test_javascript_runs_and_keeps_its_state(sandbox):
    first = sandbox.run_code("const a = 20;\nconsole.log('js says', a);\na * 2 + 2", language="js")
    assert first.error is None, first.error
    assert first.logs.stdout == ["js says 20\n"]
    assert first.text == "42"
    assert sandbox.run_code("a + 1", language="javascript").text == "21"
    failed = sandbox.run_code("throw new TypeError('nope')", language="js")
    assert failed.error is not None
    assert failed.error.name == "TypeError"
    assert failed.error.value == "nope"
    ts = sandbox.run_code("const n: number = 5;\nn * 3", language="typescript")
    assert ts.text == "15"


def test_bash_runs_and_keeps_its_state(sandbox):
    first = sandbox.run_code("X=5\necho $((X * 2))\npwd", language="bash")
    assert first.error is None, first.error
    assert "".join(first.logs.stdout) == "10\n/home/user\n"
    second = sandbox.run_code("echo \"x is $X\"", language="bash")
    assert "".join(second.logs.stdout) == "x is 5\n"


def test_an_unknown_context_is_not_found(sandbox):
    from e2b import NotFoundException
    from e2b_code_interpreter.models import Context

    with pytest.raises(NotFoundException):
        sandbox.run_code("1", context=Context(context_id="no-such-context", language="python", cwd="/"))


def test_pause_and_connect_keep_the_kernel_and_its_state(daemon):
    sbx = Sandbox.create()
    try:
        assert sbx.run_code("kept = [1, 2, 3]; sum(kept)").text == "6"
        assert sbx.pause() is True
        again = Sandbox.connect(sbx.sandbox_id)
        assert again.run_code("kept.append(4); sum(kept)").text == "10"
        assert again.run_code("len(kept)").execution_count == 3
    finally:
        sbx.kill()
