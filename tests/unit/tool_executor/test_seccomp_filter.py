"""The sandbox's seccomp program, run on a small classic-BPF interpreter (the opcodes it uses),
and its syscall numbers checked against the machine's libseccomp tables where there is one.

That the kernel applies it to a real run is tested over the mesh in
tests/integration/capabilities/test_sandbox_boundary.py."""

from __future__ import annotations

import ctypes
import ctypes.util
import struct

import pytest

from tool_executor.adapters.bwrap_sandbox import BwrapSandbox
from tool_executor.adapters.seccomp_filter import (
    CLONE_NEW_FLAGS,
    DENIED,
    ENOSYS,
    EPERM,
    RET_ALLOW,
    RET_ERRNO,
    RET_KILL_PROCESS,
    TABLES,
    X32_SYSCALL_BIT,
    SyscallTable,
    UnsupportedArchitecture,
    machine_table,
    program,
)
from tool_executor.service_layer.sandbox import SandboxUnavailable

CLONE_NEW = {"ns": 0x00020000, "cgroup": 0x02000000, "uts": 0x04000000, "ipc": 0x08000000,
             "user": 0x10000000, "pid": 0x20000000, "net": 0x40000000}
SIGCHLD = 17
CLONE_THREAD_FLAGS = 0x003D0F00  # what glibc's pthread_create passes to clone


def evaluate(code: bytes, nr: int, arch: int, args: tuple[int, ...] = ()) -> int:
    """What the kernel would decide: the program run on one ``struct seccomp_data``."""
    padded = (*args, *([0] * (6 - len(args))))
    data = struct.pack("=iIQ6Q", nr, arch, 0, *padded)
    instructions = [struct.unpack_from("=HBBI", code, at) for at in range(0, len(code), 8)]
    accumulator, pc = 0, 0
    while True:
        op, jt, jf, k = instructions[pc]
        if op == 0x20:  # ld [k]
            accumulator = struct.unpack_from("=I", data, k)[0]
            pc += 1
        elif op in (0x15, 0x35, 0x45):  # jeq / jge / jset #k
            taken = {0x15: accumulator == k, 0x35: accumulator >= k, 0x45: bool(accumulator & k)}[op]
            pc += 1 + (jt if taken else jf)
        elif op == 0x06:  # ret #k
            return k
        else:
            raise AssertionError(f"opcode {op:#x} not expected in the program")


@pytest.fixture(params=sorted(TABLES))
def table(request: pytest.FixtureRequest) -> SyscallTable:
    return TABLES[request.param]


def test_every_denied_call_is_refused_with_eperm(table: SyscallTable) -> None:
    code = program(table)
    for name in DENIED:
        assert evaluate(code, table.numbers[name], table.audit_arch) == RET_ERRNO | EPERM, name


def test_ordinary_calls_are_allowed(table: SyscallTable) -> None:
    code = program(table)
    refused = {table.numbers[name] for name in (*DENIED, "clone3")}
    for nr in range(0, 460):
        if nr not in refused and nr != table.numbers["clone"]:
            assert evaluate(code, nr, table.audit_arch) == RET_ALLOW, nr


def test_clone_is_allowed_for_processes_and_threads_but_not_new_namespaces(table: SyscallTable) -> None:
    code, clone = program(table), table.numbers["clone"]
    assert evaluate(code, clone, table.audit_arch, (SIGCHLD,)) == RET_ALLOW
    assert evaluate(code, clone, table.audit_arch, (CLONE_THREAD_FLAGS,)) == RET_ALLOW
    for name, flag in CLONE_NEW.items():
        assert evaluate(code, clone, table.audit_arch, (flag | SIGCHLD,)) == RET_ERRNO | EPERM, name
    assert sum(CLONE_NEW.values()) == CLONE_NEW_FLAGS


def test_clone3_answers_enosys_so_libc_falls_back_to_clone(table: SyscallTable) -> None:
    assert evaluate(program(table), table.numbers["clone3"], table.audit_arch) == RET_ERRNO | ENOSYS


def test_a_call_of_another_abi_kills_the_process(table: SyscallTable) -> None:
    other = next(t.audit_arch for t in TABLES.values() if t is not table)
    for nr in (0, 1, table.numbers["ptrace"]):
        assert evaluate(program(table), nr, other) == RET_KILL_PROCESS
    assert evaluate(program(table), 11, 0x40000003) == RET_KILL_PROCESS  # i386 (int 0x80)


def test_x32_calls_are_refused_on_x86_64() -> None:
    table = TABLES["x86_64"]
    assert evaluate(program(table), X32_SYSCALL_BIT | 39, table.audit_arch) == RET_ERRNO | EPERM


def test_the_machine_names_its_table_and_an_unknown_one_is_refused() -> None:
    assert machine_table("x86_64") is machine_table("AMD64") is TABLES["x86_64"]
    assert machine_table("arm64") is TABLES["aarch64"]
    with pytest.raises(UnsupportedArchitecture, match="TOOL_EXECUTOR_SANDBOX_SECCOMP=false"):
        machine_table("riscv64")


def test_an_unsupported_machine_stops_the_bwrap_sandbox_unless_the_filter_is_off(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr("platform.machine", lambda: "s390x")
    with pytest.raises(SandboxUnavailable, match="s390x"):
        BwrapSandbox("sh")
    BwrapSandbox("sh", seccomp=False)  # runs without the filter, as asked


def test_bwrap_is_given_the_filter_descriptor() -> None:
    from tool_executor.domain.sandbox import SandboxLimits

    argv = BwrapSandbox("sh").argv(1000, SandboxLimits(), "function", seccomp_fd=9)
    at = argv.index("--seccomp")
    assert argv[at + 1] == "9" and at < argv.index("--")
    assert "--seccomp" not in BwrapSandbox("sh").argv(1000, SandboxLimits(), "function")


def _libseccomp() -> ctypes.CDLL | None:
    name = ctypes.util.find_library("seccomp")
    return ctypes.CDLL(name) if name else None


@pytest.mark.skipif(_libseccomp() is None, reason="libseccomp is not installed")
def test_the_numbers_are_those_of_libseccomp(table: SyscallTable) -> None:
    lib = _libseccomp()
    assert lib is not None
    resolve = lib.seccomp_syscall_resolve_name_arch
    resolve.argtypes, resolve.restype = [ctypes.c_uint32, ctypes.c_char_p], ctypes.c_int
    for name, number in table.numbers.items():
        assert resolve(table.audit_arch, name.encode()) == number, name
