/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright (C) 2026 the libfallocate authors (see AUTHORS) */
/* The emulation's rules under other writers and faults, each proven by
 * making "the other writer" act at an exact syscall of the library: this
 * program defines the libc functions the engine calls (pwritev64, statx,
 * ...), which run a scripted action before or after the real call. */
#include "testutil.h"

#include <check.h>

#include "check-run.h"
#include <dlfcn.h>
#include <dirent.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/file.h>
#include <stdarg.h>
#include <sys/inotify.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/prctl.h>
#include <sys/statfs.h>
#include <sys/swap.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>

#include "emul_job.h"
#include "emulate.h"
#include "shim.h"
#include "sys_fallocate.h"

#include <linux/fiemap.h>
#include <linux/fs.h>

#define KiB ((int64_t)1 << 10)
#define MiB ((int64_t)1 << 20)

/* The script: act at the nth call of fn during the job, before the call
 * (and then fail it with the errno act returns, if any) or after it. */
static struct {
	const char *fn;
	int nth, after;
	int (*act)(void);
	int calls, active, acting;
	int64_t write_lo, write_hi; /* the span the job's positional writes covered */
	int writes, v2_calls;
} hk;

/* The other writer's descriptors and the job's. */
static int other_fd = -1, job_fd = -1;
static const char *job_path;

/* Whether the test directory is on a local filesystem, where the engine
 * believes SEEK_HOLE and knows the maximum file size.  On a layer
 * (overlayfs: a container's /tmp, the VM's root before its scratch disk)
 * or a server it reopens the file for that maximum and reads the range
 * back (README, Known limits): the cases that count on neither say so and
 * stop there. */
static int local_here(const char *why)
{
	struct statfs sf;

	if (statfs(test_dir(), &sf) == 0 &&
	    (lfa_fs_facts_of_type((uint32_t)sf.f_type) & (LFA_FS_SEEK_HOLE | LFA_FS_QUICK)))
		return 1;
	fprintf(stderr, "%s: %s is not a local filesystem (f_type %#lx), skipped\n", why,
		test_dir(), (unsigned long)sf.f_type);
	return 0;
}


static int hook_point(const char *fn, int after)
{
	int err = 0;

	if (!hk.active || hk.acting || !hk.fn || strcmp(fn, hk.fn))
		return 0;
	if (!after)
		hk.calls++;
	if (hk.calls == hk.nth && after == hk.after) {
		hk.acting = 1;
		err = hk.act();
		hk.acting = 0;
	}
	return err;
}

static void note_write(const struct iovec *iov, int cnt, int64_t off)
{
	int64_t n = 0;
	int i;

	if (!hk.active || hk.acting)
		return;
	for (i = 0; i < cnt; i++)
		n += (int64_t)iov[i].iov_len;
	if (!hk.writes++ || off < hk.write_lo)
		hk.write_lo = off;
	if (off + n > hk.write_hi)
		hk.write_hi = off + n;
}

static int interrupt_write(void);

ssize_t pwritev64(int fd, const struct iovec *iov, int cnt, off64_t off)
{
	int err = hook_point("pwritev64", 0);
	ssize_t r;

	if (!err)
		err = interrupt_write();
	if (err) {
		errno = err;
		return -1;
	}
	note_write(iov, cnt, off);
	r = REAL(pwritev64)(fd, iov, cnt, off);
	hook_point("pwritev64", 1);
	return r;
}

/* A layer that accepts RWF_NOAPPEND and appends anyway, as overlayfs and
 * FUSE servers that opened their file with O_APPEND do. */
static int layer_ignores_noappend;

/* A client of a shared filesystem through FUSE (issue 24): pwritev2
 * (RWF_APPEND) on a descriptor opened without O_APPEND lands at the size
 * this client last saw (client_size: the job's last fstat), not at the
 * server's end of file; a descriptor opened with O_APPEND has the server
 * append, as GlusterFS's does. */
static int stale_client_size;
static int64_t client_size;

/* The filesystem a whole test plays (fstatfs's f_type), across the resets
 * of its scripts; fake_fs_type, for one script, wins. */
static long case_fs_type;

/* A kernel older than RWF_APPEND (4.16) or RWF_NOAPPEND (6.9), as far as
 * the engine can tell. */
static int kernel_without_rwf_append, kernel_without_rwf_noappend;

/* Whether the real pwritev2 refuses a flag (a kernel before it, or
 * qemu-user, which answers EOPNOTSUPP to every pwritev2 flag): the shim
 * then refuses it before the script sees a write, as such a kernel would. */
static int real_refuses(int flag)
{
	static int known[2], refused[2];
	int i = flag == 0x10 ? 0 : 1, fd;
	struct iovec iov = { (void *)"x", 1 };

	if (!known[i]) {
		fd = memfd_create("lfa-probe", MFD_CLOEXEC);
		refused[i] = fd >= 0 && REAL(pwritev64v2)(fd, &iov, 1, 0, flag) < 0 &&
			     (errno == EOPNOTSUPP || errno == ENOSYS || errno == EINVAL);
		if (fd >= 0)
			close(fd);
		known[i] = 1;
	}
	return refused[i];
}

/* Whether the real pwritev2 refuses RWF_DONTCACHE (Linux 6.14) on fd: a
 * kernel before it refuses it everywhere, a later one on filesystems
 * without it.  The engine then writes again without it, and the script
 * must not count the refused try as a write (on Debian 12's 6.1 the first
 * write would otherwise be no write at all).  Asked once of a file in the
 * test's directory, for descriptors of that filesystem; elsewhere
 * (memfd, ramfs) taken as accepted, as before. */
