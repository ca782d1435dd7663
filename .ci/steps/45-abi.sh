#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 the libfallocate authors (see AUTHORS)
# The library's ABI against the last release's (abi/, RELEASING.md): an
# incompatible change fails, compatible additions are listed.
set -euo pipefail
make -s abi-check
