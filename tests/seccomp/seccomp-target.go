// SPDX-License-Identifier: LGPL-2.1-or-later
// Copyright (C) 2026 the libfallocate authors (see AUTHORS)
// A Go program for tests/seccomp/preload-seccomp.sh: Go issues its system calls
// itself, so LD_PRELOAD never reaches it.
//   seccomp-target-go FILE LEN
package main

import (
	"fmt"
	"os"
	"strconv"
	"syscall"
)

func main() {
	n, err := strconv.ParseInt(os.Args[2], 10, 64)
	if err != nil {
		fmt.Println("bad length")
		os.Exit(2)
	}
	fd, err := syscall.Open(os.Args[1], syscall.O_RDWR|syscall.O_CREAT, 0644)
	if err != nil {
		fmt.Println("open:", err)
		os.Exit(1)
	}
	if err := syscall.Fallocate(fd, 0, 0, n); err != nil {
		fmt.Println("fallocate:", err)
		os.Exit(1)
	}
	fmt.Println("fallocate: 0")
}
