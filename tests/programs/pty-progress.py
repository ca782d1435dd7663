# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 the libfallocate authors (see AUTHORS)
"""Checks pfallocate's progress bar on a pseudo-terminal.

    pty-progress.py WIDTH TOTAL|none COMMAND [ARG...]

Runs COMMAND with standard error on a pseudo-terminal WIDTH columns wide
(standard output on a pipe, copied to ours), and checks what it drew there:
every frame starts with \\r and ends with ESC [ K, none is wider than the
terminal, the percentages never go back, the frames before the last show
bytes done of TOTAL, a rate and the time left, there are at most ten a
second, and the last, the only one at 100%, is the one line that ends with
a newline.  With "none", standard error must stay empty.  Exits 1 with the
reason on a failure; prints "frames N in S s" otherwise.
"""
import fcntl
import os
import pty
import re
import struct
import subprocess
import sys
import termios
import time
import tty


def run(width, cmd):
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, width, 0, 0))
    tty.setraw(slave)  # no \n -> \r\n: the bytes as written
    start = time.monotonic()
    proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=slave)
    os.close(slave)
    data = b""
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # EIO: the last holder of the slave side closed it
            break
        if not chunk:
            break
        data += chunk
    out = proc.stdout.read()
    rc = proc.wait()
    os.close(master)
    return rc, data, out, time.monotonic() - start


def check(width, total, data, elapsed):
    if total == "none":
        if data:
            return "a bar was drawn unasked: %r" % data[:200]
        return None
    if not data.startswith(b"\r"):
        return "does not start with \\r: %r" % data[:100]
    if data.count(b"\n") != 1 or not data.endswith(b"\x1b[K\n"):
        return "not one final line: %r" % data[-300:]
    frames = data[1:].split(b"\r")
    t = re.escape(total.encode())
    # A narrow terminal drops the bar, then the rate.
    rate = rb"(, [\d.]+ \w+/s)"
    moving = re.compile(rb"^(.* \[#* *\] +| *)(\d+)% [\d.]+ \w+ / " + t + rate +
                        rb"?, (\d+:\d\d(:\d\d)?|--:--) left\x1b\[K$")
    final = re.compile(rb"^(.* \[#+\] +| *)100% " + t + rb" / " + t +
                       rb"(" + rate + rb", [\d.]+ s|, done)\x1b\[K\n$")
    last = -1
    for i, f in enumerate(frames):
        visible = len(f.replace(b"\x1b[K", b"").rstrip(b"\n").decode("utf-8", "replace"))
        if visible > width - 1:
            return "frame %d is %d columns wide on a %d-column terminal: %r" % (
                i, visible, width, f)
        if i == len(frames) - 1:
            if not final.match(f):
                return "final frame: %r" % f
            continue
        m = moving.match(f)
        if not m:
            return "frame %d: %r" % (i, f)
        pct = int(m.group(2))
        if pct < last or pct >= 100:
            return "frame %d: %d%% after %d%%" % (i, pct, last)
        last = pct
    if len(frames) > 10 * elapsed + 2:
        return "%d frames in %.2f s: more than ten a second" % (len(frames), elapsed)
    return None


def main():
    width, total, cmd = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
    rc, data, out, elapsed = run(width, cmd)
    sys.stdout.write(out.decode("utf-8", "replace"))
    if rc != 0:
        print("exit status %d; terminal: %r" % (rc, data[-300:]))
        return 1
    why = check(width, total, data, elapsed)
    if why:
        print(why)
        return 1
    print("frames %d in %.2f s" % (data.count(b"\r"), elapsed))
    return 0


if __name__ == "__main__":
    sys.exit(main())