static int real_refuses_dontcache(int fd)
{
	static int known, refused;
	static dev_t dev;
	struct stat64 st;

	if (!known) {
		char p[4096];
		struct iovec iov = { (void *)"x", 1 };
		int probe;

		snprintf(p, sizeof p, "%s/.dontcache-probe", test_dir());
		probe = open(p, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
		if (probe < 0)
			return 0;
		unlink(p);
		refused = REAL(pwritev64v2)(probe, &iov, 1, 0, 0x80) < 0 &&
			  (errno == EOPNOTSUPP || errno == ENOSYS || errno == EINVAL);
		known = REAL(fstat64)(probe, &st) == 0;
		dev = st.st_dev;
		close(probe);
	}
	return known && refused && REAL(fstat64)(fd, &st) == 0 && st.st_dev == dev;
}

/* A layer that accepts RWF_APPEND and writes where aimed, as overlayfs on
 * older kernels (Debian 12's 6.1) does through a descriptor opened
 * without O_APPEND. */
static int layer_drops_append;

/* pwritev2 is the same write to the script as pwritev: the engine appends
 * (RWF_APPEND) or writes positionally (RWF_NOAPPEND) through it.  v2_calls
 * counts the RWF_NOAPPEND ones; an append is noted where it lands. */
ssize_t pwritev64v2(int fd, const struct iovec *iov, int cnt, off64_t off, int flags)
{
	struct stat64 st;
	ssize_t r;
	int err;

	if (((kernel_without_rwf_append || real_refuses(0x10)) && (flags & 0x10)) ||
	    ((kernel_without_rwf_noappend || real_refuses(0x20)) && (flags & 0x20)) ||
	    ((flags & 0x80) && real_refuses_dontcache(fd))) {
		errno = EOPNOTSUPP;
		return -1;
	}
	err = hook_point("pwritev64", 0);
	if (!err)
		err = interrupt_write();
	if (err) {
		errno = err;
		return -1;
	}
	if (hk.active && !hk.acting && (flags & 0x20))
		hk.v2_calls++;
	if ((flags & 0x10) && REAL(fstat64)(fd, &st) == 0)
		note_write(iov, cnt, st.st_size);
	else
		note_write(iov, cnt, off);
	if (layer_ignores_noappend)
		flags &= ~0x20;
	if (layer_drops_append && !(fcntl(fd, F_GETFL) & O_APPEND))
		flags &= ~0x10;
	if (stale_client_size && hk.active && (flags & 0x10) && !(fcntl(fd, F_GETFL) & O_APPEND))
		r = REAL(pwritev64v2)(fd, iov, cnt, client_size, flags & ~0x10);
	else
		r = REAL(pwritev64v2)(fd, iov, cnt, off, flags);
	hook_point("pwritev64", 1);
	return r;
}

/* A kernel before 6.8, as statx shows it: mount ids that the next mount
 * takes again, no unique ones. */
static int reusable_mount_ids;

int statx(int fd, const char *path, int flags, unsigned mask, struct statx *sx)
{
	int r;

	hook_point("statx", 0);
	if (reusable_mount_ids && hk.active)
		mask &= ~0x4000u;
	r = REAL(statx)(fd, path, flags, mask, sx);

	hook_point("statx", 1);
	return r;
}

/* SEEK_DATA and SEEK_HOLE as the VFS answers for a filesystem that does not
 * implement them (the standalone ext2 driver): all data up to the size. */
static int generic_seek;

off64_t lseek64(int fd, off64_t off, int whence)
{
	int err = hook_point("lseek64", 0);
	struct stat64 st;

	if (err) {
		errno = err;
		return -1;
	}
	if (generic_seek && hk.active && (whence == SEEK_DATA || whence == SEEK_HOLE)) {
		if (REAL(fstat64)(fd, &st) != 0)
			return -1;
		if (off >= st.st_size) {
			errno = ENXIO;
			return -1;
		}
		return whence == SEEK_DATA ? off : st.st_size;
	}
	return REAL(lseek64)(fd, off, whence);
}

/* Faults of odd files, for the job only: every write interrupted (a FUSE
 * server answering EINTR), reads that end before the size (a sysfs
 * attribute, a FUSE server), and the filesystem fstatfs names.  Each
 * stops after FAULT_CAP calls with an error of its own, so that an engine
 * that loops for ever fails the test instead of hanging it. */
#define FAULT_CAP 1000
static int writes_interrupted, reads_end_early, write_attempts, read_attempts;
static long fake_fs_type;

static int interrupt_write(void)
{
	if (!writes_interrupted || !hk.active || hk.acting)
		return 0;
	return ++write_attempts > FAULT_CAP ? ENOSPC : EINTR;
}

ssize_t pread64(int fd, void *buf, size_t n, off64_t off)
{
	int err = hook_point("pread64", 0);

	if (err) {
		errno = err;
		return -1;
	}
	if (reads_end_early && hk.active && !hk.acting) {
		/* 2: another client's write in flight, its size published
		 * first: the file grows by 4 KiB at each read that ends. */
		if (reads_end_early == 2 && job_path) {
			int other = open(job_path, O_WRONLY | O_APPEND);

			ck_assert_int_ge(other, 0);
			ck_assert_int_eq(REAL(pwrite64)(other, "XXXXXXXXXXXXXXXX", 16, 0), 16);
			close(other);
		}
		return ++read_attempts > FAULT_CAP ? (errno = EIO, -1) : 0;
	}
	return REAL(pread64)(fd, buf, n, off);
}

/* Whether the FUSE server played finds files by name (fuse_server.c,
 * which would read the real mount table, is replaced here): sshfs, which
 * does and answers its handle's attributes by the handle, or by default
 * GlusterFS, which keeps a file's identity. */
static int fake_by_name;

void lfa_fuse_server(uint64_t dev, char *type, size_t n, unsigned *syscalls)
{
	(void)dev, (void)syscalls;
	snprintf(type, n, "%s", fake_by_name ? "fuse.sshfs" : "fuse.glusterfs");
}

/* Reopens through /proc answered ESTALE (an NFS server that no longer has
 * the file: renamed over there), counted. */
static int reopen_estale, reopens_tried;

static int stale_reopen(const char *path)
{
	if (!reopen_estale || !hk.active || hk.acting || strncmp(path, "/proc/", 6) != 0 ||
	    !strstr(path, "/fd/"))
		return 0;
	reopens_tried++;
	errno = ESTALE;
	return 1;
}

/* The library's open(), whatever _FILE_OFFSET_BITS renames this file's to,
 * and the fortified one a build with _FORTIFY_SOURCE calls (Debian's). */
int open_in_library(const char *path, int flags, ...) __asm__("open");
int open_in_library(const char *path, int flags, ...)
{
	va_list ap;
	mode_t mode;

	va_start(ap, flags);
	mode = (flags & (O_CREAT | O_TMPFILE)) ? (mode_t)va_arg(ap, int) : 0;
	va_end(ap);
	if (stale_reopen(path))
		return -1;
	return ((int (*)(const char *, int, ...))real_fn("open"))(path, flags, mode);
}

int open_2_in_library(const char *path, int flags) __asm__("__open_2");
int open_2_in_library(const char *path, int flags)
{
	if (stale_reopen(path))
		return -1;
	return ((int (*)(const char *, int))real_fn("__open_2"))(path, flags);
}

static int fstatfs_calls;

int fstatfs64(int fd, struct statfs64 *sf)
{
	int r = REAL(fstatfs64)(fd, sf);

	if (hk.active && !hk.acting)
		fstatfs_calls++;

	if (r == 0 && fake_fs_type && hk.active && !hk.acting)
		sf->f_type = fake_fs_type;
	else if (r == 0 && case_fs_type && hk.active && !hk.acting)
		sf->f_type = case_fs_type;
	return r;
}

static int fstat_fd;

int fstat64(int fd, struct stat64 *st)
{
	int r;

	fstat_fd = fd;
	if ((r = hook_point("fstat64", 0)) != 0) {
		errno = r;
		return -1;
	}
	r = REAL(fstat64)(fd, st);
	if (r == 0 && hk.active && !hk.acting && fd == job_fd)
		client_size = st->st_size;
	hook_point("fstat64", 1);
	return r;
}

/* A point for the script: the ftruncate of a sealed memfd's size. */
int ftruncate64(int fd, off64_t len)
{
	int err = hook_point("ftruncate64", 0);

	if (err) {
		errno = err;
		return -1;
	}
	return REAL(ftruncate64)(fd, len);
}

/* FS_IOC_FIEMAP as a filesystem without it answers (fiemap_errno, every
 * call), or one that is busy or interrupted for its first fiemap_fails
 * calls; a point for the script ("ioctl") either way. */
static int fiemap_errno, fiemap_fails;

int ioctl(int fd, unsigned long req, ...)
{
	va_list ap;
	void *arg;
	int err = 0, r;

	va_start(ap, req);
	arg = va_arg(ap, void *);
	va_end(ap);
	if (req != FS_IOC_FIEMAP || !hk.active || hk.acting)
		return REAL(ioctl)(fd, req, arg);
	err = hook_point("ioctl", 0);
	if (!err && fiemap_fails > 0) {
		fiemap_fails--;
		err = fiemap_errno;
	} else if (!err && fiemap_fails < 0) {
		err = fiemap_errno;
	}
	if (err) {
		errno = err;
		return -1;
	}
	r = REAL(ioctl)(fd, req, arg);
	hook_point("ioctl", 1);
	return r;
}

static void hook_reset(void)
{
	fiemap_errno = fiemap_fails = 0;
	memset(&hk, 0, sizeof hk);
	layer_ignores_noappend = layer_drops_append = 0;
	kernel_without_rwf_append = kernel_without_rwf_noappend = 0;
	generic_seek = 0;
	writes_interrupted = reads_end_early = write_attempts = read_attempts = 0;
	reopen_estale = reopens_tried = 0;
	fake_fs_type = 0;
	fstatfs_calls = 0;
	reusable_mount_ids = 0;
	stale_client_size = 0;
	/* What an earlier test's play kernel refused is not this one's kernel
	 * (the tests share one process under CK_FORK=no, as under valgrind). */
	emul_forget_kernel_answers();
}

static void script(const char *fn, int nth, int after, int (*act)(void))
{
	hook_reset();
	hk.fn = fn;
	hk.nth = nth;
	hk.after = after;
	hk.act = act;
}

static int job(int fd, int64_t offset, int64_t len, struct lfa_job_report *rep,
	       int (*progress)(void *, uint64_t, uint64_t))
{
	struct lfa_job_options opt = { LFA_EMULATE_ALWAYS, progress, NULL, 0, 0, 0, 0, 0 };
	struct lfa_job_report local;
	int err;

	job_fd = fd;
	hk.active = 1;
	err = lfa_run_job("test", fd, offset, len, INT64_MAX, &opt, rep ? rep : &local);
	hk.active = 0;
	return err;
}

/* Every write the job issued lay inside [offset, end). */
static void writes_inside(int64_t offset, int64_t end)
{
	if (hk.writes) {
		ck_assert_msg(hk.write_lo >= offset && hk.write_hi <= end,
			      "wrote [%lld, %lld) for the range [%lld, %lld)",
			      (long long)hk.write_lo, (long long)hk.write_hi,
			      (long long)offset, (long long)end);
	}
}

static const char *fresh(const char *name)
{
	const char *p = scratch_path(name);

	unlink(p);
	job_path = p;
	return p;
}

/* The whole file, which must be n bytes: want, with NULL meaning zeros. */
static void expect_bytes(const char *path, const unsigned char *want, int64_t n)
{
	unsigned char *got = malloc((size_t)n + 1), *zeros = NULL;
	int fd = open(path, O_RDONLY);
	int64_t i;

	ck_assert(got && fd >= 0);
	ck_assert_int_eq(file_size(fd), n);
	ck_assert_int_eq(pread(fd, got, (size_t)n, 0), n);
	close(fd);
	if (!want)
		want = zeros = calloc(1, (size_t)n + 1);
	if (memcmp(got, want, (size_t)n)) {
		for (i = 0; got[i] == want[i]; i++)
			;
		ck_abort_msg("%s: byte %lld is %d, not %d", path, (long long)i, got[i], want[i]);
	}
	free(got);
	free(zeros);
}

static unsigned char *pattern(int64_t n, unsigned seed)
{
	unsigned char *b = calloc(1, (size_t)n);

	ck_assert(b != NULL);
	fill_pattern(b, (size_t)n, seed);
	return b;
}

static void put(int fd, const unsigned char *b, int64_t n, int64_t off)
{
	ck_assert_int_eq(pwrite(fd, b, (size_t)n, off), n);
}

/* --- the file never gets shorter ----------------------------------- */

static int append_64k(void)
{
	unsigned char *b = pattern(64 * KiB, 2);

	ck_assert_int_eq(write(other_fd, b, 64 * KiB), 64 * KiB);
	free(b);
	return 0;
}

/* Bytes appended right after the engine read the size are data, never cut
 * off by a size computed from the stale one. */
START_TEST(stale_size_never_shrinks)
{
	const char *p = fresh("stale");
	unsigned char *want = calloc(1, MiB + 64 * KiB);
	unsigned char *old = pattern(MiB, 1), *app = pattern(64 * KiB, 2);
	int fd;

	write_pattern_at(p, 0, MiB, 1);
	fd = open(p, O_RDWR);
	other_fd = open(p, O_WRONLY | O_APPEND);
	script("statx", 1, 1, append_64k);
	ck_assert_int_eq(job(fd, 0, MiB + 100, NULL, NULL), 0);
	memcpy(want, old, MiB);
	memcpy(want + MiB, app, 64 * KiB);
	expect_bytes(p, want, MiB + 64 * KiB);
	close(fd);
	close(other_fd);
	free(want), free(old), free(app);
}
END_TEST

static int append_100_then_enospc(void)
{
	unsigned char *b = pattern(100, 3);

	ck_assert_int_eq(write(other_fd, b, 100), 100);
	free(b);
	return ENOSPC;
}

/* A failure part way undoes nothing: no truncation can take another
 * writer's bytes with it.  The zeros written stay, as ext4's blocks do. */
START_TEST(failure_keeps_other_writers_bytes)
{
	const char *p = fresh("enospc");
	unsigned char *want = calloc(1, 4 * MiB + 100), *app = pattern(100, 3);
	int fd = open(p, O_RDWR | O_CREAT, 0600);

	other_fd = open(p, O_WRONLY | O_APPEND);
	script("pwritev64", 2, 0, append_100_then_enospc);
	ck_assert_int_eq(job(fd, 0, 16 * MiB, NULL, NULL), ENOSPC);
	memcpy(want + 4 * MiB, app, 100);
	expect_bytes(p, want, 4 * MiB + 100);
	ck_assert(fully_allocated(p, 0, 4 * MiB));
	close(fd);
	close(other_fd);
	free(want), free(app);
}
END_TEST

static int append_then_cancel(void *arg, uint64_t done, uint64_t total)
{
	(void)arg, (void)total;
	if (done < 4 * MiB)
		return 0;
	append_100_then_enospc();
	return 1;
}

START_TEST(cancel_keeps_other_writers_bytes)
{
	const char *p = fresh("cancel");
	unsigned char *want = calloc(1, 4 * MiB + 100), *app = pattern(100, 3);
	int fd = open(p, O_RDWR | O_CREAT, 0600);

	other_fd = open(p, O_WRONLY | O_APPEND);
	hook_reset();
	ck_assert_int_eq(job(fd, 0, 16 * MiB, NULL, append_then_cancel), ECANCELED);
	memcpy(want + 4 * MiB, app, 100);
	expect_bytes(p, want, 4 * MiB + 100);
	close(fd);
	close(other_fd);
	free(want), free(app);
}
END_TEST

static int die_now(void)
{
	_exit(0);
}

/* Stopped at any instant, the file is the old bytes and a prefix of the
 * range without holes: the job writes from low offsets to high and never
 * sets a size ahead of its writes. */
START_TEST(killed_midway_leaves_a_prefix)
{
	const char *p = fresh("killed");
	unsigned char *want = calloc(1, 3000 + 8 * MiB), *old = pattern(3000, 4);
	pid_t pid;
	int status;

	write_pattern_at(p, 0, 3000, 4);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		int fd = open(p, O_RDWR);

		free(want), free(old); /* the parent's to compare; this child dies */
		script("pwritev64", 3, 0, die_now);
		job(fd, 0, 64 * MiB, NULL, NULL);
		_exit(1); /* never here: the third write kills it */
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	memcpy(want, old, 3000);
	expect_bytes(p, want, 3000 + 8 * MiB);
	ck_assert(fully_allocated(p, 0, 3000 + 8 * MiB));
	free(want), free(old);
}
END_TEST

/* --- no byte outside the range -------------------------------------- */

static int fill_around_range(void)
{
	unsigned char a[1000], b[4096 - 1100];

	memset(a, 'A', sizeof a);
	memset(b, 'B', sizeof b);
	put(other_fd, a, sizeof a, 0);
	put(other_fd, b, sizeof b, 1100);
	return 0;
}

/* A hole block that straddles the range's edges gets zeros on its
 * in-range part only: what another writer put beside it survives. */
START_TEST(zeros_only_inside_range)
{
	const char *p = fresh("edges");
	unsigned char want[8192];
	int fd = open(p, O_RDWR | O_CREAT, 0600);

	ck_assert_int_eq(ftruncate(fd, 8192), 0);
	other_fd = open(p, O_WRONLY);
	script("pwritev64", 1, 0, fill_around_range);
	ck_assert_int_eq(job(fd, 1000, 100, NULL, NULL), 0);
	writes_inside(1000, 1100);
	memset(want, 0, sizeof want);
	memset(want, 'A', 1000);
	memset(want + 1100, 'B', 4096 - 1100);
	expect_bytes(p, want, sizeof want);
	close(fd);
	close(other_fd);
}
END_TEST

/* The same past the end of file, and across a block boundary. */
START_TEST(zeros_only_inside_range_past_end)
{
	const char *p = fresh("edges-end");
	int fd = open(p, O_RDWR | O_CREAT, 0600);
	unsigned char *want = calloc(1, 4200);

	hook_reset();
	ck_assert_int_eq(job(fd, 4000, 200, NULL, NULL), 0);
	writes_inside(4000, 4200);
	expect_bytes(p, want, 4200);
	close(fd);
	free(want);
}
END_TEST

/* --- each piece is looked at right before it is written --------------- */

static int64_t marker_at;

static int mark_later_piece(void)
{
	put(other_fd, (const unsigned char *)"marker", 6, marker_at);
	return 0;
}

/* The marker lands, right before the first write, in a piece that a later
 * write would cover: data at [0, 4 KiB) and [64 KiB, 68 KiB), holes around,
 * so that one read-back piece holds two zero runs. */
static void recheck_in(const char *dir, int64_t marker)
{
	char p[4200];
	unsigned char *want = calloc(1, 16 * MiB), *old = pattern(4096, 5);
	int fd;

	snprintf(p, sizeof p, "%s/recheck", dir);
	unlink(p);
	write_pattern_at(p, 0, 4096, 5);
	write_pattern_at(p, 64 * KiB, 4096, 5);
	fd = open(p, O_RDWR);
	ck_assert_int_eq(ftruncate(fd, 16 * MiB), 0);
	other_fd = open(p, O_WRONLY);
	marker_at = marker;
	script("pwritev64", 1, 0, mark_later_piece);
	ck_assert_int_eq(job(fd, 0, 16 * MiB, NULL, NULL), 0);
	memcpy(want, old, 4096);
	memcpy(want + 64 * KiB, old, 4096);
	memcpy(want + marker, "marker", 6);
	expect_bytes(p, want, 16 * MiB);
	close(fd);
	close(other_fd);
	unlink(p);
	free(want), free(old);
}

START_TEST(recheck_before_each_write_seek)
{
	recheck_in(test_dir(), 9 * MiB);
}
END_TEST

/* ramfs reports no holes: the engine reads back, and must read again. */
START_TEST(recheck_before_each_write_read_back)
{
	char dir[4096];

	if (scratch_ramfs(dir, sizeof dir, "read-back recheck") != 0)
		return;
	recheck_in(dir, 3 * MiB); /* a piece read back after the first write */
	recheck_in(dir, 100 * KiB); /* the second zero run of the first piece */
	unmount_scratch_ramfs(dir);
}
END_TEST

/* --- holes found where they are ---------------------------------------- */

static void sparse_with_data(const char *p, int64_t hole);
static void expect_sparse_filled(const char *p, int64_t hole, int64_t size);

/* A filesystem whose SEEK_HOLE finds no hole in a file with fewer blocks
 * than its size is not believed: the engine reads back instead. */
START_TEST(generic_seek_hole_is_not_believed)
{
	const char *p = fresh("generic-seek");
	struct lfa_job_report rep;
	int fd;

	sparse_with_data(p, MiB);
	fd = open(p, O_RDWR);
	hook_reset();
	generic_seek = 1;
	fiemap_errno = EOPNOTSUPP, fiemap_fails = -1; /* as if without FIEMAP */
	ck_assert_int_eq(job(fd, 0, 16384 + MiB, &rep, NULL), 0);
	generic_seek = 0;
	close(fd);
	ck_assert_int_eq(rep.hole_map, LFA_MAP_READ);
	expect_sparse_filled(p, MiB, 16384 + MiB);
	ck_assert(fully_allocated(p, 0, 16384 + MiB));
}
END_TEST

/* --- writes land where aimed ------------------------------------------ */

static void sparse_with_data(const char *p, int64_t hole)
{
	write_pattern_at(p, 0, 8192, 6);
	write_pattern_at(p, 8192 + hole, 8192, 7);
}

static void expect_sparse_filled(const char *p, int64_t hole, int64_t size)
{
	unsigned char *want = calloc(1, (size_t)size);
	unsigned char *a = pattern(8192, 6), *b = pattern(8192, 7);

	memcpy(want, a, 8192);
	memcpy(want + 8192 + hole, b, 8192);
	expect_bytes(p, want, size);
	free(want), free(a), free(b);
}

/* On an O_APPEND descriptor the engine never trusts RWF_NOAPPEND where it
 * can reopen the file: overlayfs and FUSE accept the flag and append. */
START_TEST(append_descriptor_on_a_layer_that_appends)
{
	const char *p = fresh("append-layer");
	int fd;

	sparse_with_data(p, MiB);
	fd = open(p, O_RDWR | O_APPEND);
	hook_reset();
	layer_ignores_noappend = 1;
	ck_assert_int_eq(job(fd, 0, 16384 + 2 * MiB, NULL, NULL), 0);
	ck_assert_int_eq(hk.v2_calls, 0);
	close(fd);
	expect_sparse_filled(p, MiB, 16384 + 2 * MiB);
	ck_assert(fully_allocated(p, 0, 16384 + 2 * MiB));
}
END_TEST

static int sigio_count;
static void count_sigio(int sig)
{
	(void)sig;
	sigio_count++;
}

static int take_write_lease(int fd)
{
	signal(SIGIO, count_sigio);
	sigio_count = 0;
	if (fcntl(fd, F_SETLEASE, F_WRLCK) != 0) {
		fprintf(stderr, "skipping: F_SETLEASE: %s\n", strerror(errno));
		return 0;
	}
	return 1;
}

/* Where it cannot reopen (the caller holds a lease), an O_APPEND
 * descriptor takes no positional write at all: EBADF, glibc's answer, and
 * nothing written.  RWF_NOAPPEND could be ignored below, and a size check
 * afterwards could not tell a misplaced write from another writer's append. */
START_TEST(append_descriptor_without_a_reopen_is_ebadf)
{
	const char *p = fresh("append-lease");
	int fd;

	sparse_with_data(p, MiB);
	fd = open(p, O_RDWR | O_APPEND);
	if (!take_write_lease(fd)) {
		close(fd);
		return;
	}
	hook_reset();
	layer_ignores_noappend = 1;
	ck_assert_int_eq(job(fd, 0, 16384 + 2 * MiB, NULL, NULL), EBADF);
	ck_assert_int_eq(hk.v2_calls, 0);
	ck_assert_int_eq(hk.writes, 0);
	ck_assert_int_eq(sigio_count, 0);
	close(fd);
	expect_sparse_filled(p, MiB, 16384 + MiB);
}
END_TEST

/* The caller's own write lease stays: no reopen breaks it (a reopen
 * would signal the caller and wait up to lease-break-time), no SIGIO.  A
 * sparse file, where finding holes needs a file offset of our own. */
START_TEST(callers_lease_is_kept)
{
	const char *p = fresh("lease");
	int fd;

	sparse_with_data(p, MiB);
	fd = open(p, O_RDWR);
	if (!take_write_lease(fd)) {
		close(fd);
		return;
	}
	hook_reset();
	ck_assert_int_eq(job(fd, 0, 16384 + 2 * MiB, NULL, NULL), 0);
	ck_assert_int_eq(fcntl(fd, F_GETLEASE), F_WRLCK);
	ck_assert_int_eq(sigio_count, 0);
	close(fd);
	expect_sparse_filled(p, MiB, 16384 + 2 * MiB);
	ck_assert(fully_allocated(p, 0, 16384 + 2 * MiB));
}
END_TEST

static const char *other_path;

static int redirect_callers_fd(void)
{
	int o = open(other_path, O_RDWR);

	ck_assert_int_eq(dup2(o, job_fd), job_fd);
	close(o);
	return 0;
}

/* Another thread dup2()s over the caller's descriptor mid-call: the zeros
 * still go to the file the call was about. */
START_TEST(dup2_mid_call_cannot_redirect)
{
	const char *p = fresh("dup2-target");
	unsigned char *old = pattern(MiB, 8);
	int fd;

	become_multithreaded();
	ck_assert(!process_single_threaded());
	other_path = scratch_path("dup2-other");
	unlink(other_path);
	write_pattern_at(other_path, 0, MiB, 8);
	fd = open(p, O_RDWR | O_CREAT, 0600);
	script("pwritev64", 1, 0, redirect_callers_fd);
	ck_assert_int_eq(job(fd, 0, 8 * MiB, NULL, NULL), 0);
	close(fd);
	expect_bytes(other_path, old, MiB);
	expect_bytes(p, NULL, 8 * MiB);
	free(old);
}
END_TEST

static int noatime_seen = -1;

/* Every descriptor of this process for the job's file carries O_NOATIME. */
static int check_noatime(void)
{
	char link[300], target[4096], info[300], line[256];
	struct dirent *d;
	DIR *dir = opendir("/proc/self/fd");

	noatime_seen = 1;
	while (dir && (d = readdir(dir))) {
		ssize_t n;
		FILE *f;

		snprintf(link, sizeof link, "/proc/self/fd/%s", d->d_name);
		n = readlink(link, target, sizeof target - 1);
		if (n <= 0)
			continue;
		target[n] = 0;
		if (strcmp(target, job_path))
			continue;
		snprintf(info, sizeof info, "/proc/self/fdinfo/%s", d->d_name);
		if (!(f = fopen(info, "r")))
			continue;
		while (fgets(line, sizeof line, f)) {
			unsigned long flags;

			if (sscanf(line, "flags: %lo", &flags) == 1 && !(flags & O_NOATIME))
				noatime_seen = 0;
		}
		fclose(f);
	}
	if (dir)
		closedir(dir);
	return 0;
}

START_TEST(reopened_descriptor_keeps_noatime)
{
	const char *p = fresh("noatime");
	int fd;

	write_pattern_at(p, 0, 100, 9);
	fd = open(p, O_WRONLY | O_APPEND | O_NOATIME);
	ck_assert_int_ge(fd, 0);
	script("pwritev64", 1, 0, check_noatime);
	ck_assert_int_eq(job(fd, 0, MiB, NULL, NULL), 0);
	ck_assert_int_eq(noatime_seen, 1);
	close(fd);
}
END_TEST

/* --- limits and the kernel's answers ------------------------------------ */

/* SIGXFSZ as the kernel's inode_newsize_ok sends it: to the calling
 * thread, counted where it ran. */
static volatile sig_atomic_t xfsz_count, xfsz_in_caller;
static pid_t xfsz_caller;

static void count_xfsz(int sig)
{
	(void)sig;
	xfsz_count++;
	xfsz_in_caller += (pid_t)syscall(SYS_gettid) == xfsz_caller;
}

static void catch_xfsz(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = count_xfsz;
	sigemptyset(&sa.sa_mask);
	ck_assert_int_eq(sigaction(SIGXFSZ, &sa, NULL), 0);
	xfsz_count = xfsz_in_caller = 0;
	xfsz_caller = (pid_t)syscall(SYS_gettid);
}

/* Past RLIMIT_FSIZE the kernel says EFBIG, after SIGXFSZ to the calling
 * thread (which kills by default), and so does the engine.  Nothing may
 * change. */
START_TEST(fsize_limit_fails_before_any_write)
{
	const char *p = fresh("fsize");
	unsigned char *want;
	struct rlimit old, lim;
	int fd, err;

	write_pattern_at(p, 0, 100, 10);
	fd = open(p, O_RDWR);
	ck_assert_int_eq(getrlimit(RLIMIT_FSIZE, &old), 0);
	lim = old;
	lim.rlim_cur = MiB;
	catch_xfsz();
	ck_assert_int_eq(setrlimit(RLIMIT_FSIZE, &lim), 0);
	hook_reset();
	err = job(fd, 0, 2 * MiB, NULL, NULL);
	ck_assert_int_eq(setrlimit(RLIMIT_FSIZE, &old), 0);
	signal(SIGXFSZ, SIG_DFL);
	ck_assert_int_eq(err, EFBIG);
	ck_assert_int_eq(hk.writes, 0);
	ck_assert_int_eq(xfsz_count, 1);
	ck_assert_int_eq(xfsz_in_caller, 1);
	close(fd);
	want = pattern(100, 10);
	expect_bytes(p, want, 100);
	free(want);
}
END_TEST

/* A daemon that closed stderr has its data file as descriptor 2: neither
 * the debug line nor a complaint about the settings may land in it. */
START_TEST(diagnostics_never_into_the_file)
{
	const char *p = fresh("stderr");
	unsigned char *want = calloc(1, 8192), *old = pattern(100, 11);
	int saved = dup(2), fd, err;

	write_pattern_at(p, 0, 100, 11);
	close(2);
	fd = open(p, O_RDWR);
	setenv("LIBFALLOCATE_DEBUG", "1", 1);
	setenv("LIBFALLOCATE_EMULATION", "sometimes", 1);
	lfa_settings_reload();
	hook_reset();
	err = job(fd, 0, 8192, NULL, NULL);
	dup2(saved, 2);
	close(saved);
	unsetenv("LIBFALLOCATE_DEBUG");
	unsetenv("LIBFALLOCATE_EMULATION");
	lfa_settings_reload();
	ck_assert_int_eq(fd, 2);
	ck_assert_int_eq(err, 0);
	memcpy(want, old, 100);
	expect_bytes(p, want, 8192);
	free(want), free(old);
}
END_TEST

/* memfd seals: the kernel allocates under F_SEAL_WRITE (allocation changes
 * no byte) and grows the size; F_SEAL_GROW refuses growth with EPERM. */
static int sealed_memfd(unsigned seals)
{
	int fd = memfd_create("lfa-seal", MFD_ALLOW_SEALING);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(ftruncate(fd, 8192), 0);
	ck_assert_int_eq(pwrite(fd, "data", 4, 0), 4);
	ck_assert_int_eq(fcntl(fd, F_ADD_SEALS, seals), 0);
	return fd;
}

static void seal_case(unsigned seals, int64_t len)
{
	int kfd = sealed_memfd(seals), efd = sealed_memfd(seals);
	int kernel = lfa_sys_fallocate(kfd, 0, 0, len);
	char buf[4];

	hook_reset();
	ck_assert_int_eq(job(efd, 0, len, NULL, NULL), kernel);
	ck_assert_int_eq(file_size(efd), file_size(kfd));
	ck_assert_int_eq(pread(efd, buf, 4, 0), 4);
	ck_assert(!memcmp(buf, "data", 4));
	close(kfd);
	close(efd);
}

START_TEST(memfd_seals_as_the_kernel)
{
	seal_case(F_SEAL_WRITE, 4096);
	seal_case(F_SEAL_WRITE, 16384);
	seal_case(F_SEAL_GROW, 4096);
	seal_case(F_SEAL_GROW, 16384);
	seal_case(F_SEAL_WRITE | F_SEAL_GROW | F_SEAL_SHRINK, 16384);
	seal_case(F_SEAL_WRITE | F_SEAL_SHRINK, 16384);
#ifdef F_SEAL_FUTURE_WRITE
	seal_case(F_SEAL_FUTURE_WRITE, 16384);
#endif
}
END_TEST

/* Under F_SEAL_WRITE and F_SEAL_SHRINK the size grows by ftruncate, which
 * the seal keeps from cutting back a producer that grew the file further
 * right before it: the kernel's EPERM then means "already long enough". */
static int sealed_fd = -1;

static int producer_grows_to_32k(void)
{
	ck_assert_int_eq(REAL(ftruncate64)(sealed_fd, 32 * KiB), 0);
	return 0;
}

static int ftruncate_fails(void)
{
	return EIO;
}

START_TEST(sealed_memfd_grown_before_the_ftruncate)
{
	char buf[4];
	int fd = sealed_memfd(F_SEAL_WRITE | F_SEAL_SHRINK);

	sealed_fd = fd;
	script("ftruncate64", 1, 0, producer_grows_to_32k);
	ck_assert_int_eq(job(fd, 0, 16 * KiB, NULL, NULL), 0);
	ck_assert_int_eq(hk.calls, 1);
	ck_assert_int_eq(hk.writes, 0);
	ck_assert_int_eq(file_size(fd), 32 * KiB);
	ck_assert_int_eq(pread(fd, buf, 4, 0), 4);
	ck_assert(!memcmp(buf, "data", 4));
	close(fd);

	/* The ftruncate's own failure is the answer, and nothing changed. */
	fd = sealed_memfd(F_SEAL_WRITE | F_SEAL_SHRINK);
	script("ftruncate64", 1, 0, ftruncate_fails);
	ck_assert_int_eq(job(fd, 0, 16 * KiB, NULL, NULL), EIO);
	ck_assert_int_eq(hk.calls, 1);
	ck_assert_int_eq(file_size(fd), 8 * KiB);
	ck_assert_int_eq(pread(fd, buf, 4, 0), 4);
	ck_assert(!memcmp(buf, "data", 4));
	close(fd);
	sealed_fd = -1;
}
END_TEST

/* An active swapfile: the kernel says ETXTBSY and changes nothing.  Needs
 * root and a filesystem that takes swapfiles. */
START_TEST(active_swapfile)
{
	const char *p = fresh("swap");
	char cmd[4300];
	int64_t size;
	int fd, grow, inside;

	write_pattern_at(p, 0, 16 * MiB, 12);
	chmod(p, 0600);
	snprintf(cmd, sizeof cmd, "mkswap -q '%s' >/dev/null 2>&1", p);
	if (getuid() != 0 || system(cmd) != 0 || swapon(p, 0) != 0) {
		fprintf(stderr, "skipping swapfile: needs root, mkswap and swapon (%s)\n",
			strerror(errno));
		return;
	}
	fd = open(p, O_RDWR);
	hook_reset();
	grow = job(fd, 0, 20000000, NULL, NULL);
	size = file_size(fd);
	inside = job(fd, 0, 4096, NULL, NULL);
	close(fd);
	/* Off before any assertion: a swapfile left on would outlive the test. */
	ck_assert_int_eq(swapoff(p), 0);
	ck_assert_int_eq(grow, ETXTBSY);
	ck_assert_int_eq(size, 16 * MiB);
	ck_assert_int_eq(inside, ETXTBSY);
}
END_TEST


/* --- nothing outside the range can tell the call happened (issue 18) --- */

static int low_descriptors_seen;

static int note_low_descriptors(void)
{
	int i;

	for (i = 0; i < 3; i++)
		if (fcntl(i, F_GETFD) >= 0)
			low_descriptors_seen |= 1 << i;
	return 0;
}

/* In a program that closed stdin, stdout and stderr, the job's dup and its
 * reopened descriptor stay above 2: whatever other code writes to fd 1 or 2
 * meanwhile (a callback's printf, a logging thread) cannot reach the file. */
static void low_descriptors_case(int flags)
{
	const char *p = fresh("low-fds");
	int saved[3], fd, i, err;

	write_pattern_at(p, 0, 100, 13);
	fd = open(p, flags);
	ck_assert_int_ge(fd, 3);
	for (i = 0; i < 3; i++)
		saved[i] = fcntl(i, F_DUPFD_CLOEXEC, 10);
	low_descriptors_seen = 0;
	script("pwritev64", 1, 0, note_low_descriptors);
	for (i = 0; i < 3; i++)
		close(i);
	err = job(fd, 0, 8192, NULL, NULL);
	for (i = 0; i < 3; i++) {
		dup2(saved[i], i);
		close(saved[i]);
	}
	close(fd);
	ck_assert_int_eq(err, 0);
	ck_assert_msg(low_descriptors_seen == 0, "the job used descriptors %#x of 0-2 (flags %#x)",
		      low_descriptors_seen, flags);
}

START_TEST(job_descriptors_never_below_3)
{
	low_descriptors_case(O_RDWR);
	low_descriptors_case(O_WRONLY | O_APPEND); /* reopened through /proc */
}
END_TEST

static pid_t forked_child = -1;
static int child_report[2], child_go[2];

/* The child: gives up its copy of the caller's descriptor, as a worker
 * would, then counts those left on the job's file. */
static void *fork_worker(void *arg)
{
	struct stat64 want, st;
	pid_t pid;
	int i, n = 0;
	char c;

	(void)arg;
	ck_assert_int_eq(stat64(job_path, &want), 0);
	pid = fork();
	if (pid == 0) {
		close(job_fd);
		for (i = 0; i < 1024; i++)
			if (fstat64(i, &st) == 0 && st.st_dev == want.st_dev &&
			    st.st_ino == want.st_ino)
				n++;
		if (write(child_report[1], &n, sizeof n) != sizeof n)
			_exit(2);
		if (read(child_go[0], &c, 1) < 0)
			_exit(3);
		_exit(0);
	}
	forked_child = pid;
	return NULL;
}

static int fork_from_another_thread(void)
{
	pthread_t t;

	ck_assert_int_eq(pthread_create(&t, NULL, fork_worker, NULL), 0);
	ck_assert_int_eq(pthread_join(t, NULL), 0);
	return 0;
}

/* A thread forks while the job is between two syscalls: the child holds no
 * descriptor of the job's, so the caller's flock ends with its close. */
static void fork_mid_call_case(int flags)
{
	const char *p = fresh("fork");
	int fd, fd2, n = -1, status, err;

	write_pattern_at(p, 0, 100, 14);
	ck_assert_int_eq(pipe(child_report), 0);
	ck_assert_int_eq(pipe(child_go), 0);
	fd = open(p, flags | O_CLOEXEC);
	ck_assert_int_eq(flock(fd, LOCK_EX), 0);
	forked_child = -1;
	script("pwritev64", 1, 0, fork_from_another_thread);
	err = job(fd, 0, 8192, NULL, NULL);
	ck_assert_int_gt(forked_child, 0);
	ck_assert_int_eq(read(child_report[0], &n, sizeof n), sizeof n);
	close(fd);
	fd2 = open(p, O_RDONLY);
	ck_assert_int_ge(fd2, 0);
	status = flock(fd2, LOCK_EX | LOCK_NB);
	close(fd2);
	ck_assert_int_eq(write(child_go[1], "x", 1), 1);
	ck_assert_int_eq(waitpid(forked_child, NULL, 0), forked_child);
	close(child_report[0]), close(child_report[1]);
	close(child_go[0]), close(child_go[1]);
	ck_assert_int_eq(err, 0);
	ck_assert_msg(n == 0, "a child forked mid-call held %d descriptors of the file (flags %#x)",
		      n, flags);
	ck_assert_msg(status == 0, "the caller's flock outlived its close (flags %#x)", flags);
}

START_TEST(child_forked_mid_call_holds_nothing)
{
	fork_mid_call_case(O_RDWR);
	fork_mid_call_case(O_WRONLY | O_APPEND); /* a dup and a reopened descriptor */
}
END_TEST

/* A watcher sees only modifications of a file that an emulated call
 * extends: no reopen on the common path, so no IN_OPEN, and above all no
 * IN_CLOSE_WRITE, which sync daemons take for "the file is complete". */
static void only_modify_events(int flags)
{
	const char *p = fresh("inotify");
	uint32_t seen;
	int fd, in, err;

	if (!local_here("an extending call's inotify events"))
		return;
	write_pattern_at(p, 0, 100, 15);
	fd = open(p, flags);
	ck_assert_int_ge(fd, 0);
	in = watch_every_event(p);
	hook_reset();
	err = job(fd, 100, 4096, NULL, NULL);
	seen = events_seen(in);
	close(fd);
	ck_assert_int_eq(err, 0);
	ck_assert_msg((seen & ~(uint32_t)IN_MODIFY) == 0 && (seen & IN_MODIFY),
		      "inotify events %#x for an extending call (flags %#x)", seen, flags);
}

START_TEST(extending_call_shows_only_modify)
{
	only_modify_events(O_RDWR);
	only_modify_events(O_WRONLY);
}
END_TEST

/* O_DIRECT where no descriptor of our own can write the unaligned tail (the
 * caller's lease): EINVAL, glibc's answer, before anything is written. */
START_TEST(direct_without_a_reopen_fails_before_writing)
{
	const char *p = fresh("direct-lease");
	int fd, err;

	fd = open(p, O_RDWR | O_CREAT | O_DIRECT, 0600);
	if (fd < 0) {
		fprintf(stderr, "skipping: O_DIRECT: %s\n", strerror(errno));
		return;
	}
	if (!take_write_lease(fd)) {
		close(fd);
		return;
	}
	hook_reset();
	err = job(fd, 0, 5000001, NULL, NULL);
	ck_assert_int_eq(fcntl(fd, F_SETLEASE, F_UNLCK), 0);
	ck_assert_int_eq(err, EINVAL);
	ck_assert_int_eq(hk.writes, 0);
	ck_assert_int_eq(file_size(fd), 0);
	close(fd);
}
END_TEST

/* Past the filesystem's maximum with no descriptor of our own (a lease; no
 * descriptor left): EFBIG, the kernel's answer, before anything is written,
 * where the kernel's own fallocate says EFBIG for the range. */
static void efbig_without_reopen(int64_t offset, int64_t len, int how)
{
	const char *p = fresh("efbig-noreopen");
	struct rlimit old, lim;
	int fd = open(p, O_RDWR | O_CREAT, 0600), err;

	ck_assert_int_ge(fd, 0);
	if (how == 0 && !take_write_lease(fd)) {
		close(fd);
		return;
	}
	ck_assert_int_eq(getrlimit(RLIMIT_NOFILE, &old), 0);
	if (how == 1) {
		lim = old;
		lim.rlim_cur = (rlim_t)fd + 1;
		ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &lim), 0);
	}
	hook_reset();
	err = job(fd, offset, len, NULL, NULL);
	setrlimit(RLIMIT_NOFILE, &old);
	if (how == 0)
		fcntl(fd, F_SETLEASE, F_UNLCK);
	ck_assert_int_eq(err, EFBIG);
	ck_assert_int_eq(hk.writes, 0);
	ck_assert_int_eq(file_size(fd), 0);
	close(fd);
}

