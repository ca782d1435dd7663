/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright (C) 2026 the libfallocate authors (see AUTHORS) */
#error "libfallocate does not know this architecture's fallocate syscall: add src/arch/<abi>/fallocate_arch.h (number and 64-bit argument passing) and teach configure.ac to detect it"
