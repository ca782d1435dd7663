/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright (C) 2026 the libfallocate authors (see AUTHORS) */
/* How zeros reach the file: positional writes, one syscall per call, through
 * a descriptor that puts them where they are aimed. */
#define _GNU_SOURCE
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "emul_job.h"
#include "fallocate_arch.h"
#include "job_fds.h"

/* Zeros go out from one page-aligned buffer in .bss, never written, so it
 * costs no memory and satisfies O_DIRECT's alignment. */
#define ZERO_BUF_SIZE (64 * 1024)
static unsigned char zeros[ZERO_BUF_SIZE] __attribute__((aligned(4096)));

#ifndef RWF_APPEND
#define RWF_APPEND 0x10   /* Linux 4.16 */
#endif
#ifndef RWF_NOAPPEND
#define RWF_NOAPPEND 0x20 /* Linux 6.9 */
#endif

/* pwritev2, whose flags put a write where it must land: the C library's,
 * or the syscall itself where the C library has no wrapper (musl 1.2.3). */
#if defined(HAVE_PWRITEV64V2)
#define HAVE_WRITE_V2 1
static ssize_t write_v2(int fd, const struct iovec *iov, int cnt, int64_t off, int flags)
{
	return pwritev64v2(fd, iov, cnt, off, flags);
}
#elif defined(SYS_pwritev2)
#define HAVE_WRITE_V2 1
#ifndef LFA_PWRITEV2_POS
/* The kernel's generic entry takes the offset as two longs, low then high,
 * and shifts the high one out where a long holds it all (pos_from_hilo). */
#define LFA_PWRITEV2_POS(v) (unsigned long)(uint64_t)(v), (unsigned long)((uint64_t)(v) >> 16 >> 16)
#endif
static ssize_t write_v2(int fd, const struct iovec *iov, int cnt, int64_t off, int flags)
{
	return syscall(SYS_pwritev2, fd, iov, cnt, LFA_PWRITEV2_POS(off), flags);
}
#endif

#ifdef HAVE_WRITE_V2
/* A kernel without a pwritev2 flag answers EOPNOTSUPP (ENOSYS before
 * pwritev2, which glibc turns into EOPNOTSUPP for flags): it stays so for
 * the process, so each is asked once.  Plain stores: a lost update only
 * costs another failed try. */
static int kernel_lacks_append, kernel_lacks_noappend;

static int flag_unknown(int err)
{
	return err == EOPNOTSUPP || err == ENOSYS;
}

/* A sandbox may forbid pwritev2 alone (EPERM, EACCES): the plain write is
 * tried then, which fails the same way where the file itself refuses. */
static int flag_refused(int err)
{
	return flag_unknown(err) || err == EPERM || err == EACCES;
}
#endif

/* Writes cut short by a signal are tried again, but not forever: a FUSE
 * server may answer EINTR to every write.  glibc's answer is EINTR. */
static int interrupted(struct emul_job *j)
{
	return ++j->eintr_streak > EMUL_RETRIES ? EINTR : 0;
}

static int fill_iov(struct iovec *iov, int64_t n)
{
	int cnt = 0;
	int64_t left;

	for (left = n; left > 0; left -= ZERO_BUF_SIZE, cnt++) {
		iov[cnt].iov_base = zeros;
		iov[cnt].iov_len = (size_t)emul_min(left, ZERO_BUF_SIZE);
	}
	return cnt;
}

/* The job's descriptor shares the caller's open file description: another
 * thread's F_SETFL O_APPEND mid-call would turn a positional write into an
 * append, zeros outside the range and a hole inside it.  RWF_NOAPPEND
 * keeps it positional where the kernel has it (not through every layer:
 * FACTS.md 3); the check before success sees the hole where SEEK_HOLE is
 * believed. */
#ifdef HAVE_WRITE_V2
/* pwritev2 with flags, and RWF_DONTCACHE where the page-cache window wants
 * it: a kernel or filesystem that refuses that flag gets the write again
 * without it, and no more of it in this call. */
static int64_t iov_bytes(const struct iovec *iov, int cnt)
{
	int64_t n = 0;

	while (cnt-- > 0)
		n += (int64_t)iov[cnt].iov_len;
	return n;
}

static ssize_t write_with(struct emul_job *j, int fd, const struct iovec *iov, int cnt,
			  int64_t off, int flags)
{
	int extra = emul_cache_rwf(j, iov_bytes(iov, cnt));
	ssize_t w = write_v2(fd, iov, cnt, off, flags | extra);

	if (w < 0 && extra && (flag_refused(errno) || errno == EINVAL)) {
		emul_cache_rwf_refused(j);
		j->rep->syscalls++;
		w = write_v2(fd, iov, cnt, off, flags);
	}
	return w;
}
#endif