START_TEST(efbig_before_writing_without_a_reopen)
{
	const char *p = fresh("efbig-kernel");
	int64_t offset = INT64_MAX / 2, len = 8 * MiB;
	int fd, kernel;

	if (!local_here("efbig_before_writing_without_a_reopen"))
		return;
	fd = open(p, O_RDWR | O_CREAT, 0600);

	/* A range that crosses the maximum (ext4 16 TiB, xfs and tmpfs 8 EiB),
	 * found by ftruncate, which allocates nothing; the kernel's own
	 * fallocate must refuse it too. */
	for (offset = 16 * MiB * MiB - 4 * MiB; offset < INT64_MAX / 4; offset = offset * 2 + 4 * MiB)
		if (ftruncate64(fd, offset + len) != 0 && errno == EFBIG)
			break;
	if (offset >= INT64_MAX / 4)
		offset = 0;
	ck_assert_int_eq(ftruncate64(fd, 0), 0);
	kernel = offset > 0 ? lfa_sys_fallocate(fd, 0, offset, len) : 0;
	close(fd);
	unlink(p);
	if (kernel != EFBIG) {
		fprintf(stderr, "skipping: no range crossing the maximum found (%s)\n",
			strerror(kernel));
		return;
	}
	efbig_without_reopen(offset, len, 0);
	efbig_without_reopen(offset, len, 1);
	/* Not ext2/3/4 as far as the engine can tell (xfs): no block-mapped
	 * maximum to compute, copy_file_range of nothing must say it. */
	case_fs_type = 0x58465342;
	efbig_without_reopen(offset, len, 0);
	efbig_without_reopen(offset, len, 1);
	case_fs_type = 0;
}
END_TEST

