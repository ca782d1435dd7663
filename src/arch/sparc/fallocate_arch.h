/* 32-bit sparc: each 64-bit value as two words, high first. */
#define LFA_NR_fallocate 314
#define LFA_ARG64(v) LFA_HI32(v), LFA_LO32(v)
