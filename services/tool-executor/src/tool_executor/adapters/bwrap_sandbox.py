"""TOOL_EXECUTOR_SANDBOX=bwrap: function tools and skills in a bubblewrap sandbox.

What the kernel enforces for every run (docs/architecture.md, "The sandbox boundary"):
- new pid, ipc, uts, mount (and cgroup) namespaces; a new network namespace with only a
  loopback device unless the tool declares network access (then the host's network);
- a filesystem of read-only binds (/usr, the Python installation, a few /etc files, the
  guard) over a read-only root; the only writable place is /scratch (= /tmp), a fresh
  size-limited tmpfs that disappears with the run;
- no service environment: bwrap itself starts with an empty one and the payload gets
  ``payload_env`` only; and no /proc at all, so no process table to read another's from;
- an unprivileged user: run as root, the payload switches to a uid of its own (one per
  concurrent slot, no capabilities) before the payload starts; run as another user, bwrap
  makes a user namespace and the payload is that user without capabilities;
- a seccomp filter (``seccomp_filter``) that refuses tracing, new namespaces, mounts, kernel
  modules, bpf, io_uring, the keyring and the like, handed to bwrap through a pipe per run;
- rlimits (CPU, address space, file size; processes set by the guard inside the user
  namespace, where only the run's own count) and the wall-clock / output limits of
  ``run_contained``; when bwrap dies the namespace's init dies and the kernel kills every
  process left in it.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from functools import partial
from pathlib import Path

from tool_executor.adapters.sandbox_run import (
    GUARD,
    GuardedSandbox,
    function_request,
    payload_env,
    run_contained,
    set_limits,
)
from tool_executor.adapters.seccomp_filter import UnsupportedArchitecture, machine_table, program
from tool_executor.domain.sandbox import SandboxLimits, SandboxResult
from tool_executor.service_layer.sandbox import SandboxUnavailable

SCRATCH = "/scratch"
SANDBOX_GUARD = "/sandbox/guard.py"
SYSTEM_DIRS = ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
ETC_FILES = ("/etc/resolv.conf", "/etc/hosts", "/etc/nsswitch.conf", "/etc/host.conf",
             "/etc/gai.conf", "/etc/localtime", "/etc/ssl", "/etc/ca-certificates",
             "/etc/mime.types")
NOBODY = 65534


def _signal_of(returncode: int) -> int | None:
    """bwrap exits 128 + N when the payload was killed by signal N (or -N if bwrap itself was)."""
    if returncode < 0:
        return -returncode
    return returncode - 128 if 128 < returncode < 128 + 65 else None


def _parents(path: str) -> list[str]:
    """Create the folders above ``path`` traversable (bwrap makes missing ones 0700)."""
    args: list[str] = []
    for parent in reversed(Path(path).parents[:-1]):
        args += ["--perms", "0755", "--dir", str(parent)]
    return args


def _system_view() -> list[str]:
    args = ["--ro-bind", "/usr", "/usr", *_parents("/etc/x")]
    for path in SYSTEM_DIRS:
        if os.path.islink(path):
            args += ["--symlink", os.readlink(path), path]
        elif os.path.isdir(path):
            args += ["--ro-bind", path, path]
    for path in ETC_FILES:
        args += ["--ro-bind-try", path, path]
    return args


class BwrapSandbox(GuardedSandbox):
    def __init__(
        self,
        bwrap: str = "bwrap",
        python: str = sys.executable,
        *,
        max_concurrent: int = 8,
        uid_base: int = 0,
        check_timeout_seconds: float = 120.0,
        seccomp: bool = True,
    ) -> None:
        found = shutil.which(bwrap)
        if found is None:
            raise SandboxUnavailable(
                f"TOOL_EXECUTOR_SANDBOX=bwrap but {bwrap!r} is not installed (Debian: apt-get "
                "install bubblewrap; `make sandbox` does it)"
            )
        self._bwrap = found
        self._check_timeout = check_timeout_seconds
        self._python = str(Path(python).resolve())  # the real interpreter, not a venv link
        self._prefix = str(Path(self._python).parents[1])
        self._privileged = os.geteuid() == 0
        self._setpriv = shutil.which("setpriv") if self._privileged else None
        if self._privileged and self._setpriv is None:
            raise SandboxUnavailable("running as root, the bwrap sandbox needs setpriv (util-linux)")
        base = uid_base or 100_000 + (os.getpid() % 20_000) * max_concurrent
        self._uids: asyncio.Queue[int] = asyncio.Queue()
        for slot in range(max_concurrent):
            self._uids.put_nowait(base + slot if self._privileged else NOBODY)
        try:
            self._seccomp = program(machine_table()) if seccomp else None
        except UnsupportedArchitecture as exc:
            raise SandboxUnavailable(str(exc)) from exc
        self._head, self._view = self._fixed_args()

    @contextlib.contextmanager
    def _filter_fd(self) -> Iterator[int | None]:
        """The read end of a pipe holding the seccomp program, for one run's bwrap (it reads
        the program to its end, so every run gets its own); closed here once bwrap has it."""
        if self._seccomp is None:
            yield None
            return
        read, write = os.pipe()
        try:
            os.write(write, self._seccomp)  # a few hundred bytes: far below a pipe's buffer
        finally:
            os.close(write)
        try:
            yield read
        finally:
            os.close(read)

    def _fixed_args(self) -> tuple[list[str], list[str]]:
        """The parts of every run's command line that depend on nothing but this host: the
        namespaces and environment, then the filesystem view (built once, at start)."""
        head = [self._bwrap, "--unshare-pid", "--unshare-ipc", "--unshare-uts",
                "--unshare-cgroup-try", "--die-with-parent", "--new-session",
                "--hostname", "sandbox", "--clearenv"]
        view: list[str] = []
        for key, value in payload_env(SCRATCH).items():
            view += ["--setenv", key, value]
        view += _system_view()
        if not self._prefix.startswith("/usr/"):
            view += [*_parents(self._prefix), "--ro-bind", self._prefix, self._prefix]
        # no /proc: a fresh procfs cannot be mounted where the container's /proc is masked
        # (Pod Security `restricted`, procMount Default), and binding the container's would show
        # the service's processes and their environment. Nothing the payloads need reads it.
        view += [*_parents(SANDBOX_GUARD), "--ro-bind", str(GUARD), SANDBOX_GUARD,
                 "--dev", "/dev", "--perms", "1777"]
        return head, view

    def argv(self, uid: int, limits: SandboxLimits, mode: str, seccomp_fd: int | None = None) -> list[str]:
        """The bwrap command line of one run (``mode``: function | skill; ``seccomp_fd``: the
        file descriptor bwrap reads the filter from, passed on to it)."""
        args = [*self._head]
        if seccomp_fd is not None:
            args += ["--seccomp", str(seccomp_fd)]
        if not limits.allow_network:
            args.append("--unshare-net")
        if self._privileged:  # only setpriv uses them, to drop to ``uid`` with no capabilities
            args += ["--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID", "--cap-add", "CAP_SETPCAP"]
        else:
            # no --disable-userns (it writes /proc/sys/user/max_user_namespaces, and there is no
            # /proc): the seccomp filter refuses new user namespaces to the payload instead
            args += ["--unshare-user", "--uid", str(uid), "--gid", str(uid)]
        args += [*self._view, "--size", str(limits.scratch_mb * 1024 * 1024),
                 "--tmpfs", SCRATCH, "--symlink", SCRATCH, "/tmp", "--remount-ro", "/",
                 "--chdir", SCRATCH, "--"]
        if self._setpriv is not None:
            args += [self._setpriv, f"--reuid={uid}", f"--regid={uid}", "--clear-groups",
                     "--inh-caps=-all", "--bounding-set=-all", "--"]
        return [*args, self._python, "-I", "-S", SANDBOX_GUARD, mode]

    def check(self) -> None:
        """Run a trivial function once; raise SandboxUnavailable with bwrap's complaint (or that
        it did not answer within the start-up timeout) if not."""
        uid = self._uids.get_nowait()
        try:
            limits = SandboxLimits()
            with self._filter_fd() as fd:
                done = subprocess.run(
                    self.argv(uid, limits, "function", fd),
                    input=function_request("def handler(a):\n    return a", "handler", {"ok": 1}, limits),
                    capture_output=True, env={}, timeout=self._check_timeout,
                    preexec_fn=partial(set_limits, limits), check=False,
                    pass_fds=() if fd is None else (fd,),
                )
        except subprocess.TimeoutExpired as exc:
            raise SandboxUnavailable(
                f"the bwrap sandbox start-up check did not finish within {self._check_timeout:g} s "
                "(TOOL_EXECUTOR_SANDBOX_CHECK_TIMEOUT_SECONDS; a very loaded machine may need more)"
            ) from exc
        finally:
            self._uids.put_nowait(uid)
        if done.returncode != 0 or b'"ok": 1' not in done.stdout:
            raise SandboxUnavailable(
                f"the bwrap sandbox does not start here (exit {done.returncode}): "
                f"{done.stderr.decode(errors='replace')[-500:]}"
            )

    async def _run(self, mode: str, stdin: bytes, limits: SandboxLimits) -> SandboxResult:
        uid = await self._uids.get()
        try:
            with self._filter_fd() as fd:
                return await run_contained(
                    self.argv(uid, limits, mode, fd), stdin, limits, env={},
                    preexec=partial(set_limits, limits), signal_of=_signal_of,
                    pass_fds=() if fd is None else (fd,))
        finally:
            self._uids.put_nowait(uid)
