/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright (C) 2026 the libfallocate authors (see AUTHORS) */
/* The emulation engine on the machine's own filesystem, forced: content,
 * size and allocation for new, written, sparse and partly covered files, on
 * every kind of descriptor, and cancellation. */
#include "../lib/testutil.h"

#include <check.h>

#include "check-run.h"
#include <linux/fs.h>
#include <pthread.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/statfs.h>
#include <sys/wait.h>

#include "emul_job.h"
#include "emulate.h"
#include "mount_facts.h"
#include <sys/sysmacros.h>

#define MiB ((int64_t)1 << 20)

static struct lfa_job_report last;

static int emulate_path(const char *path, int flags, int64_t offset, int64_t len)
{
	struct lfa_job_options opt = { LFA_EMULATE_ALWAYS, 0, 0, 0, 0, 0, 0, 0 };
	int fd = open(path, flags | O_CREAT, 0600);
	off_t pos;
	int err;

	ck_assert_msg(fd >= 0, "open %s: %s", path, strerror(errno));
	pos = lseek(fd, 0, SEEK_CUR);
	errno = 4242;
	err = lfa_run_job("test", fd, offset, len, INT64_MAX, &opt, &last);
	ck_assert_int_eq(errno, 4242);
	ck_assert_int_eq(lseek(fd, 0, SEEK_CUR), pos); /* the caller's offset stays */
	ck_assert_int_eq(last.emulated, 1);
	close(fd);
	return err;
}

static void expect_file(const char *path, int64_t size, int64_t data_off, int64_t data_len,
			unsigned seed)
{
	int fd = open(path, O_RDONLY);
	int64_t bad;

	ck_assert_int_eq(file_size(fd), size);
	close(fd);
	bad = first_mismatch(path, 0, size, data_off, data_len, seed);
	ck_assert_msg(bad == -1, "%s: byte %lld is wrong", path, (long long)bad);
}

static const char *fresh(const char *name)
{
	const char *p = scratch_path(name);

	unlink(p);
	return p;
}

START_TEST(new_file)
{
	const char *p = fresh("new");

	ck_assert_int_eq(emulate_path(p, O_RDWR, 0, 8 * MiB), 0);
	expect_file(p, 8 * MiB, 0, 0, 0);
	ck_assert(fully_allocated(p, 0, 8 * MiB));
	ck_assert_int_eq(last.bytes_written, 8 * MiB);
	/* checks, the limit probe on our own descriptor, and a look at the
	 * size before each of the two 4 MiB writes */
	ck_assert_uint_le(last.syscalls, 16);
}
END_TEST

START_TEST(unaligned_range_beyond_end)
{
	const char *p = fresh("unaligned");

	write_pattern_at(p, 0, 1000, 1);
	ck_assert_int_eq(emulate_path(p, O_RDWR, 5000, 3000), 0);
	expect_file(p, 8000, 0, 1000, 1);
	ck_assert(fully_allocated(p, 5000, 8000));
}
END_TEST

START_TEST(written_file_is_not_rewritten)
{
	const char *p = fresh("written");

	write_pattern_at(p, 0, (size_t)(4 * MiB), 2);
	ck_assert_int_eq(emulate_path(p, O_RDWR, 0, 4 * MiB), 0);
	expect_file(p, 4 * MiB, 0, 4 * MiB, 2);
	ck_assert_int_eq(last.bytes_written, 0);
}
END_TEST