static ssize_t positional(struct emul_job *j, int fd, const struct iovec *iov, int cnt,
			  int64_t off)
{
#ifdef HAVE_WRITE_V2
	if (fd == j->fd && !__atomic_load_n(&kernel_lacks_noappend, __ATOMIC_RELAXED)) {
		ssize_t w = write_with(j, fd, iov, cnt, off, RWF_NOAPPEND);

		if (w >= 0 || !flag_refused(errno))
			return w;
		if (flag_unknown(errno))
			__atomic_store_n(&kernel_lacks_noappend, 1, __ATOMIC_RELAXED);
		j->rep->syscalls++;
	}
	if (emul_cache_rwf(j, iov_bytes(iov, cnt)))
		return write_with(j, fd, iov, cnt, off, 0);
#else
	(void)j;
#endif
	return pwritev64(fd, iov, cnt, off);
}

static int private_writable(struct emul_job *j)
{
	return emul_private_fd(j) >= 0 && j->priv_mode != O_RDONLY;
}

/* An O_APPEND descriptor appends whatever offset it is given, and on
 * overlayfs and FUSE even pwritev2(RWF_NOAPPEND) is accepted and then
 * appended by the layer below: positional writes need a descriptor without
 * O_APPEND, or cannot be made (glibc says EBADF too).  A size check after
 * the write could not tell a misplaced write from another writer's append.
 * On 32-bit ABIs one without O_LARGEFILE cannot write past 2 GiB. */
static int choose_writer(struct emul_job *j)
{
	int largefile = lfa_largefile_flag(j->opt);
	int no_largefile = largefile && !(j->flags & largefile) && j->end > INT32_MAX;

	j->writer = WRITE_BOUND;
	j->direct = !!(j->flags & O_DIRECT);
	if (j->target->append_only) {
		j->writer = WRITE_APPEND; /* the kernel let it open only with O_APPEND */
		return 0;
	}
	/* O_DIRECT takes aligned pieces only, an unaligned head or tail goes
	 * through a descriptor of our own: without one, glibc's answer
	 * (EINVAL) before anything is written, not part way. */
	if (j->direct && !(j->flags & O_APPEND) && ((j->offset | j->end) & (j->block - 1)) &&
	    !private_writable(j))
		return EINVAL;
	if (!(j->flags & O_APPEND) && !no_largefile)
		return 0;
	/* Where files are found by name there is no descriptor of our own:
	 * the caller's O_APPEND one still grows the file from its end, by the
	 * server's appends (emul_append_fd), where it reads (the size is
	 * learned through it), and a write that must be aimed is refused
	 * (glibc's EBADF): the range is walked from its start, so a piece
	 * inside the file that needs zeros meets the refusal before any
	 * append, and one that holds data needs none. */
	if ((j->facts & LFA_FS_BY_NAME) && (j->flags & O_APPEND) && (j->flags & O_ACCMODE) == O_RDWR &&
	    !j->direct && !no_largefile) {
		j->aiming_refused = EBADF;
		return 0;
	}
	if (!private_writable(j))
		return (j->flags & O_APPEND) ? EBADF : EFBIG;
	j->writer = WRITE_PRIVATE;
	j->direct = 0;
	return 0;
}

/* Refusals come before the first write, as the kernel's: all of them, unless
 * the quick path appended before the engine ran (it asks no status flags)
 * and another writer changed the file meanwhile.  Then only the writes that
 * must be aimed (holes inside the file, pieces where no append can be made)
 * meet the refusal: a range made whole by the appends needs none. */
int emul_choose_writer(struct emul_job *j)
{
	int err = choose_writer(j);

	if (err && j->rep->bytes_written) {
		j->aiming_refused = err;
		j->writer = WRITE_BOUND;
		return 0;
	}
	return err;
}

/* O_DIRECT takes aligned pieces only: those go direct, an unaligned head or
 * tail through our buffered descriptor.  Returns the descriptor and trims
 * *n, or -1 when no descriptor can take the piece. */
static int direct_piece(struct emul_job *j, int64_t off, int64_t *n)
{
	int64_t mask = j->block - 1;

	if (!(off & mask) && *n >= j->block) {
		*n &= ~mask;
		return j->fd;
	}
	if (off & mask)
		*n = emul_min(*n, j->block - (off & mask));
	return private_writable(j) ? j->priv : -1;
}

/* What every successful write of zeros counts; a write of nothing is an
 * error (a filesystem full in a way it does not say). */
static int count_written(struct emul_job *j, ssize_t w, int64_t *done)
{
	if (w == 0)
		return EIO;
	*done = w;
	j->eintr_streak = j->early_eofs = 0;
	j->rep->bytes_written += (uint64_t)w;
	emul_wrote(j);
	return 0;
}

