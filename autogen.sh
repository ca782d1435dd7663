#!/bin/sh
# Generates configure and Makefile.in; tarballs ship them, so users never run this.
set -e
cd "$(dirname "$0")"
autoreconf -fi
