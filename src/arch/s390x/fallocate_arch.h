/* s390x: whole registers. */
#define LFA_NR_fallocate 314
#define LFA_ARG64(v) (long)(v)
