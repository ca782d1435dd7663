/* aarch64: the generic syscall table; whole registers. */
#define LFA_NR_fallocate 47
#define LFA_ARG64(v) (long)(v)
