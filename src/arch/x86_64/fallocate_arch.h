/* x86_64: 64-bit values travel in whole registers. */
#define LFA_NR_fallocate 285
#define LFA_ARG64(v) (long)(v)
