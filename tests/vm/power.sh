#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 the libfallocate authors (see AUTHORS)
# make check-vm-power (root; issue 30): tests/vm/guest-power.sh on Debian
# 12's own kernel (6.1) booted by tests/vm/vm.sh, from this build tree.
# Skips, saying why, where qemu, the kernel package, dmsetup or the
# dm-log-writes module cannot be had.  LFA_POWER_POINTS: points replayed
# per phase (default 4), "all" for every flush, FUA and mark point;
# LFA_POWER_BREAK=stale writes the pattern into a file to show the check
# fails (guest-power.sh).
set -u
here=$(cd "$(dirname "$0")" && pwd)
start=$(date +%s)
rc=0
if ! command -v dmsetup > /dev/null 2>&1; then
	echo "SKIP: no dmsetup (package dmsetup)"
	rc=77
else
	LFA_VM_TIMEOUT=${LFA_VM_TIMEOUT:-1500} sh "$here/vm.sh" -m 1536 "$here/guest-power.sh" \
		"${LFA_POWER_POINTS:-4}" "${LFA_POWER_BREAK:-}" || rc=$?
fi
echo "# check-vm-power: $(($(date +%s) - start)) s"
case $rc in
0) echo "check-vm-power: PASS" ;;
77) echo "check-vm-power: SKIP (above: why)"; rc=0 ;;
*) echo "check-vm-power: FAIL (exit $rc)" ;;
esac
exit "$rc"
