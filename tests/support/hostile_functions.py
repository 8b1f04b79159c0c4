"""Function tools that try to get out of the sandbox or past its limits: run over the mesh
(tests/integration/capabilities/test_sandbox_boundary.py) and inside the image under the
chart's securityContext (tests/container/)."""

from __future__ import annotations

CONNECT = """import ctypes, os, socket, struct
def handler(a):
    libc = ctypes.CDLL(None, use_errno=True)
    fd = libc.socket(socket.AF_INET, socket.SOCK_STREAM, 0)
    address = struct.pack('=H', socket.AF_INET) + struct.pack('!H', a['port'])
    address += socket.inet_aton('127.0.0.1') + bytes(8)
    if libc.connect(fd, address, len(address)) != 0:
        number = ctypes.get_errno()
        raise ConnectionError(number, 'libc connect: ' + os.strerror(number))
    return {'connected': True}
"""
ENVIRON = """import os
def handler(a):
    seen = {}
    for pid in ('1', '2', 'self'):
        for name in ('environ', 'cmdline'):
            try:
                with open(f'/proc/{pid}/{name}', 'rb') as f:
                    seen[f'{pid}/{name}'] = f.read().decode(errors='replace')
            except OSError as exc:
                seen[f'{pid}/{name}'] = 'refused: ' + type(exc).__name__
    return {'env': dict(os.environ), 'proc': seen, 'proc_mounted': os.path.exists('/proc')}
"""
WRITE = """import os
def handler(a):
    written = []
    for path in a['paths']:
        try:
            with open(path, 'w') as f:
                f.write('escaped')
            written.append(path)
        except OSError:
            pass
    with open('note.txt', 'w') as f:
        f.write('scratch works')
    with open('note.txt') as f:
        note = f.read()
    return {'written': written, 'note': note, 'cwd': os.getcwd(),
            'earlier_note_seen': os.path.exists('/scratch/earlier.txt')}
"""
FORK_BOMB = "import os\ndef handler(a):\n    while True:\n        os.fork()\n"
STUBBORN_FORK_BOMB = """import os
def handler(a):
    while True:
        try:
            os.fork()
        except OSError:
            pass
"""
ALLOCATE_10_GB = "def handler(a):\n    return len(bytearray(10 * 1024 ** 3))\n"
INFINITE_LOOP = "def handler(a):\n    while True:\n        pass\n"
RETURN_60_MB = "def handler(a):\n    return 'z' * (60 * 1024 * 1024)\n"
PRINT_60_MB = """import sys
def handler(a):
    for _ in range(60):
        sys.stdout.write('p' * (1024 * 1024))
    return 'done'
"""
NORMAL = "def handler(a):\n    return {'sum': a['x'] + a['y']}\n"