/* --- issue 18: appends survive, loops end, the range is whole ------------ */

static int append_record(void)
{
	unsigned char rec[64];

	memset(rec, 'R', sizeof rec);
	ck_assert_int_eq(write(other_fd, rec, sizeof rec), sizeof rec);
	return 0;
}

/* A record appended after the engine looked at the size and before its
 * write stays whole: the zeros land after it (RWF_APPEND), not over it.
 * They end 64 bytes past the range: what was appended in that window. */
START_TEST(append_between_look_and_write_survives)
{
	const char *p = fresh("append-window");
	unsigned char want[1164], *old = pattern(1000, 13);
	int fd;

	if (real_refuses(0x10)) {
		fprintf(stderr, "skipping: pwritev2 refuses RWF_APPEND here (qemu-user?)\n");
		free(old);
		return;
	}
	write_pattern_at(p, 0, 1000, 13);
	fd = open(p, O_RDWR);
	other_fd = open(p, O_WRONLY | O_APPEND);
	script("pwritev64", 1, 0, append_record);
	ck_assert_int_eq(job(fd, 0, 1100, NULL, NULL), 0);
	memset(want, 0, sizeof want);
	memcpy(want, old, 1000);
	memset(want + 1000, 'R', 64);
	expect_bytes(p, want, sizeof want);
	close(fd);
	free(old);
}
END_TEST

/* The same on an overlayfs whose kernel drops RWF_APPEND on the way to the
 * file below (Debian 12's 6.1: the zeros landed at the size looked at, over
 * the record): the zeros go through a descriptor opened with O_APPEND,
 * which the file below appends on every kernel (append_after_look_case,
 * below, with layer_drops_append). */
static void append_after_look_case(const char *name, uint32_t fs_type, int *fault, int flags);

START_TEST(overlay_dropping_rwf_append_keeps_appends)
{
	if (real_refuses(0x10)) {
		fprintf(stderr, "skipping: pwritev2 refuses RWF_APPEND here (qemu-user?)\n");
		return;
	}
	append_after_look_case("overlay-append", 0x794C7630, &layer_drops_append, O_RDWR);
	append_after_look_case("overlay-append", 0x794C7630, &layer_drops_append, O_WRONLY);
	append_after_look_case("overlay-append", 0x794C7630, &layer_drops_append,
			       O_RDWR | O_APPEND);
}
END_TEST

/* --- issue 24: appends of other machines survive ----------------------- */

static int count_descriptors(void);

/* Another client appends a record after this client's look at the size
 * and before its zeros: on a filesystem shared with other machines (FUSE
 * here, by f_type), the zeros go through a descriptor opened with
 * O_APPEND, which the server appends, and the record stays whole.
 * RWF_APPEND on the caller's descriptor would land them at this client's
 * stale size, over the record (the shim plays that client). */
static void append_after_look_case(const char *name, uint32_t fs_type, int *fault, int flags)
{
	const char *p = fresh(name);
	unsigned char want[1164], *old = pattern(1000, 13);
	int fd;

	write_pattern_at(p, 0, 1000, 13);
	fd = open(p, flags);
	ck_assert_int_ge(fd, 0);
	other_fd = open(p, O_WRONLY | O_APPEND);
	script("pwritev64", 1, 0, append_record);
	*fault = 1;
	case_fs_type = fs_type;
	ck_assert_int_eq(job(fd, 0, 1100, NULL, NULL), 0);
	case_fs_type = 0;
	memset(want, 0, sizeof want);
	memcpy(want, old, 1000);
	memset(want + 1000, 'R', 64);
	expect_bytes(p, want, sizeof want);
	close(fd);
	close(other_fd);
	other_fd = -1;
	free(old);
}

static void other_client_case(int flags)
{
	append_after_look_case("other-client", 0x65735546 /* FUSE */, &stale_client_size, flags);
}

