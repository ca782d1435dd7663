# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 the libfallocate authors (see AUTHORS)
# Runs a command on a new terminal, types Ctrl-C once it printed "ready"
# (never before: on a loaded machine the command may take seconds to start,
# and a Ctrl-C typed before it runs reaches no one), and prints what it
# wrote and "status: N" (negative: killed by signal -N).
#   python3 ctrl-c.py COMMAND [ARG...]
import os
import pty
import select
import signal
import sys
import time

pid, fd = pty.fork()
if pid == 0:
    # A terminal's Ctrl-C as in an interactive shell: a test run started in
    # the background (make check from a script with &) inherits SIGINT
    # ignored, which the command would keep across exec.
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGQUIT, signal.SIG_DFL)
    try:
        os.execvp(sys.argv[1], sys.argv[1:])
    finally:
        os._exit(127)
out = b''
start = time.time()
sent = False
while time.time() < start + 20:
    if not sent and b'ready' in out:
        os.write(fd, b'\x03')
        sent = True
    r, _, _ = select.select([fd], [], [], 0.05)
    if r:
        try:
            data = os.read(fd, 1024)
        except OSError:
            break
        if not data:
            break
        out += data
# A command still running now is a failure the caller sees: kill it.
for _ in range(100):
    done, status = os.waitpid(pid, os.WNOHANG)
    if done:
        break
    time.sleep(0.05)
else:
    os.kill(pid, 9)
    _, status = os.waitpid(pid, 0)
sys.stdout.write(out.decode(errors='replace').replace('\r', ''))
print('status: %d' % os.waitstatus_to_exitcode(status))