START_TEST(sparse_file)
{
	const char *p = fresh("sparse");
	int fd;

	write_pattern_at(p, 0, 4096, 3);
	write_pattern_at(p, 3 * MiB, 4096, 3);
	fd = open(p, O_RDWR);
	ck_assert_int_eq(ftruncate(fd, 5 * MiB + 123), 0);
	close(fd);
	ck_assert(!fully_allocated(p, 0, 5 * MiB));
	ck_assert_int_eq(emulate_path(p, O_RDWR, 100, 6 * MiB), 0);
	ck_assert(fully_allocated(p, 0, 6 * MiB + 100));
	ck_assert_int_eq(first_mismatch(p, 0, 4096, 0, 4096, 3), -1);
	ck_assert_int_eq(first_mismatch(p, 4096, 3 * MiB, 0, 0, 0), -1);
	ck_assert_int_eq(first_mismatch(p, 3 * MiB, 3 * MiB + 4096, 3 * MiB, 4096, 3), -1);
	ck_assert_int_eq(first_mismatch(p, 3 * MiB + 4096, 6 * MiB + 100, 0, 0, 0), -1);
	/* Only holes were written: the two data blocks were skipped. */
	ck_assert_int_le(last.bytes_written, 6 * MiB + 100 - 2 * 4096 + 4096);
}
END_TEST

START_TEST(range_inside_keeps_size)
{
	const char *p = fresh("inside");
	int fd;

	write_pattern_at(p, 0, 777, 4);
	fd = open(p, O_RDWR);
	ck_assert_int_eq(ftruncate(fd, 4 * MiB), 0);
	close(fd);
	ck_assert_int_eq(emulate_path(p, O_RDWR, MiB + 1, MiB), 0);
	expect_file(p, 4 * MiB, 0, 777, 4);
	ck_assert(fully_allocated(p, MiB + 1, 2 * MiB + 1));
}
END_TEST

START_TEST(write_only_descriptor)
{
	const char *p = fresh("wronly");

	write_pattern_at(p, 0, 10000, 5);
	ck_assert_int_eq(emulate_path(p, O_WRONLY, 0, 2 * MiB), 0);
	expect_file(p, 2 * MiB, 0, 10000, 5);
	ck_assert(fully_allocated(p, 0, 2 * MiB));
}
END_TEST

START_TEST(append_descriptor)
{
	const char *p = fresh("append");
	unsigned char tail[100];
	int fd;

	write_pattern_at(p, 0, 10000, 6);
	ck_assert_int_eq(emulate_path(p, O_WRONLY | O_APPEND, 0, 2 * MiB), 0);
	expect_file(p, 2 * MiB, 0, 10000, 6);
	ck_assert(fully_allocated(p, 0, 2 * MiB));
	/* The descriptor still appends. */
	fd = open(p, O_WRONLY | O_APPEND);
	memset(tail, 'x', sizeof tail);
	ck_assert_int_eq(emulate_path(p, O_WRONLY | O_APPEND, 0, 100), 0);
	ck_assert_int_eq(write(fd, tail, sizeof tail), (ssize_t)sizeof tail);
	ck_assert_int_eq(file_size(fd), 2 * MiB + 100);
	close(fd);
}
END_TEST

START_TEST(direct_descriptor)
{
	const char *p = fresh("direct");
	int fd = open(p, O_RDWR | O_CREAT | O_DIRECT, 0600);

	if (fd < 0) {
		fprintf(stderr, "skipping O_DIRECT: %s\n", strerror(errno));
		return;
	}
	close(fd);
	write_pattern_at(p, 0, 5000, 7);
	ck_assert_int_eq(emulate_path(p, O_RDWR | O_DIRECT, 0, 3 * MiB + 17), 0);
	expect_file(p, 3 * MiB + 17, 0, 5000, 7);
	ck_assert(fully_allocated(p, 0, 3 * MiB + 17));
}
END_TEST

START_TEST(dsync_descriptor_writes_few_times)
{
	const char *p = fresh("dsync");

	ck_assert_int_eq(emulate_path(p, O_RDWR | O_DSYNC, 0, 8 * MiB), 0);
	expect_file(p, 8 * MiB, 0, 0, 0);
	ck_assert_uint_le(last.syscalls, 16);
}
END_TEST

static int cancel_after_second(void *arg, uint64_t done, uint64_t total)
{
	int *calls = arg;

	ck_assert_uint_le(done, total);
	return ++*calls >= 2;
}