int emul_write(struct emul_job *j, int64_t off, int64_t end, int64_t *done)
{
	struct iovec iov[WRITE_CHUNK / ZERO_BUF_SIZE];
	int64_t n = emul_min(end - off, WRITE_CHUNK);
	int fd = j->writer == WRITE_PRIVATE ? j->priv : j->fd;
	int cnt, err;
	ssize_t w;

	*done = 0;
	/* In a child forked mid-call (by a progress callback), the job's
	 * descriptors were closed and their numbers may be another file's. */
	if (lfa_fork_generation() != j->fork_generation)
		return EBADF;
	if (j->aiming_refused)
		return j->aiming_refused;
	if (j->writer == WRITE_BOUND && j->direct && (fd = direct_piece(j, off, &n)) < 0)
		return EINVAL; /* glibc's answer on O_DIRECT */
	cnt = fill_iov(iov, n);
	j->rep->syscalls++;
	/* Had another writer cut the file below off since our look, this write
	 * leaves a hole before it, inside the range unless off is its start:
	 * the range is then checked before success. */
	if (off > j->offset)
		j->reshaped = 1;
	/* NFS: zeros written into a hole go out at once through the job's
	 * O_DIRECT descriptor, not on this client's writeback, which could
	 * come after another client filled the hole and land over its bytes
	 * (the server's hole was a fact only when it was read). */
	if (j->writer != WRITE_APPEND && emul_server_read_fd(j) >= 0 &&
	    (j->dio_mode & O_ACCMODE) == O_RDWR)
		w = pwritev64(j->dio, iov, cnt, off);
	else
		w = j->writer == WRITE_APPEND ? pwritev64(fd, iov, cnt, off) :
						positional(j, fd, iov, cnt, off);
	if (w < 0) {
		err = errno;
		if (err == EINTR)
			return interrupted(j); /* the caller looks again before writing */
		/* A filesystem may want stricter O_DIRECT alignment than its
		 * block: our buffered descriptor takes everything from here. */
		if (err == EINVAL && fd == j->fd && j->direct && private_writable(j)) {
			j->writer = WRITE_PRIVATE;
			j->direct = 0;
			return 0;
		}
		return err;
	}
	if ((err = count_written(j, w, done)) != 0)
		return err;
	emul_cache_wrote(j, off, w);
	if (j->writer == WRITE_APPEND)
		return 0; /* landed at the end of file, wherever that was */
	j->known_size = emul_max(j->known_size, off + w);
	return 0;
}

#ifdef HAVE_WRITE_V2
/* Whether RWF_APPEND was refused as unknown, or by a sandbox (EPERM,
 * EACCES); records the first. */
static int append_refused(int err)
{
	if (flag_unknown(err))
		__atomic_store_n(&kernel_lacks_append, 1, __ATOMIC_RELAXED);
	return flag_refused(err);
}
#endif

ssize_t emul_append_zeros(int fd, int64_t size, int64_t n)
{
#ifdef HAVE_WRITE_V2
	struct iovec iov[WRITE_CHUNK / ZERO_BUF_SIZE];
	ssize_t w;

	if (n > WRITE_CHUNK || __atomic_load_n(&kernel_lacks_append, __ATOMIC_RELAXED)) {
		errno = EOPNOTSUPP;
		return -1;
	}
	/* The offset is ignored with RWF_APPEND, but must not be -1, which
	 * would move the file offset the caller shares with us.  The size
	 * looked at (the range's start), not 0: a layer that dropped the
	 * flag (overlayfs on older kernels, which the quick path never
	 * takes) would write there, inside the range, not over the file's
	 * first bytes. */
	w = write_v2(fd, iov, fill_iov(iov, n), size, RWF_APPEND);
	if (w < 0)
		(void)append_refused(errno);
	return w;
#else
	(void)fd, (void)size, (void)n;
	errno = EOPNOTSUPP;
	return -1;
#endif
}

void emul_forget_kernel_answers(void)
{
#ifdef HAVE_WRITE_V2
	__atomic_store_n(&kernel_lacks_append, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&kernel_lacks_noappend, 0, __ATOMIC_RELAXED);
#endif
}

#ifdef HAVE_WRITE_V2
/* Whether RWF_APPEND is known to be refused. */
static int append_unknown(void)
{
	return __atomic_load_n(&kernel_lacks_append, __ATOMIC_RELAXED);
}
#endif

/* Through a descriptor opened with O_APPEND, on a filesystem other machines
 * share or an overlayfs (emul_append_fd): the O_APPEND of its open puts
 * the zeros at the server's end of file, or the lower file's.  RWF_APPEND
 * as well, where the kernel has it, so that another thread's F_SETFL
 * clearing O_APPEND on the caller's open file cannot make the write
 * positional; without it, O_APPEND alone appends. */
