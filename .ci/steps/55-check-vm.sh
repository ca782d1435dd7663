#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 the libfallocate authors (see AUTHORS)
# The VM lane (make check-vm, issue 30): the unit tests and the
# real-filesystem tests, NFS and SMB3 rows, two NFS clients and power loss
# on Debian 12's own kernel (6.1) under qemu-system (TCG, no network
# device), its package fetched from Debian's archive.  The guest's servers
# (.ci/packages-vm-servers) are installed here with a policy-rc.d that
# starts none of them on this machine, and the one there before, if any,
# is put back; a failed install fails the step (the rows would only skip).
# Each part of the lane skips, saying why, where what it needs cannot be
# had.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
policy=/usr/sbin/policy-rc.d
saved=""
if [ -e $policy ]; then
	saved=$(mktemp)
	cp -p $policy "$saved"
fi
restore() {
	if [ -n "$saved" ]; then mv "$saved" $policy; else rm -f $policy; fi
}
trap restore EXIT
printf '#!/bin/sh\n# CI (55-check-vm.sh): no service starts while it installs\nexit 101\n' > $policy
chmod 755 $policy
mapfile -t pkgs < <(grep -Ev '^[[:space:]]*(#|$)' "$here/packages-vm-servers")
DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq \
	--no-install-recommends "${pkgs[@]}" > /tmp/lfa-apt-vm.log 2>&1 ||
	{ tail -n 20 /tmp/lfa-apt-vm.log; echo "55-check-vm: the guest's servers could not be installed" >&2; exit 1; }
restore
trap - EXIT
make check-vm < /dev/null