/* Cancelled after its first write, the job leaves what a job killed there
 * leaves: the old bytes, then a prefix of the range without holes. */
START_TEST(cancel_keeps_a_prefix)
{
	const char *p = fresh("cancel");
	int calls = 0, fd;
	struct lfa_job_options opt = { LFA_EMULATE_ALWAYS, cancel_after_second, &calls, 0, 0, 0, 0, 0 };

	write_pattern_at(p, 0, 3000, 8);
	fd = open(p, O_RDWR);
	ck_assert_int_eq(lfa_run_job("test", fd, 0, 64 * MiB, INT64_MAX, &opt, &last), ECANCELED);
	close(fd);
	ck_assert_int_eq(calls, 2);
	expect_file(p, 3000 + 4 * MiB, 0, 3000, 8);
	ck_assert(fully_allocated(p, 0, 3000 + 4 * MiB));
}
END_TEST

/* A call served for another process (the seccomp supervisor) keeps that
 * process's rules, not this one's: its RLIMIT_FSIZE refuses before any
 * write, and a descriptor without its ABI's large-file flag (here a flag
 * this descriptor lacks stands for it) is written past 2 GiB through one of
 * the engine's own, where the caller's own writes would stop at 2 GiB. */
/* The mount table's walk (fuse_server.c): the type after the lone "-",
 * on the line whose third field is the device, whatever the read
 * boundaries, line lengths (an overlay's options run to kilobytes),
 * optional fields and escaped spaces; "" where no line names it, and a
 * type cut to the buffer is no known server's. */
static const char *mountinfo_type_of(const char *path, unsigned maj, unsigned min, size_t n)
{
	static char type[64];
	unsigned syscalls = 0;
	int fd = open(path, O_RDONLY);

	ck_assert_int_ge(fd, 0);
	lfa_mountinfo_type(fd, makedev(maj, min), type, n, &syscalls);
	close(fd);
	ck_assert_uint_ge(syscalls, 1);
	return type;
}

START_TEST(mount_table_walk)
{
	const char *p = scratch_path("mountinfo");
	static char options[5001];
	int fill;

	memset(options, 'o', sizeof options - 1);
	for (fill = 0; fill < 70; fill += 3) {
		FILE *f = fopen(p, "w");

		ck_assert(f != NULL);
		fprintf(f, "%*s", fill, "");
		fprintf(f, "\n30 1 0:40 / /merged rw,%s - overlay overlay rw,lowerdir=/a\n", options);
		fprintf(f, "44 26 0:39 / /mnt/with\\040space rw,relatime shared:12 master:3 - "
			   "fuse.sshfs 127.0.0.1:/x rw,user_id=0\n");
		fprintf(f, "45 26 0:3 / /proc rw - proc proc rw\n");
		fprintf(f, "46 26 0:41 / /bind rw - fuse /src rw,allow_other\n");
		fprintf(f, "47 26 0:43 / /g rw - fuse.glusterfs vm:/v rw\n");
		fprintf(f, "48 26 0:42 / /last rw - fuse.gluster");
		fclose(f);
		ck_assert_str_eq(mountinfo_type_of(p, 0, 39, 64), "fuse.sshfs");
		ck_assert_str_eq(mountinfo_type_of(p, 0, 40, 64), "overlay");
		ck_assert_str_eq(mountinfo_type_of(p, 0, 41, 64), "fuse");
		ck_assert_str_eq(mountinfo_type_of(p, 0, 3, 64), "proc");
		ck_assert_str_eq(mountinfo_type_of(p, 0, 99, 64), "");
		ck_assert_str_eq(mountinfo_type_of(p, 0, 43, 64), "fuse.glusterfs");
		/* a table cut inside the type (no space or newline after it):
		 * not known to be whole, and a filesystem not known counts as
		 * by name */
		ck_assert_str_eq(mountinfo_type_of(p, 0, 42, 64), "");
		ck_assert_str_eq(mountinfo_type_of(p, 0, 39, 8), "fuse.ss");
	}
	unlink(p);
	/* A filesystem found by name, one that keeps a file's identity, and
	 * one not known: the careful value of every fact (src/fs_facts.c). */
	{
		const unsigned careful = LFA_FS_SHARED | LFA_FS_BY_NAME | LFA_FS_APPEND_OPEN |
					 LFA_FS_ZERO_LIES;
		unsigned syscalls = 0;

		ck_assert_uint_eq(lfa_fs_facts(FS_EXT, makedev(8, 1), &syscalls) & LFA_FS_BY_NAME, 0);
		ck_assert_uint_eq(lfa_fs_facts(FS_NFS, makedev(0, 50), &syscalls) & LFA_FS_BY_NAME, 0);
		ck_assert_uint_ne(lfa_fs_facts(FS_CIFS, makedev(0, 51), &syscalls) & LFA_FS_BY_NAME, 0);
		ck_assert_uint_ne(lfa_fs_facts(FS_9P, makedev(0, 52), &syscalls) & LFA_FS_BY_NAME, 0);
		ck_assert_uint_eq(lfa_fs_facts(0x12345678u, makedev(0, 53), &syscalls), careful);
		ck_assert_uint_eq(syscalls, 0);
		/* FUSE on a device no mount has: the table is read, no
		 * server is known: careful */
		ck_assert_uint_eq(lfa_fs_facts(FS_FUSE, makedev(4095, 1048575), &syscalls), careful);
		ck_assert_uint_ge(syscalls, 3);
		ck_assert_uint_eq(lfa_fs_facts_of_type(FS_FUSE), careful);
	}
}
END_TEST