static ssize_t append_through(struct emul_job *j, int fd, const struct iovec *iov, int cnt)
{
#ifdef HAVE_WRITE_V2
	ssize_t w;

	if (!append_unknown()) {
		w = write_with(j, fd, iov, cnt, j->known_size, RWF_APPEND);
		if (w >= 0 || !append_refused(errno))
			return w;
		j->rep->syscalls++;
	}
	if (emul_cache_rwf(j, iov_bytes(iov, cnt)))
		return write_with(j, fd, iov, cnt, j->known_size, 0);
#else
	(void)j;
#endif
	/* pwritev on an O_APPEND descriptor appends, whatever the offset,
	 * and moves no file offset. */
	return pwritev64(fd, iov, cnt, j->known_size);
}

/* The zeros land after whatever another writer appended since our look at
 * the size, never over it.  If it appended k bytes in that window, the
 * zeros end k bytes further than aimed: past the range by at most the
 * smaller of k and this piece, and only ever past the end of file. */
/* Once per call, not after each append: whatever this client cached of
 * the range's pages while appending (zeros at its own idea of the end,
 * which may lie over another client's bytes on the server) is dropped, so
 * that the caller's next read of the file asks the server. */
void emul_drop_appended(struct emul_job *j)
{
	if (!j->app_wrote || !j->app_tried || j->app < 0)
		return;
	j->app_wrote = 0;
	j->rep->syscalls++;
	(void)posix_fadvise64(j->app, j->offset & ~(int64_t)4095, 0, POSIX_FADV_DONTNEED);
}

int emul_append(struct emul_job *j, int64_t n, int64_t *done)
{
	struct iovec iov[WRITE_CHUNK / ZERO_BUF_SIZE];
	int fd = j->writer == WRITE_PRIVATE ? j->priv : j->fd;
	int shared = -1, cnt, err;
	ssize_t w;

	*done = 0;
	if (lfa_fork_generation() != j->fork_generation)
		return EBADF; /* as in emul_write */
	if (j->writer == WRITE_APPEND)
		return EMUL_NO_APPEND; /* an append-only file appends anyway */
	if (j->facts & LFA_FS_APPEND_OPEN)
		shared = emul_append_fd(j);
	/* O_DIRECT would need the end of file aligned, which another writer
	 * decides; the descriptor with O_APPEND has no O_DIRECT. */
	if (shared < 0 && j->writer == WRITE_BOUND && j->direct)
		return EMUL_NO_APPEND;
	/* RWF_APPEND lands at the size the kernel keeps, which a filesystem
	 * that finds files by name may have taken from another file, over the
	 * held file's own bytes: positional writes, at the end its handle
	 * gave (emul_refresh_size). */
	if (shared < 0 && (j->facts & LFA_FS_BY_NAME))
		return EMUL_NO_APPEND;
#ifdef HAVE_WRITE_V2
	if (shared < 0 && append_unknown())
		return EMUL_NO_APPEND;
#else
	if (shared < 0)
		return EMUL_NO_APPEND;
#endif
	n = emul_min(n, WRITE_CHUNK);
	cnt = fill_iov(iov, n);
	j->rep->syscalls++;
	if (shared >= 0) {
		w = append_through(j, shared, iov, cnt);
	} else {
#ifdef HAVE_WRITE_V2
		/* The offset is ignored with RWF_APPEND, but must not be -1,
		 * which would move the file offset the caller shares with us. */
		w = write_with(j, fd, iov, cnt, j->known_size, RWF_APPEND);
		if (w < 0 && append_refused(errno))
			return EMUL_NO_APPEND;
#else
		(void)fd;
		w = -1; /* not reached */
#endif
	}
	if (w < 0) {
		err = errno;
		return err == EINTR ? interrupted(j) : err;
	}
	/* Through the O_APPEND descriptor, this client copied the zeros into
	 * its page cache at its own idea of the end (its kernel's, which a
	 * stale size can have put below the server's), and still holds the
	 * page that ended there: the server may have put another client's
	 * bytes under both.  Those pages stay, no drop after each append
	 * (one fadvise per 4 MiB, issue 31): the engine takes bytes for zeros
	 * only from the read-back (read_back in emul_holes.c; the size looks
	 * read no page), which on these same filesystems drops the pages it
	 * is about to read right before reading them, later than a drop here
	 * would and with nothing cached in between; and a run read before a
	 * write is read again before it is written (emul_wrote ends what is
	 * fresh).  So a stale page never makes another client's bytes pass
	 * for zeros to be written over.  For the caller's own reads after the
	 * call, they are dropped once, at its end (emul_drop_appended); not
	 * on overlayfs, whose file below no other machine writes. */
	j->app_wrote |= shared >= 0 && w > 0 && (j->facts & LFA_FS_SHARED);
	if ((err = count_written(j, w, done)) != 0)
		return err;
	j->known_size += w; /* at least: they landed at or after it */
	return 0;
}
