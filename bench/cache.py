#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 the libfallocate authors (see AUTHORS)
"""make bench, scenario 9: what a large new range leaves in the page cache.

Each side writes SIZE bytes of a new file in DIR, in a memory cgroup of its
own (made and removed here), while a thread samples that cgroup's dirty and
cached bytes every 10 ms: other jobs on the machine do not move them.  The
call is timed, then an fsync of the file (`sync FILE`, in the same cgroup):
"call+sync" is the time until the zeros are on disk.  Prints CSV rows
  id,scenario,fs,side,bytes,call_median_s,call_min_s,sync_median_s,sync_min_s,
  reps,peak_dirty_mib,peak_cache_mib,cache_left_mib
one per side, medians over the rounds (peaks: the largest of the rounds).

Sides: ours (the library preloaded into util-linux's `fallocate -x`, which
calls posix_fallocate), ours-keep (the same with LIBFALLOCATE_CACHE=keep:
the engine as it was before the window), glibc, dd bs=1M, dd oflag=direct,
dd oflag=nocache; ours@PATH is the library at PATH (another build, such
as the engine of an older release).  With --forcer, every side runs under the seccomp filter
that answers EOPNOTSUPP for fallocate (dd does not call it)."""
import argparse
import os
import statistics
import subprocess
import sys
import threading
import time

MIB = 1 << 20


def cgroup_base():
    v1 = "/sys/fs/cgroup/memory"
    if os.path.exists(os.path.join(v1, "memory.limit_in_bytes")):
        return v1, 1
    for v2 in ("/sys/fs/cgroup", "/sys/fs/cgroup/unified"):
        try:
            with open(os.path.join(v2, "cgroup.controllers")) as f:
                if "memory" in f.read().split():
                    return v2, 2
        except OSError:
            pass
    return None, 0


class Cgroup:
    def __init__(self, name):
        base, self.version = cgroup_base()
        if not base:
            raise OSError("no memory cgroup controller")
        self.path = os.path.join(base, name)
        os.mkdir(self.path)

    def stat(self):
        vals = {}
        with open(os.path.join(self.path, "memory.stat")) as f:
            for line in f:
                k, v = line.split()
                vals[k] = int(v)
        if self.version == 1:
            return vals.get("dirty", 0), vals.get("cache", 0)
        return vals.get("file_dirty", 0), vals.get("file", 0)

    def enter(self):  # in the child, before exec
        with open(os.path.join(self.path, "cgroup.procs"), "w") as f:
            f.write(str(os.getpid()))

    def empty(self):
        if self.version == 1:
            try:
                with open(os.path.join(self.path, "memory.force_empty"), "w") as f:
                    f.write("0")
            except OSError:
                pass

    def remove(self):
        for _ in range(50):
            try:
                os.rmdir(self.path)
                return
            except OSError:
                time.sleep(0.1)


class Sampler(threading.Thread):
    def __init__(self, cg):
        super().__init__(daemon=True)
        self.cg, self.stop, self.dirty, self.cache = cg, False, 0, 0

    def run(self):
        while not self.stop:
            d, c = self.cg.stat()
            self.dirty, self.cache = max(self.dirty, d), max(self.cache, c)
            time.sleep(0.01)


def side_command(side, path, size, lib):
    mib = size // MIB
    dd = ["dd", "if=/dev/zero", "of=" + path, "bs=1M", "count=%d" % mib, "status=none"]
    env = dict(os.environ)
    for k in ("LIBFALLOCATE_EMULATION", "LIBFALLOCATE_CACHE", "LD_PRELOAD"):
        env.pop(k, None)
    if side.startswith("ours@"):  # another build of the library
        side, lib = "ours", side[5:]
    if side in ("ours", "ours-keep"):
        env["LD_PRELOAD"] = lib
        if side == "ours-keep":
            env["LIBFALLOCATE_CACHE"] = "keep"
        return ["fallocate", "-x", "-l", str(size), path], env
    if side == "glibc":
        return ["fallocate", "-x", "-l", str(size), path], env
    if side == "dd":
        return dd, env
    if side == "dd-direct":
        return dd + ["oflag=direct"], env
    if side == "dd-nocache":
        return dd + ["oflag=nocache"], env
    raise SystemExit("unknown side " + side)


def one_round(cg, side, path, size, lib, forcer):
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass
    subprocess.run(["sync"], check=True)
    cg.empty()
    cmd, env = side_command(side, path, size, lib)
    if forcer:
        cmd = [forcer, "EOPNOTSUPP"] + cmd
    sampler = Sampler(cg)
    sampler.start()
    t0 = time.monotonic()
    subprocess.run(cmd, env=env, check=True, preexec_fn=cg.enter)
    call = time.monotonic() - t0
    left = cg.stat()[1]
    subprocess.run(["sync", path], check=True, preexec_fn=cg.enter)
    total = time.monotonic() - t0
    sampler.stop = True
    sampler.join()
    if os.path.getsize(path) != size:
        raise SystemExit("%s: %s has %d bytes, wanted %d" % (side, path, os.path.getsize(path), size))
    os.unlink(path)
    return call, total, sampler.dirty, max(sampler.cache, left), left


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lib", required=True)
    ap.add_argument("--dir", required=True)
    ap.add_argument("--fs", required=True)
    ap.add_argument("--id", default="9")
    ap.add_argument("--size", type=int, default=1024, help="MiB")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--forcer")
    ap.add_argument("--sides", default="ours,ours-keep,glibc,dd,dd-direct,dd-nocache")
    ap.add_argument("--verbose", action="store_true")
    a = ap.parse_args()
    size = a.size * MIB
    sides = a.sides.split(",")
    cg = Cgroup("lfa-bench-cache-%d" % os.getpid())
    results = {s: [] for s in sides}
    try:
        # Each round runs every side, starting with another one each time.
        for rep in range(a.reps):
            for i in range(len(sides)):
                s = sides[(rep + i) % len(sides)]
                r = one_round(cg, s, os.path.join(a.dir, "cache.dat"), size, a.lib, a.forcer)
                results[s].append(r)
                if a.verbose:
                    print("%s %s %d MiB round %d %s: call %.3f s, call+sync %.3f s, "
                          "peak dirty %d MiB, peak cache %d MiB, left %d MiB" %
                          (a.id, a.fs, a.size, rep + 1, s, r[0], r[1], r[2] // MIB, r[3] // MIB,
                           r[4] // MIB), file=sys.stderr)
    finally:
        cg.remove()
    for s in sides:
        rs = results[s]
        call = [r[0] for r in rs]
        total = [r[1] for r in rs]
        print("%s,cache,%s,%s,%d,%.4f,%.4f,%.4f,%.4f,%d,%d,%d,%d" %
              (a.id, a.fs, s, size, statistics.median(call), min(call), statistics.median(total),
               min(total), len(rs), max(r[2] for r in rs) // MIB, max(r[3] for r in rs) // MIB,
               statistics.median(r[4] for r in rs) // MIB))
        sys.stdout.flush()


if __name__ == "__main__":
    main()
