/* mips n64: whole registers. */
#define LFA_NR_fallocate 5279
#define LFA_ARG64(v) (long)(v)