START_TEST(other_clients_append_survives)
{
	other_client_case(O_RDWR);
	other_client_case(O_WRONLY);
	other_client_case(O_RDWR | O_APPEND); /* the caller's own descriptor appends */
	other_client_case(O_WRONLY | O_APPEND);
}
END_TEST

/* The descriptor opened for those appends is the job's like any other:
 * above 2, closed before the call returns, in no child forked mid-call. */
START_TEST(shared_fs_reopen_stays_invisible)
{
	int before, after;

	case_fs_type = 0x65735546; /* FUSE */
	low_descriptors_case(O_RDWR);
	fork_mid_call_case(O_RDWR);
	fork_mid_call_case(O_WRONLY | O_APPEND);
	before = count_descriptors();
	low_descriptors_case(O_WRONLY);
	after = count_descriptors();
	case_fs_type = 0;
	ck_assert_int_eq(after, before);
}
END_TEST

/* On a local filesystem nothing is reopened to grow a file (no IN_OPEN, no
 * IN_CLOSE_WRITE); on a shared one the reopen is seen, once: the price
 * README states. */
START_TEST(shared_fs_reopens_once_local_never)
{
	const char *p = fresh("inotify-shared");
	uint32_t seen;
	int fd, in, err;

	only_modify_events(O_RDWR);
	write_pattern_at(p, 0, 100, 15);
	fd = open(p, O_RDWR);
	ck_assert_int_ge(fd, 0);
	in = watch_every_event(p);
	hook_reset();
	case_fs_type = 0x65735546; /* FUSE */
	err = job(fd, 100, 12 * MiB, NULL, NULL);
	case_fs_type = 0;
	seen = events_seen(in);
	close(fd);
	ck_assert_int_eq(err, 0);
	ck_assert_msg((seen & IN_OPEN) && (seen & IN_CLOSE_WRITE),
		      "inotify events %#x for a call growing a file on a shared filesystem", seen);
}
END_TEST

/* Where nothing can be reopened (the caller holds a lease), the zeros are
 * appended as on a local filesystem (RWF_APPEND): the call still works. */
START_TEST(shared_fs_without_a_reopen_still_appends)
{
	const char *p = fresh("shared-lease");
	int fd, err;

	fd = open(p, O_RDWR | O_CREAT, 0600);
	ck_assert_int_ge(fd, 0);
	if (!take_write_lease(fd)) {
		close(fd);
		return;
	}
	hook_reset();
	case_fs_type = 0x65735546; /* FUSE */
	err = job(fd, 0, 100000, NULL, NULL);
	case_fs_type = 0;
	ck_assert_int_eq(fcntl(fd, F_SETLEASE, F_UNLCK), 0);
	ck_assert_int_eq(err, 0);
	ck_assert_int_eq(sigio_count, 0);
	close(fd);
	expect_bytes(p, NULL, 100000);
}
END_TEST

/* A range that starts past the end of file leaves the gap before it a
 * hole, as the kernel does: only the range is written. */
START_TEST(gap_before_range_stays_a_hole)
{
	const char *p = fresh("gap");
	int fd;

	write_pattern_at(p, 0, 1000, 14);
	fd = open(p, O_RDWR);
	hook_reset();
	ck_assert_int_eq(job(fd, MiB, 6 * MiB, NULL, NULL), 0);
	writes_inside(MiB, 7 * MiB);
	ck_assert_int_eq(file_size(fd), 7 * MiB);
	close(fd);
	ck_assert(fully_allocated(p, MiB, 7 * MiB));
	ck_assert(first_mismatch(p, 1000, 7 * MiB, 0, 0, 0) < 0);
	fd = open(p, O_RDONLY);
	ck_assert_int_lt(lseek(fd, 1000, SEEK_HOLE), MiB);
	close(fd);
}
END_TEST

static int cut_to_1m(void)
{
	ck_assert_int_eq(ftruncate(other_fd, MiB), 0);
	return 0;
}

/* Cut to 1 MiB by another writer at the third write of [0, 32 MiB) over an
 * 8 MiB file: success means the range is whole, no hole where the cut
 * was.  Appends go back to the new end by themselves; positional writes
 * (a kernel without RWF_APPEND) leave a hole that the check before
 * success finds and fills. */
static void cut_shorter_mid_call(int without_append)
{
	const char *p = fresh("cut");
	unsigned char *want = calloc(1, 32 * MiB), *old = pattern(MiB, 15);
	int fd;

	write_pattern_at(p, 0, 8 * MiB, 15);
	fd = open(p, O_RDWR);
	other_fd = open(p, O_RDWR);
	script("pwritev64", 3, 0, cut_to_1m);
	kernel_without_rwf_append = without_append;
	ck_assert_int_eq(job(fd, 0, 32 * MiB, NULL, NULL), 0);
	memcpy(want, old, MiB);
	expect_bytes(p, want, 32 * MiB);
	ck_assert(fully_allocated(p, 0, 32 * MiB));
	close(fd);
	free(want), free(old);
}

START_TEST(cut_shorter_mid_call_by_appends)
{
	cut_shorter_mid_call(0);
}
END_TEST

START_TEST(cut_shorter_mid_call_positional)
{
	cut_shorter_mid_call(1);
}
END_TEST

static int cut_to_zero_every_time(void)
{
	ck_assert_int_eq(ftruncate(other_fd, 0), 0);
	hk.nth = hk.calls + 1; /* and after the next write again */
	return 0;
}

/* Cut to nothing after every write (a log rotator's copytruncate in a
 * loop): the call ends instead of going back for ever, and answers 0, as
 * the kernel's fallocate would with the cuts ordered after it; never
 * EAGAIN, which no fallocate answers.  Nothing is written past the range. */
static void cut_again_and_again(int without_append, int before_each_write)
{
	const char *p = fresh("cut-always");
	int fd;

	write_pattern_at(p, 0, 8 * MiB, 16);
	fd = open(p, O_RDWR);
	other_fd = open(p, O_RDWR);
	/* Before each write, the cut falls between the engine's look and its
	 * positional write, which then leaves a hole below it and the size
	 * where the write ended: no setback is seen, only the hole (EIO before
	 * that was read as another writer's: qemu-user, which refuses
	 * RWF_APPEND, met it). */
	script("pwritev64", 1, !before_each_write, cut_to_zero_every_time);
	kernel_without_rwf_append = without_append;
	ck_assert_int_eq(job(fd, 0, 32 * MiB, NULL, NULL), 0);
	/* Bounded: four passes at most, each ended by the cuts. */
	ck_assert_msg(hk.writes <= 40, "%d writes", hk.writes);
	ck_assert_int_le(file_size(fd), 32 * MiB);
	close(fd);
	close(other_fd);
	other_fd = -1;
}

START_TEST(cut_again_and_again_gives_way)
{
	cut_again_and_again(0, 0);
	cut_again_and_again(1, 0);
	cut_again_and_again(0, 1);
	cut_again_and_again(1, 1);
}
END_TEST

static int set_append_on_callers_fd(void)
{
	int fl = fcntl(job_fd, F_GETFL);

	ck_assert_int_eq(fcntl(job_fd, F_SETFL, fl | O_APPEND), 0);
	return 0;
}

/* Another thread sets O_APPEND on the caller's descriptor mid-call: no
 * zeros past the range, no success with holes in it. */
START_TEST(setfl_append_mid_call)
{
	const char *p = fresh("setfl");
	int fd, err;

	if (!local_here("setfl_append_mid_call (layers ignore RWF_NOAPPEND)"))
		return;
	fd = open(p, O_RDWR | O_CREAT, 0600);
	if (real_refuses(0x20)) {
		fprintf(stderr, "skipping: pwritev2 refuses RWF_NOAPPEND here (Linux < 6.9, qemu-user)\n");
		close(fd);
		return;
	}
	ck_assert_int_eq(ftruncate(fd, 16 * MiB), 0);
	script("pwritev64", 1, 0, set_append_on_callers_fd);
	err = job(fd, 0, 8 * MiB, NULL, NULL);
	ck_assert_int_eq(file_size(fd), 16 * MiB);
	ck_assert(err != 0 || fully_allocated(p, 0, 8 * MiB));
	ck_assert_int_eq(err, 0);
	close(fd);
	expect_bytes(p, NULL, 16 * MiB);
}
END_TEST

/* The same on a kernel without RWF_NOAPPEND: the writes append, as
 * glibc's do, but the call never claims success with a hole in the range
 * (the check before success sees it: after three redos, glibc's answer
 * for an O_APPEND descriptor, EBADF; no cut explains the hole). */
START_TEST(setfl_append_mid_call_without_noappend)
{
	const char *p = fresh("setfl-old-kernel");
	int fd, err;

	if (!local_here("setfl_append_mid_call_without_noappend (SEEK_HOLE not believed)"))
		return;
	fd = open(p, O_RDWR | O_CREAT, 0600);
	ck_assert_int_eq(ftruncate(fd, 16 * MiB), 0);
	script("pwritev64", 1, 0, set_append_on_callers_fd);
	kernel_without_rwf_noappend = 1;
	err = job(fd, 0, 8 * MiB, NULL, NULL);
	close(fd);
	ck_assert_msg(err != 0 || fully_allocated(p, 0, 8 * MiB),
		      "success with a hole in the range");
	ck_assert_int_eq(err, EBADF);
}
END_TEST

/* A write answered EINTR every time (a FUSE server): EINTR after a few
 * tries, glibc's answer, with nothing written. */
START_TEST(endless_eintr_ends)
{
	const char *p = fresh("eintr");
	unsigned char *old = pattern(1000, 17);
	int fd, err;

	write_pattern_at(p, 0, 1000, 17);
	fd = open(p, O_RDWR);
	hook_reset();
	writes_interrupted = 1;
	err = job(fd, 0, 3 * MiB, NULL, NULL);
	ck_assert_msg(write_attempts <= 10, "%d writes tried", write_attempts);
	ck_assert_int_eq(err, EINTR);
	close(fd);
	expect_bytes(p, old, 1000);
	free(old);
}
END_TEST

/* Reads that end before the size fstat gives (a FUSE file whose server
 * returns fewer bytes than its size): EINVAL after a few tries, nothing
 * written, instead of pread and fstat for ever. */
START_TEST(reads_ending_before_the_size_end)
{
	const char *p = fresh("short-reads");
	unsigned char *old = pattern(8192, 18);
	int fd, err;

	write_pattern_at(p, 0, 8192, 18);
	fd = open(p, O_RDWR);
	hook_reset();
	fake_fs_type = 0x65735546; /* FUSE: holes found by reading back */
	reads_end_early = 1;
	err = job(fd, 0, 16384, NULL, NULL);
	ck_assert_msg(read_attempts <= 10, "%d reads tried", read_attempts);
	ck_assert_int_eq(err, EINVAL);
	ck_assert_int_eq(hk.writes, 0);
	close(fd);
	expect_bytes(p, old, 8192);
	free(old);
}
END_TEST

/* An NFS server that no longer has the file (renamed over there): a
 * reopen answers ESTALE, and no other access mode or table is tried for
 * it (each descriptor the job wants is asked for once); nothing is
 * written. */
START_TEST(stale_handle_not_reopened_again)
{
	const char *p = fresh("stale");
	unsigned char *old = pattern(8192, 20);
	int fd;

	write_pattern_at(p, 0, 8192, 20);
	fd = open(p, O_WRONLY);
	ck_assert_int_ge(fd, 0);
	hook_reset();
	fake_fs_type = FS_NFS;
	reopen_estale = 1;
	(void)job(fd, 0, 16384, NULL, NULL);
	reopen_estale = 0;
	ck_assert_int_ge(reopens_tried, 1);
	ck_assert_int_le(reopens_tried, 3); /* its own, the server-read and the append descriptors */
	ck_assert_int_eq(hk.writes, 0);
	close(fd);
	expect_bytes(p, old, 8192);
	free(old);
}
END_TEST

/* The same on a filesystem other machines write, while another client's
 * appends move the size at every read (ceph-fuse publishes a size before
 * the data): not a lie but writes in flight.  The call gives way (0,
 * gave_way) within a few tries, never EINVAL, and writes nothing below
 * the size it saw: the other client's bytes and the old ones stay. */
START_TEST(reads_ending_before_a_moving_size_give_way)
{
	const char *p = fresh("short-reads-moving");
	unsigned char *old = pattern(8192, 19);
	struct lfa_job_report rep;
	int fd, err;

	write_pattern_at(p, 0, 8192, 19);
	fd = open(p, O_RDWR);
	hook_reset();
	job_path = p;
	fake_fs_type = 0x65735546; /* FUSE (GlusterFS, by default here) */
	reads_end_early = 2;
	err = job(fd, 0, 16384, &rep, NULL);
	ck_assert_msg(read_attempts <= 10, "%d reads tried", read_attempts);
	ck_assert_int_eq(err, 0);
	ck_assert_int_eq(rep.gave_way, 1);
	ck_assert_int_eq(hk.writes, 0);
	close(fd);
	{
		/* the old bytes, then the other client's 16-byte appends */
		unsigned char got[8192 + 16 * 16];
		int64_t n, i;

		fd = open(p, O_RDONLY);
		ck_assert_int_ge(fd, 0);
		n = file_size(fd);
		ck_assert(n > 8192 && n <= (int64_t)sizeof got && (n - 8192) % 16 == 0);
		ck_assert_int_eq(pread(fd, got, (size_t)n, 0), n);
		close(fd);
		ck_assert(memcmp(got, old, 8192) == 0);
		for (i = 8192; i < n; i++)
			ck_assert_int_eq(got[i], 'X');
	}
	free(old);
}
END_TEST

/* A file of a pseudo-filesystem (sysfs here, by its f_type): EOPNOTSUPP,
 * the kernel's answer, and nothing written. */