START_TEST(foreign_caller_rules)
{
	const char *p = fresh("foreign");
	struct lfa_job_options opt = { LFA_EMULATE_ALWAYS, 0, 0, 0, 0, 1, 0, 1000000 };
	const int64_t two_gib = (int64_t)2 << 30;
	char buf[8192], zeros[8192];
	struct rlimit nofile, few;
	struct stat64 st;
	int fd, err;

	write_pattern_at(p, 0, 3000, 9);
	fd = open(p, O_RDWR);
	ck_assert_int_eq(lfa_run_job("test", fd, 0, 2000000, INT64_MAX, &opt, &last), EFBIG);
	ck_assert_uint_eq(last.bytes_written, 0);
	/* SIGXFSZ is due to the caller (its server sends it), not to this
	 * process, which would die of it. */
	ck_assert_int_eq(last.fsize_signal, 1);
	expect_file(p, 3000, 0, 3000, 9);
	opt.caller_fsize = UINT64_MAX;
	opt.caller_largefile = O_NOATIME;
	ck_assert_int_eq(lfa_run_job("test", fd, two_gib - 4096, 8192, INT64_MAX, &opt, &last), 0);
	/* 64-bit calls: this descriptor may lack O_LARGEFILE (i386 without
	 * _FILE_OFFSET_BITS), and a 32-bit fstat of the file says EOVERFLOW. */
	ck_assert_int_eq(fstat64(fd, &st), 0);
	ck_assert_int_eq(st.st_size, two_gib + 4096);
	memset(zeros, 0, sizeof zeros);
	ck_assert_int_eq(pread64(fd, buf, sizeof buf, two_gib - 4096), (ssize_t)sizeof buf);
	ck_assert(!memcmp(buf, zeros, sizeof buf));
	close(fd);
	ck_assert_int_eq(first_mismatch(p, 0, 8192, 0, 3000, 9), -1);
	/* A non-LFS build's nftw cannot stat a file past 2 GiB to remove it
	 * with the scratch directory. */
	ck_assert_int_eq(unlink(p), 0);
	/* Without a descriptor of its own to be had, EFBIG before anything
	 * is written (the caller's would stop at 2 GiB part way). */
	p = fresh("foreign-nofile");
	write_pattern_at(p, 0, 3000, 9);
	fd = open(p, O_RDWR);
	ck_assert_int_eq(getrlimit(RLIMIT_NOFILE, &nofile), 0);
	few = nofile;
	few.rlim_cur = (rlim_t)fd + 1;
	ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &few), 0);
	err = lfa_run_job("test", fd, two_gib - 4096, 8192, INT64_MAX, &opt, &last);
	setrlimit(RLIMIT_NOFILE, &nofile);
	ck_assert_int_eq(err, EFBIG);
	ck_assert_uint_eq(last.bytes_written, 0);
	close(fd);
	expect_file(p, 3000, 0, 3000, 9);
}
END_TEST

