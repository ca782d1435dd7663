#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 the libfallocate authors (see AUTHORS)
# make check-vm (root; issue 30): the tests given, from this build tree, on
# Debian 12's own kernel (6.1) booted by tests/vm/vm.sh, on an ext4 disk of
# the guest's own.  A machine without qemu-system-x86 or the kernel package
# skips, saying why.
set -u
here=$(cd "$(dirname "$0")" && pwd)
start=$(date +%s)
rc=0
LFA_VM_TIMEOUT=${LFA_VM_TIMEOUT:-1500} sh "$here/vm.sh" -m 3072 -d 4096 "$here/guest-check.sh" "$@" || rc=$?
echo "# check-vm: $(($(date +%s) - start)) s"
case $rc in
0) echo "check-vm: PASS" ;;
77) echo "check-vm: SKIP (above: why)"; rc=0 ;;
*) echo "check-vm: FAIL (exit $rc)" ;;
esac
exit "$rc"
