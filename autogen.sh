#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 the libfallocate authors (see AUTHORS)
# Generates configure and Makefile.in; tarballs ship them, so users never run this.
set -e
cd "$(dirname "$0")"
autoreconf -fi
