/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright (C) 2026 the libfallocate authors (see AUTHORS) */
/* check_race's harness: the libc functions the engine calls (pwritev64,
 * statx, ...), each of which runs the test's scripted action before or
 * after the real call, the faults they play, and main(). */
#include "harness.h"

/* The script: act at the nth call of fn during the job, before the call
 * (and then fail it with the errno act returns, if any) or after it. */
struct race_script hk;

/* The other writer's descriptors and the job's. */
int other_fd = -1, job_fd = -1;
const char *job_path;

/* Whether the test directory is on a local filesystem, where the engine
 * believes SEEK_HOLE and knows the maximum file size.  On a layer
 * (overlayfs: a container's /tmp, the VM's root before its scratch disk)
 * or a server it reopens the file for that maximum and reads the range
 * back (README, Known limits): the cases that count on neither say so and
 * stop there. */
int local_here(const char *why)
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
	if ((hk.nth < 0 || hk.calls == hk.nth) && after == hk.after) {
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
int layer_ignores_noappend;

/* A client of a shared filesystem through FUSE (issue 24): pwritev2
 * (RWF_APPEND) on a descriptor opened without O_APPEND lands at the size
 * this client last saw (client_size: the job's last fstat), not at the
 * server's end of file; a descriptor opened with O_APPEND has the server
 * append, as GlusterFS's does. */
int stale_client_size;
int64_t client_size;

/* The filesystem a whole test plays (fstatfs's f_type), across the resets
 * of its scripts; fake_fs_type, for one script, wins. */
long case_fs_type;

/* A kernel older than RWF_APPEND (4.16) or RWF_NOAPPEND (6.9), as far as
 * the engine can tell. */
int kernel_without_rwf_append, kernel_without_rwf_noappend;

/* Whether the real pwritev2 refuses a flag (a kernel before it, or
 * qemu-user, which answers EOPNOTSUPP to every pwritev2 flag): the shim
 * then refuses it before the script sees a write, as such a kernel would. */
int real_refuses(int flag)
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
int layer_drops_append;

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
int reusable_mount_ids;

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
int generic_seek;

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
int writes_interrupted, reads_end_early, write_attempts, read_attempts;
long fake_fs_type;

static int interrupt_write(void)
{
	if (!writes_interrupted || !hk.active || hk.acting)
		return 0;
	return ++write_attempts > FAULT_CAP ? ENOSPC : EINTR;
}

ssize_t pread64(int fd, void *buf, size_t n, off64_t off)
{
	int err = hook_point("pread64", 0);
	ssize_t r;

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
	r = REAL(pread64)(fd, buf, n, off);
	hook_point("pread64", 1);
	return r;
}

/* Whether the FUSE server played finds files by name (fuse_server.c,
 * which would read the real mount table, is replaced here): sshfs, which
 * does and answers its handle's attributes by the handle, or by default
 * GlusterFS, which keeps a file's identity. */
int fake_by_name;

void lfa_fuse_server(uint64_t dev, char *type, size_t n, unsigned *syscalls)
{
	(void)dev, (void)syscalls;
	snprintf(type, n, "%s", fake_by_name ? "fuse.sshfs" : "fuse.glusterfs");
}

/* Reopens through /proc answered ESTALE (an NFS server that no longer has
 * the file: renamed over there), counted. */
int reopen_estale, reopens_tried;

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

/* The library's fcntl, whatever _FILE_OFFSET_BITS renames this file's to:
 * after an F_DUPFD_CLOEXEC that made a descriptor, the script's
 * "fcntl_dupfd" act runs (the instant before job_fds.c records it). */
int fcntl_in_library(int fd, int cmd, ...) __asm__("fcntl");
int fcntl_in_library(int fd, int cmd, ...)
{
	va_list ap;
	long arg;
	int r, err;

	va_start(ap, cmd);
	arg = va_arg(ap, long);
	va_end(ap);
	if (cmd == F_DUPFD_CLOEXEC)
		hook_point("fcntl_dupfd", 0);
	r = ((int (*)(int, int, ...))real_fn("fcntl"))(fd, cmd, arg);
	if (cmd == F_DUPFD_CLOEXEC && r >= 0) {
		err = errno;
		hook_point("fcntl_dupfd", 1);
		errno = err;
	}
	return r;
}

/* job_fds.c names the thread making a descriptor just after it claims the
 * descriptor's slot: the script's "pthread_self" act runs the instant
 * before (the slot claimed, its maker not yet named). */
pthread_t pthread_self(void)
{
	hook_point("pthread_self", 0);
	return REAL(pthread_self)();
}

int fstatfs_calls;

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

int fstat_fd;

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

/* The engine's pauses (the cross-client rule), counted during the job. */
int naps;

int nanosleep(const struct timespec *req, struct timespec *rem)
{
	if (hk.active && !hk.acting)
		naps++;
	return REAL(nanosleep)(req, rem);
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
int fiemap_errno, fiemap_fails;

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

void hook_reset(void)
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
	naps = 0;
	/* What an earlier test's play kernel refused is not this one's kernel
	 * (the tests share one process under CK_FORK=no, as under valgrind). */
	emul_forget_kernel_answers();
}

/* The next act of a job under way (an act may set it): the rest of the
 * script and the faults stay. */
void script_next(const char *fn, int nth, int after, int (*act)(void))
{
	hk.fn = fn;
	hk.calls = 0;
	hk.nth = nth;
	hk.after = after;
	hk.act = act;
}

void script(const char *fn, int nth, int after, int (*act)(void))
{
	hook_reset();
	script_next(fn, nth, after, act);
}

int job(int fd, int64_t offset, int64_t len, struct lfa_job_report *rep,
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
void writes_inside(int64_t offset, int64_t end)
{
	if (hk.writes) {
		ck_assert_msg(hk.write_lo >= offset && hk.write_hi <= end,
			      "wrote [%lld, %lld) for the range [%lld, %lld)",
			      (long long)hk.write_lo, (long long)hk.write_hi,
			      (long long)offset, (long long)end);
	}
}

const char *fresh(const char *name)
{
	const char *p = scratch_path(name);

	unlink(p);
	job_path = p;
	return p;
}

/* The whole file, which must be n bytes: want, with NULL meaning zeros. */
void expect_bytes(const char *path, const unsigned char *want, int64_t n)
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

unsigned char *pattern(int64_t n, unsigned seed)
{
	unsigned char *b = calloc(1, (size_t)n);

	ck_assert(b != NULL);
	fill_pattern(b, (size_t)n, seed);
	return b;
}

void put(int fd, const unsigned char *b, int64_t n, int64_t off)
{
	ck_assert_int_eq(pwrite(fd, b, (size_t)n, off), n);
}

/* Data at [0, 8 KiB) and [8 KiB + hole, 16 KiB + hole), and the file
 * that has zeros in the hole after a fill to size. */
void sparse_with_data(const char *p, int64_t hole)
{
	write_pattern_at(p, 0, 8192, 6);
	write_pattern_at(p, 8192 + hole, 8192, 7);
}

void expect_sparse_filled(const char *p, int64_t hole, int64_t size)
{
	unsigned char *want = calloc(1, (size_t)size);
	unsigned char *a = pattern(8192, 6), *b = pattern(8192, 7);

	memcpy(want, a, 8192);
	memcpy(want + 8192 + hole, b, 8192);
	expect_bytes(p, want, size);
	free(want), free(a), free(b);
}

int sigio_count;
static void count_sigio(int sig)
{
	(void)sig;
	sigio_count++;
}

int take_write_lease(int fd)
{
	signal(SIGIO, count_sigio);
	sigio_count = 0;
	if (fcntl(fd, F_SETLEASE, F_WRLCK) != 0) {
		fprintf(stderr, "skipping: F_SETLEASE: %s\n", strerror(errno));
		return 0;
	}
	return 1;
}

/* FIEMAP is read where the filesystem's is believed; elsewhere (tmpfs,
 * xfs) these tests have nothing to prove. */
int fiemap_here(const char *why)
{
	struct statfs sf;

	if (statfs(test_dir(), &sf) == 0 && ((uint32_t)sf.f_type == 0xEF53 || (uint32_t)sf.f_type == 0x9123683E))
		return 1;
	fprintf(stderr, "%s: %s is not ext2/3/4 or btrfs, skipped\n", why, test_dir());
	return 0;
}

int count_descriptors(void)
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

/* The other writer's marker, at marker_at, where a later piece lies. */
int64_t marker_at;

int mark_later_piece(void)
{
	put(other_fd, (const unsigned char *)"marker", 6, marker_at);
	return 0;
}

/* Another writer appends a 64-byte record through other_fd. */
int append_record(void)
{
	unsigned char rec[64];

	memset(rec, 'R', sizeof rec);
	ck_assert_int_eq(write(other_fd, rec, sizeof rec), sizeof rec);
	return 0;
}

/* SIGXFSZ as the kernel's inode_newsize_ok sends it: to the calling
 * thread, counted where it ran. */
volatile sig_atomic_t xfsz_count, xfsz_in_caller;
static pid_t xfsz_caller;

static void count_xfsz(int sig)
{
	(void)sig;
	xfsz_count++;
	xfsz_in_caller += (pid_t)syscall(SYS_gettid) == xfsz_caller;
}

void catch_xfsz(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = count_xfsz;
	sigemptyset(&sa.sa_mask);
	ck_assert_int_eq(sigaction(SIGXFSZ, &sa, NULL), 0);
	xfsz_count = xfsz_in_caller = 0;
	xfsz_caller = (pid_t)syscall(SYS_gettid);
}

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
	race_shorter_tests(tc);
	race_range_tests(tc);
	race_descriptors_tests(tc);
	race_limits_tests(tc);
	race_invisible_tests(tc);
	race_appends_tests(tc);
	race_faults_tests(tc);
	race_fiemap_tests(tc);
	race_quick_tests(tc);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