START_TEST(pseudo_filesystem_refused)
{
	static const long types[] = { 0x62656572, 0x9FA0, 0x64626720, 0x63677270, 0x74726163 };
	const char *p = fresh("pseudo");
	unsigned char *old = pattern(100, 19);
	size_t i;
	int fd;

	write_pattern_at(p, 0, 100, 19);
	fd = open(p, O_RDWR);
	for (i = 0; i < sizeof types / sizeof types[0]; i++) {
		hook_reset();
		fake_fs_type = types[i];
		ck_assert_int_eq(job(fd, 0, 8192, NULL, NULL), EOPNOTSUPP);
		ck_assert_int_eq(hk.writes, 0);
	}
	close(fd);
	expect_bytes(p, old, 100);
	free(old);
}
END_TEST

/* A real procfs file: /proc/self/comm is a regular file of size 0, and a
 * zero written there renames the thread. */
START_TEST(procfs_file_refused)
{
	char before[17] = "", after[17] = "";
	int fd = open("/proc/thread-self/comm", O_RDWR);

	if (fd < 0) {
		fprintf(stderr, "skipping procfs: /proc/thread-self/comm: %s\n", strerror(errno));
		return;
	}
	ck_assert_int_eq(prctl(PR_SET_NAME, "lfa-comm", 0, 0, 0), 0);
	ck_assert_int_eq(prctl(PR_GET_NAME, before, 0, 0, 0), 0);
	hook_reset();
	ck_assert_int_eq(job(fd, 0, 16, NULL, NULL), EOPNOTSUPP);
	ck_assert_int_eq(prctl(PR_GET_NAME, after, 0, 0, 0), 0);
	ck_assert_str_eq(after, before);
	close(fd);
}
END_TEST

/* The producer of a memfd sealed with F_SEAL_FUTURE_WRITE grows it and
 * writes through its old mapping right after the engine looked at the
 * size: no ftruncate from that stale size may cut its bytes off. */
static unsigned char *producer_map;
static int producer_fd = -1;

static int producer_grows(void)
{
	/* Not the check of a descriptor reopened through /proc (opened
	 * O_NONBLOCK): the look at the size, on the job's own descriptor. */
	if (fcntl(fstat_fd, F_GETFL) & O_NONBLOCK) {
		hk.nth = hk.calls + 1;
		return 0;
	}
	ck_assert_int_eq(ftruncate(producer_fd, MiB), 0);
	memset(producer_map + 512 * KiB, 'P', 512 * KiB);
	return 0;
}

START_TEST(sealed_memfd_grown_mid_call_keeps_its_bytes)
{
#ifdef F_SEAL_FUTURE_WRITE
	unsigned char buf[4096];
	int fd = memfd_create("lfa-producer", MFD_ALLOW_SEALING);
	int64_t off;

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(ftruncate(fd, 8192), 0);
	producer_map = mmap(NULL, MiB, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ck_assert(producer_map != MAP_FAILED);
	ck_assert_int_eq(fcntl(fd, F_ADD_SEALS, F_SEAL_FUTURE_WRITE), 0);
	producer_fd = fd;
	script("fstat64", 1, 1, producer_grows);
	ck_assert_int_eq(job(fd, 0, 16384, NULL, NULL), 0);
	ck_assert_int_eq(file_size(fd), MiB);
	for (off = 512 * KiB; off < MiB; off += sizeof buf) {
		ck_assert_int_eq(pread(fd, buf, sizeof buf, off), sizeof buf);
		ck_assert(buf[0] == 'P' && !memcmp(buf, buf + 1, sizeof buf - 1));
	}
	munmap(producer_map, MiB);
	close(fd);
#else
	fprintf(stderr, "skipping: no F_SEAL_FUTURE_WRITE in these headers\n");
#endif
}
END_TEST

/* --- holes found with FIEMAP, on the job's own descriptor -------------- */

/* FIEMAP is read where the filesystem's is believed; elsewhere (tmpfs,
 * xfs) these tests have nothing to prove. */
static int fiemap_here(const char *why)
{
	struct statfs sf;

	if (statfs(test_dir(), &sf) == 0 && ((uint32_t)sf.f_type == 0xEF53 || (uint32_t)sf.f_type == 0x9123683E))
		return 1;
	fprintf(stderr, "%s: %s is not ext2/3/4 or btrfs, skipped\n", why, test_dir());
	return 0;
}

/* Filling the holes of an existing sparse file through a plain O_RDWR
 * descriptor shows a watcher only modifications: the holes are found with
 * FIEMAP on the job's descriptor, not SEEK_DATA on a reopened one (whose
 * IN_OPEN and IN_CLOSE_WRITE sync daemons take for "the file is complete"). */
START_TEST(filling_holes_shows_only_modify)
{
	const char *p = fresh("inotify-holes");
	struct lfa_job_report rep;
	uint32_t seen;
	int fd, in, err;

	if (!fiemap_here("filling_holes_shows_only_modify"))
		return;
	sparse_with_data(p, 3 * MiB);
	fd = open(p, O_RDWR);
	ck_assert_int_ge(fd, 0);
	in = watch_every_event(p);
	hook_reset();
	err = job(fd, 0, 16384 + 3 * MiB, &rep, NULL);
	seen = events_seen(in);
	close(fd);
	ck_assert_int_eq(err, 0);
	ck_assert_msg((seen & ~(uint32_t)IN_MODIFY) == 0 && (seen & IN_MODIFY),
		      "inotify events %#x for a call filling holes", seen);
	ck_assert_int_eq(rep.hole_map, LFA_MAP_FIEMAP);
	expect_sparse_filled(p, 3 * MiB, 16384 + 3 * MiB);
	ck_assert(fully_allocated(p, 0, 16384 + 3 * MiB));
}
END_TEST

/* The look moves no file offset: the caller's, which the job's dup shares,
 * is where the caller left it. */
START_TEST(fiemap_keeps_callers_offset)
{
	const char *p = fresh("fiemap-offset");
	int fd;

	sparse_with_data(p, MiB);
	fd = open(p, O_RDWR);
	ck_assert_int_eq(lseek(fd, 1234, SEEK_SET), 1234);
	hook_reset();
	ck_assert_int_eq(job(fd, 0, 16384 + MiB, NULL, NULL), 0);
	ck_assert_int_eq(lseek(fd, 0, SEEK_CUR), 1234);
	close(fd);
	expect_sparse_filled(p, MiB, 16384 + MiB);
}
END_TEST

/* Data written and not yet synced (a delayed allocation on ext4 and btrfs:
 * no block on disk yet) is an extent to FIEMAP, never a hole. */
START_TEST(unsynced_data_is_never_zeroed)
{
	const char *p = fresh("fiemap-delalloc");
	unsigned char *want = calloc(1, (size_t)(8 * MiB)), *d = pattern(12288, 21);
	struct lfa_job_report rep;
	int fd = open(p, O_RDWR | O_CREAT, 0600);

	ck_assert_int_eq(ftruncate(fd, 8 * MiB), 0);
	put(fd, d, 12288, 5 * MiB + 100); /* no fsync */
	put(fd, d, 4096, 8 * MiB - 4096);
	hook_reset();
	ck_assert_int_eq(job(fd, 4096, 8 * MiB - 4096, &rep, NULL), 0);
	close(fd);
	memcpy(want + 5 * MiB + 100, d, 12288);
	memcpy(want + 8 * MiB - 4096, d, 4096);
	expect_bytes(p, want, 8 * MiB);
	if (fiemap_here("unsynced_data_is_never_zeroed")) {
		ck_assert_int_eq(rep.hole_map, LFA_MAP_FIEMAP);
		ck_assert_uint_eq(rep.bytes_written, 8 * MiB - 4096 - 16384 - 4096);
	}
	free(want), free(d);
}
END_TEST

/* More pieces than one look holds (32 extents), and a range starting and
 * ending inside extents: every hole gets zeros, every byte of data stays. */
START_TEST(many_extents_and_ranges_inside_them)
{
	const char *p = fresh("fiemap-many");
	int64_t size = 200 * 8192, i;
	unsigned char *want = calloc(1, (size_t)size), *d = pattern(4096, 22);
	int fd = open(p, O_RDWR | O_CREAT, 0600);

	ck_assert_int_eq(ftruncate(fd, size), 0);
	for (i = 0; i < size; i += 8192) {
		put(fd, d, 4096, i);
		memcpy(want + i, d, 4096);
	}
	ck_assert_int_eq(fsync(fd), 0); /* written extents, apart */
	hook_reset();
	ck_assert_int_eq(job(fd, 1000, size - 3000, NULL, NULL), 0);
	close(fd);
	expect_bytes(p, want, size);
	ck_assert(fully_allocated(p, 4096, size - 8192));
	free(want), free(d);
}
END_TEST

/* Another writer fills a hole right after the look that found the first
 * hole: the later piece it lands in is looked at again before its write. */
START_TEST(recheck_after_the_fiemap_look)
{
	const char *p = fresh("fiemap-recheck");
	unsigned char *want, *old;
	int fd;

	/* Elsewhere no FIEMAP is asked: the script never acts. */
	if (!fiemap_here("recheck_after_the_fiemap_look"))
		return;
	want = calloc(1, (size_t)(16 * MiB));
	old = pattern(4096, 5);
	write_pattern_at(p, 0, 4096, 5);
	fd = open(p, O_RDWR);
	ck_assert_int_eq(ftruncate(fd, 16 * MiB), 0);
	other_fd = open(p, O_WRONLY);
	marker_at = 9 * MiB;
	script("ioctl", 1, 1, mark_later_piece);
	ck_assert_int_eq(job(fd, 0, 16 * MiB, NULL, NULL), 0);
	close(fd);
	memcpy(want, old, 4096);
	memcpy(want + marker_at, "marker", 6);
	expect_bytes(p, want, 16 * MiB);
	free(want), free(old);
}
END_TEST

/* Without FIEMAP (tmpfs says EOPNOTSUPP) the engine falls back to
 * SEEK_DATA; one that stays busy or interrupted is tried a few times, then
 * left the same way; one interrupted once is tried again. */
static void fiemap_fault(int err, int fails, enum lfa_hole_map want_map)
{
	const char *p = fresh("fiemap-fault");
	struct lfa_job_report rep;
	int fd;

	sparse_with_data(p, MiB);
	fd = open(p, O_RDWR);
	hook_reset();
	fiemap_errno = err, fiemap_fails = fails;
	ck_assert_int_eq(job(fd, 0, 16384 + MiB, &rep, NULL), 0);
	close(fd);
	ck_assert_int_eq(rep.hole_map, want_map);
	expect_sparse_filled(p, MiB, 16384 + MiB);
	ck_assert(fully_allocated(p, 0, 16384 + MiB));
}

START_TEST(fiemap_failures_fall_back)
{
	if (!fiemap_here("fiemap_failures_fall_back"))
		return;
	fiemap_fault(EOPNOTSUPP, -1, LFA_MAP_SEEK);
	fiemap_fault(EBUSY, -1, LFA_MAP_SEEK);
	fiemap_fault(EINTR, -1, LFA_MAP_SEEK);
	fiemap_fault(EINTR, 1, LFA_MAP_FIEMAP);
	fiemap_fault(EBUSY, 2, LFA_MAP_FIEMAP);
}
END_TEST


/* --- the quick path: a small step at the end of a file on a local disk -- */

/* Where the quick path runs (ext2/3/4, xfs, btrfs); elsewhere these tests
 * would only prove the engine's rules again. */
static int quick_here(const char *why)
{
	struct statfs sf;
	uint32_t t;

	if (statfs(test_dir(), &sf) == 0) {
		t = (uint32_t)sf.f_type;
		if (t == 0xEF53 || t == 0x58465342u || t == 0x9123683Eu)
			return 1;
	}
	fprintf(stderr, "%s: %s is not ext2/3/4, xfs or btrfs, skipped\n", why, test_dir());
	return 0;
}

/* Whether statx names mounts by a never-reused id here (Linux 6.8): only
 * then is a mount's filesystem remembered between calls. */
static int unique_mount_ids(int fd)
{
	struct statx sx;

	return REAL(statx)(fd, "", AT_EMPTY_PATH, 0x4000, &sx) == 0 && (sx.stx_mask & 0x4000);
}

/* A 4 KiB step at the end of file: a look, RLIMIT_FSIZE, the append and
 * the look after it, as glibc's fcntl, fstat, fstatfs and write; no dup in
 * a process that never started a thread, and fstatfs once per mount. */
START_TEST(quick_step_makes_glibcs_syscalls)
{
	const char *p = fresh("quick-count");
	struct lfa_job_report rep;
	unsigned char *old = pattern(1000, 21), want[1000 + 3 * 4096];
	int fd, remembered, dup;

	if (!quick_here("quick_step_makes_glibcs_syscalls") || real_refuses(0x10)) {
		free(old);
		return;
	}
	/* Two more for the dup where a thread ever ran (an earlier test's,
	 * when the tests share one process). */
	dup = process_single_threaded() ? 0 : 2;
	write_pattern_at(p, 0, 1000, 21);
	fd = open(p, O_RDWR);
	remembered = unique_mount_ids(fd);
	hook_reset();
	ck_assert_int_eq(job(fd, 1000, 4096, &rep, NULL), 0);
	ck_assert_int_le(fstatfs_calls, 1); /* 0: an earlier test's call remembered it */
	ck_assert_int_eq(rep.syscalls, 4 + fstatfs_calls + dup);
	hook_reset();
	ck_assert_int_eq(job(fd, 5096, 4096, &rep, NULL), 0);
	ck_assert_int_eq(rep.syscalls, (remembered ? 4 : 5) + dup);
	ck_assert_int_eq(fstatfs_calls, remembered ? 0 : 1);
	ck_assert_int_eq(hk.writes, 1);
	ck_assert_int_eq((int)rep.bytes_written, 4096);
	ck_assert_int_eq(rep.hole_map, LFA_MAP_NONE);
	writes_inside(5096, 9192);
	/* With a thread started, the job works on a dup: two more. */
	become_multithreaded();
	hook_reset();
	ck_assert_int_eq(job(fd, 9192, 4096, &rep, NULL), 0);
	ck_assert_int_eq(rep.syscalls, remembered ? 6 : 7);
	close(fd);
	memset(want, 0, sizeof want);
	memcpy(want, old, 1000);
	expect_bytes(p, want, sizeof want);
	ck_assert(fully_allocated(p, 0, sizeof want));
	free(old);
}
END_TEST

/* Before Linux 6.8 a mount id is taken again by the next mount, a device
 * number too (loop, device-mapper, USB), and the attributes a filesystem
 * supports do not tell f2fs from ext4 or hfsplus from xfs: nothing is
 * remembered there, and each quick step asks fstatfs, one syscall more
 * than glibc's. */
START_TEST(nothing_remembered_without_unique_mount_ids)
{
	const char *p = fresh("quick-reusable");
	struct lfa_job_report rep;
	int fd, dup, i;

	if (!quick_here("nothing_remembered_without_unique_mount_ids") || real_refuses(0x10))
		return;
	dup = process_single_threaded() ? 0 : 2;
	write_pattern_at(p, 0, 1000, 27);
	fd = open(p, O_RDWR);
	for (i = 0; i < 3; i++) {
		hook_reset();
		reusable_mount_ids = 1;
		ck_assert_int_eq(job(fd, 1000 + i * 4096, 4096, &rep, NULL), 0);
		ck_assert_int_eq(fstatfs_calls, 1);
		ck_assert_int_eq(rep.syscalls, 5 + dup);
	}
	close(fd);
}
END_TEST

static int write_far_past_the_end(void)
{
	ck_assert_int_eq(pwrite(other_fd, "WWWWWWWWWW", 10, 64 * KiB), 10);
	return 0;
}

static int cut_to_500(void)
{
	ck_assert_int_eq(ftruncate(other_fd, 500), 0);
	return 0;
}

/* Another writer acts between the quick path's look and its append, or
 * right after the append: the look after it sees the size it did not aim
 * at, and the engine takes the call over from a look of its own. */
static void quick_raced(int (*act)(void), const char *at, int after)
{
	const char *p = fresh("quick-race");
	unsigned char *old = pattern(1000, 22), *got;
	int64_t size;
	int fd, i;

	write_pattern_at(p, 0, 1000, 22);
	fd = open(p, O_RDWR);
	other_fd = open(p, act == append_record ? O_WRONLY | O_APPEND : O_RDWR);
	script(at, 1, after, act);
	ck_assert_int_eq(job(fd, 1000, 4096, NULL, NULL), 0);
	size = file_size(fd);
	close(fd);
	ck_assert(fully_allocated(p, 1000, 5096));
	got = malloc((size_t)size);
	fd = open(p, O_RDONLY);
	ck_assert_int_eq(pread(fd, got, (size_t)size, 0), size);
	close(fd);
	if (act == append_record) {
		/* the record whole right after the old end, zeros after it */
		ck_assert_int_eq(size, 1000 + 64 + 4096);
		ck_assert(!memcmp(got, old, 1000));
		for (i = 0; i < 64; i++)
			ck_assert_int_eq(got[1000 + i], 'R');
		for (i = 1064; i < size; i++)
			ck_assert_int_eq(got[i], 0);
	} else if (act == write_far_past_the_end) {
		/* the hole it left below our zeros filled in the range; its
		 * bytes intact; the zeros appended after them */
		ck_assert_int_eq(size, 64 * KiB + 10 + 4096);
		ck_assert(!memcmp(got, old, 1000));
		ck_assert(!memcmp(got + 64 * KiB, "WWWWWWWWWW", 10));
		for (i = 1000; i < 64 * KiB; i++)
			ck_assert_int_eq(got[i], 0);
	} else {
		/* cut below the old end after our append: the range again,
		 * the gap before it left a hole */
		ck_assert_int_eq(size, 5096);
		ck_assert(!memcmp(got, old, 500));
		for (i = 500; i < size; i++)
			ck_assert_int_eq(got[i], 0);
	}
	free(got);
	free(old);
}

START_TEST(quick_step_raced_by_another_writer)
{
	if (!quick_here("quick_step_raced_by_another_writer") || real_refuses(0x10))
		return;
	quick_raced(append_record, "statx", 1);
	quick_raced(write_far_past_the_end, "statx", 1);
	quick_raced(cut_to_500, "pwritev64", 1);
}
END_TEST

/* Past RLIMIT_FSIZE the quick path writes nothing, and the engine refuses
 * with EFBIG and the kernel's SIGXFSZ, once, to the calling thread (caught
 * here: it kills by default); at the limit exactly it succeeds, with no
 * signal.  In a child, since the limit is per process. */
static void quick_under_limit(rlim_t limit, int want)
{
	const char *p = fresh("quick-fsize");
	int status, fd, err;
	pid_t pid;

	write_pattern_at(p, 0, 1000, 23);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		struct rlimit lim = { limit, limit };

		fd = open(p, O_RDWR);
		if (setrlimit(RLIMIT_FSIZE, &lim) != 0)
			_exit(100);
		catch_xfsz();
		hook_reset();
		err = job(fd, 1000, 4096, NULL, NULL);
		if (err != want || (want && hk.writes) || xfsz_count != !!want ||
		    xfsz_in_caller != xfsz_count) {
			fprintf(stderr, "limit %lld: %s, %d writes, SIGXFSZ %d times (%d in the caller)\n",
				(long long)limit, strerror(err), hk.writes, (int)xfsz_count,
				(int)xfsz_in_caller);
			_exit(101);
		}
		_exit(0);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFEXITED(status), "killed by signal %d", WTERMSIG(status));
	ck_assert_int_eq(WEXITSTATUS(status), 0);
	fd = open(p, O_RDONLY);
	ck_assert_int_eq(file_size(fd), want ? 1000 : 5096);
	close(fd);
}

