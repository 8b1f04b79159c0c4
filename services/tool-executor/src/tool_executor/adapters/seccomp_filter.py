"""The sandbox's seccomp filter: a classic BPF program that bwrap loads (``--seccomp FD``)
just before it starts the payload, so every process of a run carries it.

A deny list, not an allow list: ordinary programs (Python, its C extensions, a subprocess)
keep working, and what an unprivileged payload never needs but a kernel exploit often does
is refused with ``EPERM``:

- other processes' memory and tracing (``ptrace``, ``process_vm_*``, ``kcmp``, ``pidfd_getfd``);
- new namespaces (``unshare``, ``setns``, ``clone`` with a ``CLONE_NEW*`` flag; ``clone3``,
  whose flags sit in memory a filter cannot read, answers ``ENOSYS`` so libc falls back to
  ``clone``), which is how unprivileged user namespaces reach kernel code meant for root;
- mounts and the new mount API, swap, reboot, kernel modules, ``kexec``;
- ``bpf``, ``perf_event_open``, ``userfaultfd``, ``io_uring_*``, the kernel keyring,
  file handles (``open_by_handle_at``), the clock, ``acct``, ``quotactl``, ``syslog``.

A system call of another ABI (i386 through ``int 0x80`` on x86_64, whose numbers differ)
kills the process; x32 system calls are refused. Numbers are those of x86_64 and aarch64
(``tests/unit/tool_executor/test_seccomp_filter.py`` checks them against libseccomp's tables).
"""

from __future__ import annotations

import platform
import struct
from dataclasses import dataclass

# struct seccomp_data: int nr; __u32 arch; __u64 instruction_pointer; __u64 args[6]
NR_OFFSET, ARCH_OFFSET, ARG0_LOW_OFFSET = 0, 4, 16  # little-endian: args[0]'s low half first

LD_W_ABS = 0x20  # BPF_LD | BPF_W | BPF_ABS
JEQ_K = 0x15  # BPF_JMP | BPF_JEQ | BPF_K
JGE_K = 0x35  # BPF_JMP | BPF_JGE | BPF_K
JSET_K = 0x45  # BPF_JMP | BPF_JSET | BPF_K
RET_K = 0x06  # BPF_RET | BPF_K

RET_KILL_PROCESS = 0x80000000
RET_ERRNO = 0x00050000
RET_ALLOW = 0x7FFF0000
EPERM, ENOSYS = 1, 38

X32_SYSCALL_BIT = 0x40000000
# CLONE_NEWNS | CLONE_NEWCGROUP | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWUSER | CLONE_NEWPID
# | CLONE_NEWNET
CLONE_NEW_FLAGS = 0x7E020000

DENIED = (
    "ptrace", "process_vm_readv", "process_vm_writev", "kcmp", "pidfd_getfd",
    "unshare", "setns",
    "mount", "umount2", "pivot_root", "open_tree", "move_mount", "fsopen", "fsconfig",
    "fsmount", "fspick", "mount_setattr", "swapon", "swapoff", "reboot",
    "init_module", "finit_module", "delete_module", "kexec_load", "kexec_file_load",
    "bpf", "perf_event_open", "userfaultfd", "io_uring_setup", "io_uring_enter",
    "io_uring_register", "add_key", "request_key", "keyctl",
    "name_to_handle_at", "open_by_handle_at", "settimeofday", "clock_settime", "adjtimex",
    "clock_adjtime", "acct", "quotactl", "syslog", "lookup_dcookie",
)


@dataclass(frozen=True)
class SyscallTable:
    """One architecture: its ``AUDIT_ARCH_*`` value and the numbers the filter names."""

    audit_arch: int
    numbers: dict[str, int]
    x32_bit: bool  # whether numbers with X32_SYSCALL_BIT reach the filter under this arch


# the same numbers on both (the syscall numbers added since 5.1 are shared by every arch)
_SHARED = {"pidfd_getfd": 438, "open_tree": 428, "move_mount": 429, "fsopen": 430,
           "fsconfig": 431, "fsmount": 432, "fspick": 433, "mount_setattr": 442,
           "io_uring_setup": 425, "io_uring_enter": 426, "io_uring_register": 427, "clone3": 435}

