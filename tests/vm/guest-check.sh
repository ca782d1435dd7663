#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 the libfallocate authors (see AUTHORS)
# Inside the VM (tests/vm/vm.sh), in the build tree: make check's TESTS
# given as arguments, on this kernel, with their logs on our output.
set -u
echo "# guest kernel: $(uname -r), $(nproc) CPUs"
# What the host's kernel has built in or loaded when its make check runs
# (losetup -f finds no /dev/loop-control before loop is loaded).
for m in loop ext4 xfs btrfs fuse overlay; do
	modprobe "$m" || echo "# modprobe $m failed"
done
# On ext4, as the host's make check runs (vm.sh -d gives /dev/vda): the
# overlay over 9p that is the guest's root is no filesystem users have, and
# the tests that expect a local filesystem fail there (before ext4 was
# loaded above, every run fell back to it unseen).  A disk that cannot be
# mounted fails the run; without one the run says where it is.
scratch=/tmp
modprobe virtio_blk 2> /dev/null
if [ -b /dev/vda ]; then
	mkfs.ext4 -q -F /dev/vda && mkdir -p /scratch && mount -t ext4 /dev/vda /scratch ||
		{ echo "guest-check.sh: no ext4 on /dev/vda" >&2; exit 1; }
	scratch=/scratch
fi
echo "# scratch: $(stat -f -c %T "$scratch") at $scratch"
tmp=$(mktemp -d $scratch/lfa-vm-check.XXXXXX)
chmod 711 "$tmp"
rc=0
TMPDIR=$tmp make -s check TESTS="$*" > "$tmp/make.log" 2>&1 || rc=$?
grep -E '^(PASS|FAIL|SKIP|XFAIL|XPASS|ERROR):' "$tmp/make.log"
if [ "$rc" != 0 ]; then
	tail -n 30 "$tmp/make.log"
	for t in "$@"; do
		log=${t%.sh}.log
		grep -qE '^(FAIL|ERROR)' "$log" 2> /dev/null && { echo "--- $log"; tail -n 40 "$log"; }
	done
fi
exit "$rc"