struct progress_log { int calls, finals; uint64_t last_done, total; };

static int log_progress(void *arg, uint64_t done, uint64_t total)
{
	struct progress_log *log = arg;

	ck_assert_uint_ge(done, log->last_done); /* never goes back */
	log->calls++;
	log->finals += done == total;
	log->last_done = done;
	log->total = total;
	return 0;
}

START_TEST(progress_reaches_total)
{
	const char *p = fresh("progress");
	struct progress_log log = { 0, 0, 0, 0 };
	struct lfa_job_options opt = { LFA_EMULATE_ALWAYS, log_progress, &log, 0, 0, 0, 0, 0 };
	int fd = open(p, O_RDWR | O_CREAT, 0600);

	ck_assert_int_eq(lfa_run_job("test", fd, 4096, 16 * MiB, INT64_MAX, &opt, &last), 0);
	close(fd);
	ck_assert_int_ge(log.calls, 4); /* one per 4 MiB write at least */
	ck_assert_uint_eq(log.total, 16 * MiB);
	ck_assert_uint_eq(log.last_done, 16 * MiB);
	ck_assert_int_eq(log.finals, 1); /* the end is reported once */
}
END_TEST

/* A thread with its own descriptor table (unshare(CLONE_FILES)) gets its
 * own file from /proc/thread-self, never the thread group leader's file of
 * the same number: zeros mapped from another file's holes destroy data. */
struct unshared_call { const char *data_path; int fd_number; int result; };

static void *allocate_in_unshared_table(void *arg)
{
	struct unshared_call *c = arg;
	struct lfa_job_options opt = { LFA_EMULATE_ALWAYS, 0, 0, 0, 0, 0, 0, 0 };
	struct lfa_job_report rep;
	int fd;

	if (unshare(CLONE_FILES) != 0) {
		c->result = -1;
		return NULL;
	}
	fd = open(c->data_path, O_RDWR);
	dup2(fd, c->fd_number);
	close(fd);
	c->result = lfa_run_job("test", c->fd_number, 0, 65536, INT64_MAX, &opt, &rep);
	return NULL;
}

START_TEST(reopen_finds_the_callers_file)
{
	const char *data = fresh("unshare-data");
	const char *holes = fresh("unshare-holes");
	struct unshared_call c = { data, -1, 0 };
	pthread_t t;
	int fd;

	write_pattern_at(data, 0, 65536, 11);
	fd = open(holes, O_RDWR | O_CREAT, 0600);
	ck_assert_int_eq(ftruncate(fd, 65536), 0); /* one hole, the same size */
	c.fd_number = fd;
	ck_assert_int_eq(pthread_create(&t, NULL, allocate_in_unshared_table, &c), 0);
	pthread_join(t, NULL);
	close(fd);
	if (c.result == -1) {
		fprintf(stderr, "skipping: unshare(CLONE_FILES): %s\n", strerror(errno));
		return;
	}
	ck_assert_int_eq(c.result, 0);
	expect_file(data, 65536, 0, 65536, 11);
}
END_TEST

/* Inside the old size a write past RLIMIT_FSIZE would raise SIGXFSZ; the
 * emulation refuses with EFBIG instead, and writes within the limit work.
 * In a child, since the limit is per process. */