START_TEST(quick_step_past_rlimit_writes_nothing)
{
	quick_under_limit(5095, EFBIG);
	quick_under_limit(3000, EFBIG);
	quick_under_limit(1000, EFBIG); /* the kernel's write would raise SIGXFSZ */
	quick_under_limit(5096, 0);
}
END_TEST

/* The quick path asks no status flags: a descriptor that cannot write
 * fails its append with nothing written, and the engine answers as the
 * kernel does; an O_APPEND one grows the file as any other. */
START_TEST(quick_step_without_write_access)
{
	const char *p = fresh("quick-access");
	unsigned char *old = pattern(1000, 24), want[5096];
	int fd;

	write_pattern_at(p, 0, 1000, 24);
	fd = open(p, O_RDONLY);
	ck_assert_int_eq(job(fd, 1000, 4096, NULL, NULL), EBADF);
	close(fd);
	fd = open(p, O_PATH);
	ck_assert_int_eq(job(fd, 1000, 4096, NULL, NULL), EBADF);
	close(fd);
	expect_bytes(p, old, 1000);
	fd = open(p, O_WRONLY | O_APPEND);
	ck_assert_int_eq(job(fd, 1000, 4096, NULL, NULL), 0);
	close(fd);
	memset(want, 0, sizeof want);
	memcpy(want, old, 1000);
	expect_bytes(p, want, sizeof want);
	/* Under the caller's lease nothing can be reopened; where the quick
	 * path runs, an append needs nothing reopened. */
	fd = open(p, O_RDWR | O_APPEND);
	if (quick_here("quick_step_without_write_access, under a lease") && !real_refuses(0x10) &&
	    take_write_lease(fd)) {
		ck_assert_int_eq(job(fd, 5096, 4096, NULL, NULL), 0);
		ck_assert_int_eq(sigio_count, 0);
		ck_assert_int_eq(file_size(fd), 5096 + 4096);
	}
	close(fd);
	free(old);
}
END_TEST

/* The quick path asks no status flags.  On an O_APPEND descriptor that
 * cannot be reopened (no descriptor left), an append by another writer
 * between its look and its append sends the call to the engine, which
 * would refuse such a descriptor (EBADF, glibc's answer) before writing:
 * here the zeros are written already, and the range is whole, so the call
 * succeeds instead of failing after a write. */
START_TEST(quick_step_raced_then_nothing_to_aim)
{
	const char *p = fresh("quick-append-race");
	struct rlimit old_lim, lim;
	int fd, err;

	if (!quick_here("quick_step_raced_then_nothing_to_aim") || real_refuses(0x10))
		return;
	write_pattern_at(p, 0, 1000, 26);
	fd = open(p, O_RDWR | O_APPEND);
	other_fd = open(p, O_WRONLY | O_APPEND);
	ck_assert_int_eq(getrlimit(RLIMIT_NOFILE, &old_lim), 0);
	lim = old_lim;
	lim.rlim_cur = (rlim_t)emul_max(fd, other_fd) + 1;
	script("statx", 1, 1, append_record);
	ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &lim), 0);
	err = job(fd, 1000, 4096, NULL, NULL);
	ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &old_lim), 0);
	ck_assert_int_eq(err, 0);
	ck_assert_int_eq(file_size(fd), 1000 + 64 + 4096);
	close(fd);
	ck_assert(fully_allocated(p, 1000, 5096));
}
END_TEST

static int descriptors_before, descriptors_during;

static int count_descriptors(void)
{
	struct dirent *d;
	DIR *dir = opendir("/proc/self/fd");
	int n = 0;

	while (dir && (d = readdir(dir)))
		n += d->d_name[0] != '.';
	if (dir)
		closedir(dir);
	return n - 1; /* opendir's own */
}

static int note_descriptors(void)
{
	descriptors_during = count_descriptors();
	return 0;
}

/* In a process that never started a thread, nobody can replace or fork the
 * caller's descriptor mid-call: the job makes no descriptor at all, on the
 * quick path or the engine's.  With a thread, it works on a dup. */
static void descriptors_of_a_call(int64_t offset, int64_t len, int want_extra)
{
	const char *p = fresh("alone");
	int fd;

	write_pattern_at(p, 0, 1000, 25);
	fd = open(p, O_RDWR);
	script("pwritev64", 1, 0, note_descriptors);
	descriptors_before = count_descriptors();
	descriptors_during = -1;
	ck_assert_int_eq(job(fd, offset, len, NULL, NULL), 0);
	close(fd);
	ck_assert_int_eq(descriptors_during - descriptors_before, want_extra);
}

START_TEST(alone_the_call_makes_no_descriptor)
{
	/* Elsewhere holes are found with SEEK_DATA on a descriptor of our
	 * own, and a layer's maximum size through one. */
	if (!fiemap_here("alone_the_call_makes_no_descriptor"))
		return;
	if (process_single_threaded()) {
		descriptors_of_a_call(1000, 4096, 0); /* the quick path, where it runs */
		descriptors_of_a_call(0, 8 * MiB, 0); /* the engine */
	} else {
		fprintf(stderr, "alone_the_call_makes_no_descriptor: a thread ran before "
			"(CK_FORK=no, or no __libc_single_threaded): only the dup is checked\n");
	}
	become_multithreaded();
	descriptors_of_a_call(1000, 4096, 1);
	descriptors_of_a_call(0, 8 * MiB, 1);
}
END_TEST

/* --- a syscall that fails, at each point of a call --------------------- */

static int fault_errno;

static int fail_now(void)
{
	return fault_errno;
}

/* Data at [0, 8 KiB) and [72 KiB, 80 KiB), a hole between. */
#define SWEEP_HOLE (64 * KiB)
#define SWEEP_SIZE (16 * KiB + SWEEP_HOLE)

/* The nth call of fn fails with err, for every n the call reaches: the
 * answer is err or, where the engine had another way (a reopen refused, a
 * hole map given up), success; either way every write lay inside the range,
 * no old byte changed, the file never got shorter and grew only with zeros,
 * and a success left the range whole.  fs_type: the filesystem fstatfs
 * names (0: the real one), which decides how holes are found: FS_FUSE by
 * reading back, FS_F2FS with SEEK_DATA (xfs reads back). */
static void fault_sweep(const char *fn, int err, long fs_type, int flags, int64_t offset,
			int64_t len)
{
	int64_t end = offset + len, full = end > SWEEP_SIZE ? end : SWEEP_SIZE, size;
	unsigned char *want = calloc(1, (size_t)full), *a = pattern(8192, 6), *b = pattern(8192, 7);
	int nth, r, failed = 0, reached;

	ck_assert(want != NULL);
	memcpy(want, a, 8192);
	memcpy(want + 8192 + SWEEP_HOLE, b, 8192);
	for (nth = 1;; nth++) {
		const char *p = fresh("fault-sweep");
		int fd;

		ck_assert_msg(nth < 1000, "%s: more than 1000 calls", fn);
		sparse_with_data(p, SWEEP_HOLE);
		fd = open(p, flags);
		ck_assert_int_ge(fd, 0);
		script(fn, nth, 0, fail_now);
		fault_errno = err;
		fake_fs_type = fs_type;
		r = job(fd, offset, len, NULL, NULL);
		reached = hk.calls >= nth;
		writes_inside(offset, end);
		size = file_size(fd);
		close(fd);
		ck_assert_msg(size >= SWEEP_SIZE && size <= full, "%s #%d: size %lld", fn, nth,
			      (long long)size);
		expect_bytes(p, want, size);
		if (!reached) {
			ck_assert_msg(r == 0, "%s, no fault: %s", fn, strerror(r));
			ck_assert_int_eq(size, full);
			break;
		}
		ck_assert_msg(r == 0 || r == err, "%s #%d failing with %s: the call said %s", fn,
			      nth, strerror(err), strerror(r));
		if (r == 0)
			ck_assert_int_eq(size, full);
		failed += r != 0;
	}
	ck_assert_msg(nth > 1, "%s: never called", fn);
	fprintf(stderr, "%s (%s): %d calls, %d faults the answer\n", fn, strerror(err), nth - 1,
		failed);
	free(want), free(a), free(b);
}

