#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 the libfallocate authors (see AUTHORS)
# Every committed file carries an SPDX-License-Identifier line and a
# copyright line near its top, except the license texts (COPYING,
# debian/copyright, which says it for all the others) and files
# whose format has no comments (listed here; debian/copyright covers them).
set -euo pipefail
exempt='^(COPYING|m4/\.gitkeep|bench/ratios-latest\.png|bench/results-latest\.csv|debian/changelog|debian/copyright|debian/source/format)$'
missing=
n=0
while IFS= read -r f; do
	[[ $f =~ $exempt ]] && continue
	n=$((n + 1))
	case $f in
	NEWS | ChangeLog) where=$(tail -n 5 "$f") ;; # said once, at the end
	*) where=$(head -n 5 "$f") ;;
	esac
	grep -q 'SPDX-License-Identifier: LGPL-2.1-or-later' <<< "$where" &&
		grep -q 'Copyright (C) [0-9].* the libfallocate authors' <<< "$where" ||
		missing="$missing $f"
done < <(git ls-files)
[ -z "$missing" ] || { echo "05-spdx: no SPDX or copyright line at the top of:$missing"; exit 1; }
echo "05-spdx: $n files carry SPDX-License-Identifier and copyright lines"
