"""The Sandbox port's contract, run against every adapter with real processes: arguments in,
result out, the payload's own errors and prints, skills' files and exit codes, the limits.

The kernel boundary itself (network, filesystem, environment, processes) is bwrap's alone
and is tested over the mesh in tests/integration/capabilities/test_sandbox_boundary.py.
"""

from __future__ import annotations

import json

import pytest

from tool_executor.adapters.bwrap_sandbox import BwrapSandbox
from tool_executor.adapters.sandbox import ProcessSandbox
from tool_executor.domain.sandbox import SandboxLimits, SandboxReason, failure_reason
from tool_executor.service_layer.sandbox import Sandbox

LIMITS = SandboxLimits(wall_seconds=20.0)


def _bwrap() -> BwrapSandbox:
    sandbox = BwrapSandbox()
    sandbox.check()
    return sandbox


@pytest.fixture(params=["bwrap", "process"], scope="module")
def sandbox(request: pytest.FixtureRequest) -> Sandbox:
    return _bwrap() if request.param == "bwrap" else ProcessSandbox()


async def test_arguments_in_result_out(sandbox: Sandbox) -> None:
    source = "def double(a):\n    print('working')\n    return {'n': a['n'] * 2, 'text': 'é汉'}\n"
    result = await sandbox.run_function(source, "double", {"n": 21}, LIMITS)
    assert failure_reason(result) is None and result.exit_code == 0
    assert json.loads(result.stdout) == {"result": {"n": 42, "text": "é汉"}}
    assert "working" in result.stderr  # what it prints is diagnostics


async def test_an_exception_is_the_functions_failure_with_its_traceback(sandbox: Sandbox) -> None:
    source = "def handler(a):\n    raise ValueError('bad input')\n"
    result = await sandbox.run_function(source, "handler", {}, LIMITS)
    assert failure_reason(result) == SandboxReason.FUNCTION_FAILED
    assert "ValueError: bad input" in result.stderr


async def test_a_missing_handler_is_a_failure(sandbox: Sandbox) -> None:
    result = await sandbox.run_function("x = 1\n", "handler", {}, LIMITS)
    assert failure_reason(result) == SandboxReason.FUNCTION_FAILED
    assert "handler not found" in result.stderr


async def test_a_forked_child_does_not_answer_for_the_call(sandbox: Sandbox) -> None:
    source = "import os\ndef handler(a):\n    os.fork()\n    return 'once'\n"
    result = await sandbox.run_function(source, "handler", {}, LIMITS)
    assert result.stdout == json.dumps({"result": "once"})


async def test_the_wall_clock_limit_kills_the_run(sandbox: Sandbox) -> None:
    source = "import time\ndef handler(a):\n    time.sleep(60)\n"
    result = await sandbox.run_function(source, "handler", {}, SandboxLimits(wall_seconds=0.5))
    assert result.timed_out is True


async def test_memory_and_output_limits_are_named(sandbox: Sandbox) -> None:
    memory = await sandbox.run_function(
        "def handler(a):\n    return len(bytearray(2 * 1024 ** 3))\n", "handler", {}, LIMITS
    )
    assert failure_reason(memory) == SandboxReason.MEMORY_LIMIT
    loud = await sandbox.run_function(
        "def handler(a):\n    return 'z' * (8 * 1024 * 1024)\n", "handler", {}, LIMITS
    )
    assert failure_reason(loud) == SandboxReason.OUTPUT_LIMIT and loud.output_exceeded
    assert len(loud.stdout) == LIMITS.max_output_chars and loud.stdout_truncated


async def test_a_skill_runs_its_entry_among_its_files(sandbox: Sandbox) -> None:
    files = {
        "main.py": "import sys, pathlib\n"
        "print(pathlib.Path('data/in.txt').read_text().upper(), *sys.argv[1:])\n"
        "sys.exit(int(sys.argv[-1]))\n",
        "data/in.txt": "hello",
        "../escape.txt": "never written outside the skill's folder",
    }
    done = await sandbox.run_skill(files, "python main.py", ["a", "0"], LIMITS)
    assert (done.exit_code, done.stdout.strip()) == (0, "HELLO a 0")
    failed = await sandbox.run_skill(files, "python main.py", ["3"], LIMITS)
    assert failed.exit_code == 3 and failure_reason(failed) == SandboxReason.FUNCTION_FAILED


async def test_a_skill_with_a_program_entry_runs_it(sandbox: Sandbox) -> None:
    done = await sandbox.run_skill({"a.txt": "x"}, "ls", ["-1"], LIMITS)
    assert done.exit_code == 0 and done.stdout.split() == ["a.txt"]


async def test_skill_output_is_kept_up_to_the_limit_and_marked(sandbox: Sandbox) -> None:
    files = {"run.py": "import sys\nsys.stdout.write('O' * 20000)\nsys.stderr.write('W' * 9000)\n"}
    done = await sandbox.run_skill(files, "python run.py", [], LIMITS)
    assert done.exit_code == 0 and not done.output_exceeded
    assert done.stdout == "O" * 8000 and done.stdout_truncated
    assert done.stderr == "W" * 8000 and done.stderr_truncated