static void run_with_fsize_limit(rlim_t limit, int64_t offset, int64_t len, int want)
{
	const char *p = fresh("fsize");
	pid_t pid;
	int status, fd = open(p, O_RDWR | O_CREAT, 0600);

	ck_assert_int_eq(ftruncate(fd, 4 * MiB), 0);
	close(fd);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		struct rlimit lim = { limit, limit };
		struct lfa_job_options opt = { LFA_EMULATE_ALWAYS, 0, 0, 0, 0, 0, 0, 0 };
		struct lfa_job_report rep;

		fd = open(p, O_RDWR);
		if (setrlimit(RLIMIT_FSIZE, &lim) != 0)
			_exit(100);
		_exit(lfa_run_job("test", fd, offset, len, INT64_MAX, &opt, &rep));
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFEXITED(status), "killed by signal %d", WTERMSIG(status));
	ck_assert_int_eq(WEXITSTATUS(status), want);
	expect_file(p, 4 * MiB, 0, 0, 0);
}

START_TEST(fsize_limit_inside_old_size)
{
	run_with_fsize_limit(MiB, 2 * MiB, MiB, EFBIG);
	run_with_fsize_limit(MiB + 100, 0, MiB + 100, 0);
}
END_TEST

START_TEST(progress_reaches_total_without_writes)
{
	const char *p = fresh("progress-none");
	struct progress_log log = { 0, 0, 0, 0 };
	struct lfa_job_options opt = { LFA_EMULATE_ALWAYS, log_progress, &log, 0, 0, 0, 0, 0 };
	int fd;

	write_pattern_at(p, 0, 100, 12);
	fd = open(p, O_RDWR);
	ck_assert_int_eq(lfa_run_job("test", fd, 0, 100, INT64_MAX, &opt, &last), 0);
	close(fd);
	ck_assert_uint_eq(log.last_done, 100);
	ck_assert_int_eq(log.finals, 1);
	ck_assert_uint_eq(log.total, 100);
}
END_TEST

/* An immutable file (chattr +i after the descriptor was opened): EPERM,
 * as the kernel says, even when nothing would need writing. */
START_TEST(immutable_file)
{
	const char *p = fresh("immutable");
	struct lfa_job_options opt = { LFA_EMULATE_ALWAYS, 0, 0, 0, 0, 0, 0, 0 };
	struct lfa_job_report rep;
	/* The kernel reads and writes an int; the ioctl numbers say long, and
	 * valgrind checks that many bytes: the padding is initialized. */
	struct { int v, pad; } flags = { 0, 0 }, on = { 0, 0 };
	int fd, err;

	write_pattern_at(p, 0, 8192, 13);
	fd = open(p, O_RDWR);
	if (ioctl(fd, FS_IOC_GETFLAGS, &flags.v) != 0 ||
	    (on.v = flags.v | FS_IMMUTABLE_FL, ioctl(fd, FS_IOC_SETFLAGS, &on.v)) != 0) {
		fprintf(stderr, "skipping immutable: %s\n", strerror(errno));
		close(fd);
		return;
	}
	err = lfa_run_job("test", fd, 0, 4096, INT64_MAX, &opt, &rep);
	ioctl(fd, FS_IOC_SETFLAGS, &flags.v);
	close(fd);
	ck_assert_int_eq(err, EPERM);
	expect_file(p, 8192, 0, 8192, 13);
}
END_TEST

/* The last block below INT64_MAX, on ramfs where the old range is read
 * back: no offset arithmetic may overflow.  Needs root to mount ramfs. */
