#define _GNU_SOURCE
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>

#include "emulate.h"

/* The order is vfs_fallocate's: callers compare error numbers, so the
 * emulation must fail exactly where the kernel would have. */
int lfa_check_target(int fd, int64_t offset, int64_t len, int64_t max_end,
		     struct lfa_target *t)
{
	struct stat64 st;
	int flags = fcntl(fd, F_GETFL);

	if (flags < 0 || (flags & O_PATH))
		return EBADF;
	if (offset < 0 || len <= 0)
		return EINVAL;
	if ((flags & O_ACCMODE) == O_RDONLY)
		return EBADF;
	if (fstat64(fd, &st) != 0)
		return errno;
	if (S_ISFIFO(st.st_mode))
		return ESPIPE;
	if (S_ISDIR(st.st_mode))
		return EISDIR;
	if (!S_ISREG(st.st_mode) && !S_ISBLK(st.st_mode))
		return ENODEV;
	if (len > max_end - offset)
		return EFBIG;
	/* A block device has every block already: nothing to allocate, and
	 * nothing a zero-writer may touch.  glibc answers ENODEV too. */
	if (!S_ISREG(st.st_mode))
		return ENODEV;
	t->flags = flags;
	t->size = st.st_size;
	return 0;
}
