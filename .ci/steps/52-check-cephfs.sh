#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 the libfallocate authors (see AUTHORS)
# CephFS through ceph-fuse (make check-cephfs, issue 38): a throwaway
# single-node Ceph on 127.0.0.1, started and stopped by the test.  CI
# installed Ceph (.ci/packages-ci): a skip here is a failure.
set -euo pipefail
make -j"$(nproc)" check-cephfs < /dev/null 2>&1 | tee /tmp/lfa-check-cephfs.log
if grep -q '^SKIP' /tmp/lfa-check-cephfs.log; then
	echo "check-cephfs skipped on CI, where Ceph is installed"
	exit 1
fi
grep -q '^PASS$' /tmp/lfa-check-cephfs.log