START_TEST(near_int64_max_on_ramfs)
{
	char dir[4096], path[4200];
	struct stat64 st;
	struct lfa_job_options opt = { LFA_EMULATE_ALWAYS, 0, 0, 0, 0, 0, 0, 0 };
	struct lfa_job_report rep;
	unsigned char byte = 0;
	int fd, err;

	if (scratch_ramfs(dir, sizeof dir, "INT64_MAX on ramfs") != 0)
		return;
	snprintf(path, sizeof path, "%s/f", dir);
	fd = open(path, O_RDWR | O_CREAT | O_LARGEFILE, 0600);
	ck_assert_int_eq(ftruncate64(fd, INT64_MAX - 10), 0);
	ck_assert_int_eq(pwrite64(fd, "x", 1, INT64_MAX - 11), 1);
	err = lfa_run_job("test", fd, INT64_MAX - 100, 100, INT64_MAX, &opt, &rep);
	ck_assert_int_eq(fstat64(fd, &st), 0);
	ck_assert_int_eq(st.st_size, INT64_MAX);
	ck_assert_int_eq(pread64(fd, &byte, 1, INT64_MAX - 11), 1);
	close(fd);
	unmount_scratch_ramfs(dir);
	ck_assert_int_eq(err, 0);
	ck_assert_int_eq(byte, 'x');
	ck_assert_int_eq(rep.hole_map, LFA_MAP_READ);
}
END_TEST


/* --- what a mount's filesystem is, remembered by its unique id ---------- */

static uint32_t fs_type_of(int fd)
{
	struct statfs sf;

	ck_assert_int_eq(fstatfs(fd, &sf), 0);
	return (uint32_t)sf.f_type;
}

/* Two ids that share a slot of the table (eight, picked by a hash). */
static uint64_t id_in_the_same_slot(uint64_t id)
{
	uint64_t other;

	for (other = id + 1;; other++)
		if ((other * 0x9E3779B97F4A7C15ull) >> 61 == (id * 0x9E3779B97F4A7C15ull) >> 61)
			return other;
}

/* One with the same low 32 bits and slot, another high half: the slot keeps
 * the id as two 32-bit halves, and both must match. */
static uint64_t id_differing_high(uint64_t id)
{
	uint64_t other;

	for (other = id + ((uint64_t)1 << 32);; other += (uint64_t)1 << 32)
		if ((other * 0x9E3779B97F4A7C15ull) >> 61 == (id * 0x9E3779B97F4A7C15ull) >> 61)
			return other;
}

/* A mount's filesystem is asked once, then remembered until another mount
 * takes its slot; without a unique id (0), it is asked every time. */
/* Two descriptors on filesystems of different types wherever the tests run
 * ($TMPDIR may be tmpfs): a scratch file and a pipe (pipefs). */
static void two_filesystems(int *disk, int *other, const char *name)
{
	int p[2];

	*disk = open(scratch_path(name), O_RDWR | O_CREAT, 0600);
	ck_assert_int_ge(*disk, 0);
	ck_assert_int_eq(pipe2(p, O_CLOEXEC), 0);
	close(p[1]);
	*other = p[0];
	ck_assert_uint_ne(fs_type_of(*disk), fs_type_of(*other));
}

START_TEST(mount_facts_remembered_by_unique_id)
{
	int disk, mem;
	uint64_t a = 1001, b = id_in_the_same_slot(a);
	unsigned syscalls;
	uint32_t type;
	int64_t block;
	int i;

	two_filesystems(&disk, &mem, "facts");
	for (i = 0; i < 2; i++) {
		syscalls = 0;
		ck_assert_int_eq(lfa_mount_facts(disk, a, &type, &block, &syscalls), 0);
		ck_assert_uint_eq(type, fs_type_of(disk));
		ck_assert_int_gt(block, 0);
		ck_assert_uint_eq(syscalls, i == 0 ? 1 : 0);
	}
	syscalls = 0;
	ck_assert_int_eq(lfa_mount_facts(mem, b, &type, &block, &syscalls), 0);
	ck_assert_uint_eq(type, fs_type_of(mem));
	ck_assert_uint_eq(syscalls, 1);
	syscalls = 0;
	ck_assert_int_eq(lfa_mount_facts(disk, a, &type, &block, &syscalls), 0);
	ck_assert_uint_eq(type, fs_type_of(disk));
	ck_assert_uint_eq(syscalls, 1);
	/* A mount whose id differs from a's in its high half only, when a
	 * holds the slot: a's facts must not answer for it (the pipe's
	 * filesystem is another type). */
	syscalls = 0;
	ck_assert_int_eq(lfa_mount_facts(mem, id_differing_high(a), &type, &block, &syscalls), 0);
	ck_assert_uint_eq(type, fs_type_of(mem));
	ck_assert_uint_eq(syscalls, 1);
	for (i = 0; i < 2; i++) {
		syscalls = 0;
		ck_assert_int_eq(lfa_mount_facts(mem, 0, &type, &block, &syscalls), 0);
		ck_assert_uint_eq(type, fs_type_of(mem));
		ck_assert_uint_eq(syscalls, 1);
	}
	close(disk);
	close(mem);
}
END_TEST