TABLES = {
    "x86_64": SyscallTable(0xC000003E, x32_bit=True, numbers={
        **_SHARED, "ptrace": 101, "process_vm_readv": 310, "process_vm_writev": 311,
        "kcmp": 312, "unshare": 272, "setns": 308, "clone": 56, "mount": 165, "umount2": 166,
        "pivot_root": 155, "swapon": 167, "swapoff": 168, "reboot": 169, "init_module": 175,
        "finit_module": 313, "delete_module": 176, "kexec_load": 246, "kexec_file_load": 320,
        "bpf": 321, "perf_event_open": 298, "userfaultfd": 323, "add_key": 248,
        "request_key": 249, "keyctl": 250, "name_to_handle_at": 303, "open_by_handle_at": 304,
        "settimeofday": 164, "clock_settime": 227, "adjtimex": 159, "clock_adjtime": 305,
        "acct": 163, "quotactl": 179, "syslog": 103, "lookup_dcookie": 212,
    }),
    "aarch64": SyscallTable(0xC00000B7, x32_bit=False, numbers={
        **_SHARED, "ptrace": 117, "process_vm_readv": 270, "process_vm_writev": 271,
        "kcmp": 272, "unshare": 97, "setns": 268, "clone": 220, "mount": 40, "umount2": 39,
        "pivot_root": 41, "swapon": 224, "swapoff": 225, "reboot": 142, "init_module": 105,
        "finit_module": 273, "delete_module": 106, "kexec_load": 104, "kexec_file_load": 294,
        "bpf": 280, "perf_event_open": 241, "userfaultfd": 282, "add_key": 217,
        "request_key": 218, "keyctl": 219, "name_to_handle_at": 264, "open_by_handle_at": 265,
        "settimeofday": 170, "clock_settime": 112, "adjtimex": 171, "clock_adjtime": 266,
        "acct": 89, "quotactl": 60, "syslog": 116, "lookup_dcookie": 18,
    }),
}


class UnsupportedArchitecture(RuntimeError):
    """No syscall table for this machine (the filter cannot be built)."""


def machine_table(machine: str | None = None) -> SyscallTable:
    name = machine or platform.machine()
    table = TABLES.get({"amd64": "x86_64", "arm64": "aarch64"}.get(name.lower(), name.lower()))
    if table is None:
        raise UnsupportedArchitecture(
            f"no seccomp syscall table for {name!r} (known: {', '.join(TABLES)}); "
            "TOOL_EXECUTOR_SANDBOX_SECCOMP=false runs the sandbox without the filter")
    return table


def program(table: SyscallTable) -> bytes:
    """The filter as ``struct sock_filter`` records (what bwrap's ``--seccomp`` reads)."""
    # each instruction: (code, jump-if-true label, jump-if-false label, k); a label is the
    # name of a return instruction at the end, or None for the next instruction
    body: list[tuple[int, str | None, str | None, int]] = [
        (LD_W_ABS, None, None, ARCH_OFFSET),
        (JEQ_K, None, "kill", table.audit_arch),
        (LD_W_ABS, None, None, NR_OFFSET),
    ]
    if table.x32_bit:
        body.append((JGE_K, "eperm", None, X32_SYSCALL_BIT))
    body += [(JEQ_K, "eperm", None, table.numbers[name]) for name in DENIED]
    body += [
        (JEQ_K, "enosys", None, table.numbers["clone3"]),
        (JEQ_K, None, "allow", table.numbers["clone"]),
        (LD_W_ABS, None, None, ARG0_LOW_OFFSET),
        (JSET_K, "eperm", "allow", CLONE_NEW_FLAGS),
    ]
    returns = {"allow": RET_ALLOW, "eperm": RET_ERRNO | EPERM, "enosys": RET_ERRNO | ENOSYS,
               "kill": RET_KILL_PROCESS}
    at = {label: len(body) + i for i, label in enumerate(returns)}
    out = bytearray()
    for index, (code, if_true, if_false, k) in enumerate(body):
        jt = 0 if if_true is None else at[if_true] - index - 1
        jf = 0 if if_false is None else at[if_false] - index - 1
        out += struct.pack("=HBBI", code, jt, jf, k)
    for value in returns.values():
        out += struct.pack("=HBBI", RET_K, 0, 0, value)
    return bytes(out)
