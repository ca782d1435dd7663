/*
 * libfallocate: posix_fallocate() that works everywhere.
 *
 * fallocate(), fallocate64(), posix_fallocate() and posix_fallocate64() are
 * declared by <fcntl.h> with glibc's prototypes; this header adds the mode
 * flags some systems' <linux/falloc.h> lack, the names of the 2007 RFC as
 * aliases of the modes that shipped, and libfallocate's own lfa_ API.
 * See libfallocate(7).
 */
#ifndef LIBFALLOCATE_H
#define LIBFALLOCATE_H

/* The mainline mode flags (<linux/falloc.h>), for systems that lack some. */
#ifndef FALLOC_FL_KEEP_SIZE
#define FALLOC_FL_KEEP_SIZE 0x01
#endif
#ifndef FALLOC_FL_PUNCH_HOLE
#define FALLOC_FL_PUNCH_HOLE 0x02
#endif
#ifndef FALLOC_FL_NO_HIDE_STALE
#define FALLOC_FL_NO_HIDE_STALE 0x04
#endif
#ifndef FALLOC_FL_COLLAPSE_RANGE
#define FALLOC_FL_COLLAPSE_RANGE 0x08
#endif
#ifndef FALLOC_FL_ZERO_RANGE
#define FALLOC_FL_ZERO_RANGE 0x10
#endif
#ifndef FALLOC_FL_INSERT_RANGE
#define FALLOC_FL_INSERT_RANGE 0x20
#endif
#ifndef FALLOC_FL_UNSHARE_RANGE
#define FALLOC_FL_UNSHARE_RANGE 0x40
#endif
#ifndef FALLOC_FL_WRITE_ZEROES
#define FALLOC_FL_WRITE_ZEROES 0x80
#endif

/* The 2007 RFC's names, kept for source compatibility.  Its values (1 and 2)
 * never shipped, and mean KEEP_SIZE and PUNCH_HOLE today: these are the
 * mainline modes that do what the RFC's names said. */
#define FA_ALLOCATE 0
#define FA_DEALLOCATE (FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE)

#endif /* LIBFALLOCATE_H */