struct facts_racer {
	int fd;
	uint64_t id;
	uint32_t want;
	long wrong, asked;
	int *ready;
};

static void *race_facts(void *arg)
{
	struct facts_racer *r = arg;
	unsigned syscalls = 0;
	uint32_t type;
	int64_t block;
	int i;

	/* Both at once: a spin, not a barrier, whose sleeping thread a VM
	 * may wake only after the other's loop has ended. */
	__atomic_add_fetch(r->ready, 1, __ATOMIC_ACQ_REL);
	while (__atomic_load_n(r->ready, __ATOMIC_ACQUIRE) < 2)
		sched_yield();
	for (i = 0; i < 400000; i++) {
		if (lfa_mount_facts(r->fd, r->id, &type, &block, &syscalls) != 0 || type != r->want)
			r->wrong++;
	}
	r->asked = syscalls;
	return NULL;
}

/* Threads whose mounts share a slot take it from each other all the time:
 * each still gets its own mount's answer, every time. */
START_TEST(mount_facts_never_mixed_between_threads)
{
	struct facts_racer r[2];
	pthread_t t[2];
	int i, ready = 0;

	two_filesystems(&r[0].fd, &r[1].fd, "facts-race");
	r[0].id = 2002;
	r[1].id = id_in_the_same_slot(2002);
	for (i = 0; i < 2; i++) {
		r[i].want = fs_type_of(r[i].fd);
		r[i].wrong = 0;
		r[i].ready = &ready;
		ck_assert_int_eq(pthread_create(&t[i], NULL, race_facts, &r[i]), 0);
	}
	for (i = 0; i < 2; i++) {
		pthread_join(t[i], NULL);
		ck_assert_msg(r[i].wrong == 0, "thread %d got another mount's filesystem %ld times",
			      i, r[i].wrong);
		close(r[i].fd);
	}
	fprintf(stderr, "# mount facts: fstatfs %ld and %ld times in 2 x 400000 lookups\n",
		r[0].asked, r[1].asked);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("emulate");
	TCase *tc = tcase_create("forced");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, new_file);
	tcase_add_test(tc, unaligned_range_beyond_end);
	tcase_add_test(tc, written_file_is_not_rewritten);
	tcase_add_test(tc, sparse_file);
	tcase_add_test(tc, range_inside_keeps_size);
	tcase_add_test(tc, write_only_descriptor);
	tcase_add_test(tc, append_descriptor);
	tcase_add_test(tc, direct_descriptor);
	tcase_add_test(tc, dsync_descriptor_writes_few_times);
	tcase_add_test(tc, cancel_keeps_a_prefix);
	tcase_add_test(tc, progress_reaches_total);
	tcase_add_test(tc, progress_reaches_total_without_writes);
	tcase_add_test(tc, reopen_finds_the_callers_file);
	tcase_add_test(tc, fsize_limit_inside_old_size);
	tcase_add_test(tc, immutable_file);
	tcase_add_test(tc, near_int64_max_on_ramfs);
	tcase_add_test(tc, mount_facts_remembered_by_unique_id);
	tcase_add_test(tc, mount_facts_never_mixed_between_threads);
	tcase_add_test(tc, foreign_caller_rules);
	tcase_add_test(tc, mount_table_walk);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