/* fstat gives the size each piece starts from, and checks a reopened
 * descriptor is the caller's file. */
START_TEST(failing_fstat_at_each_point)
{
	fault_sweep("fstat64", EIO, 0, O_RDWR, 4 * KiB, 128 * KiB);
	/* Where the range is read back (not local), a write-only caller's
	 * reads need the reopen whose check failed: EBADF, glibc's answer. */
	if (local_here("failing_fstat_at_each_point, O_WRONLY"))
		fault_sweep("fstat64", EIO, 0, O_WRONLY, 4 * KiB, 128 * KiB);
	fault_sweep("fstat64", EIO, FS_FUSE, O_RDWR, 4 * KiB, 128 * KiB);
	fault_sweep("fstat64", EIO, FS_F2FS, O_WRONLY, 4 * KiB, 128 * KiB);
	/* From the end of file: the quick step's check of what it wrote. */
	fault_sweep("fstat64", EIO, 0, O_RDWR, SWEEP_SIZE, 8 * KiB);
}
END_TEST

/* Read-back (FUSE): a read that fails, on the caller's descriptor or on
 * one reopened for reading. */
START_TEST(failing_read_back_at_each_point)
{
	fault_sweep("pread64", EIO, FS_FUSE, O_RDWR, 4 * KiB, 128 * KiB);
	fault_sweep("pread64", EIO, FS_FUSE, O_WRONLY, 4 * KiB, 128 * KiB);
	fault_sweep("pread64", EINTR, FS_FUSE, O_RDWR, 4 * KiB, 128 * KiB);
}
END_TEST

/* NFS (played on this filesystem, with pieces aligned for O_DIRECT): the
 * read-back, the writes into holes and the growth go through descriptors
 * opened with O_DIRECT, and the size is asked with AT_STATX_FORCE_SYNC;
 * a read or a write failing at each point leaves the file as the sweep
 * wants. */
START_TEST(nfs_server_paths_at_each_point)
{
	fault_sweep("pread64", EIO, FS_NFS, O_RDWR, 4 * KiB, 128 * KiB);
	fault_sweep("pread64", EIO, FS_NFS, O_WRONLY, 4 * KiB, 128 * KiB);
	fault_sweep("pwritev64", EIO, FS_NFS, O_RDWR, 4 * KiB, 128 * KiB);
}
END_TEST

/* A FUSE server that finds files by name (sshfs, bindfs): the size comes
 * through the caller's own descriptor (a read of nothing past the end),
 * every byte through it; each read and write failing at each point of the
 * call leaves the file as the sweep wants.  A write-only descriptor learns
 * nothing there: EBADF, before any write. */
START_TEST(found_by_name_at_each_point)
{
	const char *p;
	int fd;

	fake_by_name = 1;
	fault_sweep("pread64", EIO, FS_FUSE, O_RDWR, 4 * KiB, 128 * KiB);
	fault_sweep("pwritev64", ENOSPC, FS_FUSE, O_RDWR, 4 * KiB, 128 * KiB);
	fault_sweep("pwritev64", EIO, FS_FUSE, O_RDWR, SWEEP_SIZE, 8 * KiB);
	p = fresh("by-name-wronly"); /* its buffer is the sweeps' too */
	sparse_with_data(p, SWEEP_HOLE);
	fd = open(p, O_WRONLY);
	ck_assert_int_ge(fd, 0);
	script("pwritev64", 1, 0, fail_now);
	fault_errno = EIO;
	fake_fs_type = FS_FUSE;
	ck_assert_int_eq(job(fd, 4 * KiB, 128 * KiB, NULL, NULL), EBADF);
	ck_assert_int_eq(hk.calls, 0); /* not one write tried */
	ck_assert_int_eq(file_size(fd), SWEEP_SIZE);
	close(fd);
	fake_by_name = 0;
}
END_TEST

/* SEEK_DATA and SEEK_HOLE (f2fs), and FIEMAP (the real ext2/3/4 or btrfs),
 * failing with an error of their own. */
START_TEST(failing_hole_map_at_each_point)
{
	fault_sweep("lseek64", EIO, FS_F2FS, O_RDWR, 4 * KiB, 128 * KiB);
	fault_sweep("lseek64", EIO, FS_F2FS, O_WRONLY, 4 * KiB, 128 * KiB);
	if (fiemap_here("failing_hole_map_at_each_point"))
		fault_sweep("ioctl", EIO, 0, O_RDWR, 4 * KiB, 128 * KiB);
}
END_TEST

/* The writes themselves. */
START_TEST(failing_write_at_each_point)
{
	fault_sweep("pwritev64", ENOSPC, 0, O_RDWR, 4 * KiB, 128 * KiB);
	fault_sweep("pwritev64", ENOSPC, FS_FUSE, O_RDWR | O_APPEND, 4 * KiB, 128 * KiB);
}
END_TEST

/* The quick step takes only filesystems whose appends land at their size
 * (ext2/3/4, xfs, btrfs); elsewhere it leaves the file to the engine,
 * untouched.  Which filesystem: fstatfs's answer, asked at each call
 * (mount ids that the next mount takes again are never remembered). */
static void quick_step_on(long fs_type, int quick)
{
	struct lfa_job_options opt = { LFA_EMULATE_ALWAYS, NULL, NULL, 0, 0, 0, 0, 0 };
	struct lfa_job_report rep;
	struct lfa_target t;
	const char *p = fresh("quick-fs");
	unsigned char *want = calloc(1, 8192), *old = pattern(4096, 21);
	int fd, looked, r;

	/* The step is one append (RWF_APPEND): where pwritev2 refuses it
	 * (qemu-user), the engine does the work everywhere. */
	if (quick && real_refuses(0x10))
		quick = 0;
	write_pattern_at(p, 0, 4096, 21);
	fd = open(p, O_RDWR);
	ck_assert_int_ge(fd, 0);
	hook_reset();
	reusable_mount_ids = 1;
	fake_fs_type = fs_type;
	memset(&rep, 0, sizeof rep);
	hk.active = 1;
	r = lfa_extend_quickly(fd, 4096, 4096, &opt, &rep, &t, &looked);
	hk.active = 0;
	ck_assert_msg(r == (quick ? 0 : -1), "fs 0x%lx: %d", fs_type, r);
	ck_assert_int_eq(fstatfs_calls, 1);
	close(fd);
	memcpy(want, old, 4096);
	expect_bytes(p, want, quick ? 8192 : 4096);
	if (quick)
		ck_assert_int_eq(rep.copy_on_write, (uint32_t)fs_type == FS_BTRFS);
	free(want), free(old);
}

/* A layer that drops RWF_APPEND (overlayfs on Debian 12's 6.1) under a
 * file that passes for ext4: the quick step's append lands at the offset
 * it gives, the size it looked at, so inside the range and never over the
 * file's first bytes. */
START_TEST(quick_step_dropped_append_stays_in_the_range)
{
	struct lfa_job_options opt = { LFA_EMULATE_ALWAYS, NULL, NULL, 0, 0, 0, 0, 0 };
	struct lfa_job_report rep;
	struct lfa_target t;
	const char *p = fresh("quick-dropped");
	unsigned char *want = calloc(1, 8192), *old = pattern(4096, 22);
	int fd, looked, r;

	if (real_refuses(0x10)) {
		fprintf(stderr, "skipping: pwritev2 refuses RWF_APPEND here (qemu-user?)\n");
		free(want), free(old);
		return;
	}
	write_pattern_at(p, 0, 4096, 22);
	fd = open(p, O_RDWR);
	ck_assert_int_ge(fd, 0);
	hook_reset();
	layer_drops_append = 1;
	fake_fs_type = FS_EXT;
	memset(&rep, 0, sizeof rep);
	hk.active = 1;
	r = lfa_extend_quickly(fd, 4096, 4096, &opt, &rep, &t, &looked);
	hk.active = 0;
	ck_assert_int_eq(r, 0);
	writes_inside(4096, 8192);
	close(fd);
	memcpy(want, old, 4096);
	expect_bytes(p, want, 8192);
	free(want), free(old);
}
END_TEST

START_TEST(quick_step_only_where_appends_land_at_the_size)
{
	quick_step_on(FS_EXT, 1);
	quick_step_on(FS_XFS, 1);
	quick_step_on(FS_BTRFS, 1);
	quick_step_on(FS_FUSE, 0);
	quick_step_on(0x01021994, 0); /* tmpfs */
}
END_TEST

static void teardown(void)
{
	hook_reset();
	case_fs_type = 0;
	if (other_fd >= 0)
		close(other_fd);
	other_fd = -1;
}

int main(void)
{
	Suite *s = suite_create("race");
	TCase *tc = tcase_create("other-writer");

	tcase_set_timeout(tc, 120);
	tcase_add_checked_fixture(tc, NULL, teardown);
	tcase_add_test(tc, stale_size_never_shrinks);
	tcase_add_test(tc, failure_keeps_other_writers_bytes);
	tcase_add_test(tc, cancel_keeps_other_writers_bytes);
	tcase_add_test(tc, killed_midway_leaves_a_prefix);
	tcase_add_test(tc, zeros_only_inside_range);
	tcase_add_test(tc, zeros_only_inside_range_past_end);
	tcase_add_test(tc, recheck_before_each_write_seek);
	tcase_add_test(tc, recheck_before_each_write_read_back);
	tcase_add_test(tc, generic_seek_hole_is_not_believed);
	tcase_add_test(tc, append_descriptor_on_a_layer_that_appends);
	tcase_add_test(tc, append_descriptor_without_a_reopen_is_ebadf);
	tcase_add_test(tc, callers_lease_is_kept);
	tcase_add_test(tc, dup2_mid_call_cannot_redirect);
	tcase_add_test(tc, reopened_descriptor_keeps_noatime);
	tcase_add_test(tc, fsize_limit_fails_before_any_write);
	tcase_add_test(tc, diagnostics_never_into_the_file);
	tcase_add_test(tc, memfd_seals_as_the_kernel);
	tcase_add_test(tc, active_swapfile);
	tcase_add_test(tc, job_descriptors_never_below_3);
	tcase_add_test(tc, child_forked_mid_call_holds_nothing);
	tcase_add_test(tc, extending_call_shows_only_modify);
	tcase_add_test(tc, direct_without_a_reopen_fails_before_writing);
	tcase_add_test(tc, efbig_before_writing_without_a_reopen);
	tcase_add_test(tc, append_between_look_and_write_survives);
	tcase_add_test(tc, overlay_dropping_rwf_append_keeps_appends);
	tcase_add_test(tc, other_clients_append_survives);
	tcase_add_test(tc, shared_fs_reopen_stays_invisible);
	tcase_add_test(tc, shared_fs_reopens_once_local_never);
	tcase_add_test(tc, shared_fs_without_a_reopen_still_appends);
	tcase_add_test(tc, gap_before_range_stays_a_hole);
	tcase_add_test(tc, cut_shorter_mid_call_by_appends);
	tcase_add_test(tc, cut_shorter_mid_call_positional);
	tcase_add_test(tc, cut_again_and_again_gives_way);
	tcase_add_test(tc, setfl_append_mid_call);
	tcase_add_test(tc, setfl_append_mid_call_without_noappend);
	tcase_add_test(tc, endless_eintr_ends);
	tcase_add_test(tc, reads_ending_before_the_size_end);
	tcase_add_test(tc, pseudo_filesystem_refused);
	tcase_add_test(tc, reads_ending_before_a_moving_size_give_way);
	tcase_add_test(tc, stale_handle_not_reopened_again);
	tcase_add_test(tc, procfs_file_refused);
	tcase_add_test(tc, sealed_memfd_grown_mid_call_keeps_its_bytes);
	tcase_add_test(tc, filling_holes_shows_only_modify);
	tcase_add_test(tc, fiemap_keeps_callers_offset);
	tcase_add_test(tc, unsynced_data_is_never_zeroed);
	tcase_add_test(tc, many_extents_and_ranges_inside_them);
	tcase_add_test(tc, recheck_after_the_fiemap_look);
	tcase_add_test(tc, fiemap_failures_fall_back);
	tcase_add_test(tc, quick_step_makes_glibcs_syscalls);
	tcase_add_test(tc, quick_step_raced_by_another_writer);
	tcase_add_test(tc, nothing_remembered_without_unique_mount_ids);
	tcase_add_test(tc, quick_step_past_rlimit_writes_nothing);
	tcase_add_test(tc, quick_step_without_write_access);
	tcase_add_test(tc, quick_step_raced_then_nothing_to_aim);
	tcase_add_test(tc, alone_the_call_makes_no_descriptor);
	tcase_add_test(tc, sealed_memfd_grown_before_the_ftruncate);
	tcase_add_test(tc, failing_fstat_at_each_point);
	tcase_add_test(tc, failing_read_back_at_each_point);
	tcase_add_test(tc, nfs_server_paths_at_each_point);
	tcase_add_test(tc, found_by_name_at_each_point);
	tcase_add_test(tc, failing_hole_map_at_each_point);
	tcase_add_test(tc, failing_write_at_each_point);
	tcase_add_test(tc, quick_step_only_where_appends_land_at_the_size);
	tcase_add_test(tc, quick_step_dropped_append_stays_in_the_range);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
