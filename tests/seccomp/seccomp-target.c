/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright (C) 2026 the libfallocate authors (see AUTHORS) */
/* A program for tests/seccomp/preload-seccomp.sh, built there statically (glibc and
 * musl), so LD_PRELOAD never reaches it:
 *   seccomp-target posix FILE LEN [rdwr|wronly|append]   posix_fallocate
 *   seccomp-target fallocate FILE LEN                     fallocate, mode 0
 *   seccomp-target threads DIR N LEN     N threads at once, one file each
 *   seccomp-target interrupt FILE LEN    SIGALRM (no SA_RESTART) mid-call
 *   seccomp-target wait-int              counts SIGINTs, exits 5
 *   seccomp-target undumpable FILE LEN   fallocate after PR_SET_DUMPABLE 0
 *   seccomp-target at FILE OFFSET LEN    fallocate, mode 0, at OFFSET (this
 *                                        program's off_t: 32 bits in an i386
 *                                        build without _FILE_OFFSET_BITS)
 *   seccomp-target holes FILE N          N pieces of data 1 KiB long, 1 KiB apart
 *   seccomp-target parallel LONG SHORT   fallocate over all of LONG (a file
 *       of holes) on one thread; once it has begun filling them, 4 KiB of
 *       SHORT on another, timed; then when each ended
 *   seccomp-target two-ids FILE_A FILE_B LEN   at once: one thread that took
 *       fsuid and fsgid 65534 (raw syscalls: that thread alone, which drops
 *       its filesystem capabilities) grows FILE_A; another, as the process
 *       is, grows FILE_B
 *   seccomp-target switch-ids LEN FILE...   one thread, one call after
 *       another: grows the first third of the FILEs as the process is, the
 *       second after taking fsuid and fsgid 65534 (raw), the last after
 *       taking 0 back
 *   seccomp-target reuse-tid LEN A... B...   (as root, the only process of
 *       a PID namespace but for its supervisor) a thread with fsuid and
 *       fsgid 65534 grows the files A, one call after another, and ends;
 *       a thread given its tid (ns_last_pid), as root, grows the files B
 *   seccomp-target queue DIR N LEN SHORT...   (tests/seccomp/seccomp-queue.sh)
 *       freezes DIR's filesystem, has N threads grow DIR/h0... to LEN
 *       there (held by the freeze), then 4 KiB of each SHORT; exits 77
 *       where the machine cannot show it
 * Each prints its result; exit status 0 when the call succeeded. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static int open_file(const char *path, const char *how)
{
	int flags = O_RDWR;

	if (how && !strcmp(how, "wronly"))
		flags = O_WRONLY;
	else if (how && !strcmp(how, "append"))
		flags = O_WRONLY | O_APPEND;
	return open(path, flags | O_CREAT, 0644);
}

/* Size exactly len and zeros throughout (the file starts empty). */
static const char *check_file(int fd, off_t len)
{
	static char buf[65536];
	struct stat st;
	off_t pos = 0;
	ssize_t n, i;
	int rfd;
	char path[64];

	if (fstat(fd, &st) != 0 || st.st_size != len)
		return "wrong size";
	snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
	if ((rfd = open(path, O_RDONLY)) < 0)
		return "cannot reopen to read";
	while ((n = pread(rfd, buf, sizeof buf, pos)) > 0) {
		for (i = 0; i < n; i++)
			if (buf[i]) {
				close(rfd);
				return "a nonzero byte";
			}
		pos += n;
	}
	close(rfd);
	return pos == len ? NULL : "short read";
}

struct job {
	char path[4096];
	off_t len;
	int err;
	const char *bad;
};
static pthread_barrier_t start;

static void *thread_main(void *arg)
{
	struct job *j = arg;
	int fd = open_file(j->path, NULL);

	pthread_barrier_wait(&start);
	if (fd < 0) {
		j->err = errno;
		return NULL;
	}
	j->err = fallocate(fd, 0, 0, j->len) ? errno : 0;
	if (!j->err)
		j->bad = check_file(fd, j->len);
	close(fd);
	return NULL;
}

static int threads(const char *dir, int n, off_t len)
{
	struct job *jobs = calloc((size_t)n, sizeof *jobs);
	pthread_t *t = calloc((size_t)n, sizeof *t);
	int i, ok = 0;

	pthread_barrier_init(&start, NULL, (unsigned)n);
	for (i = 0; i < n; i++) {
		snprintf(jobs[i].path, sizeof jobs[i].path, "%s/t%d", dir, i);
		/* Each file its own length: a mixed-up answer shows. */
		jobs[i].len = len + (off_t)i * 4096;
		pthread_create(&t[i], NULL, thread_main, &jobs[i]);
	}
	for (i = 0; i < n; i++) {
		pthread_join(t[i], NULL);
		if (jobs[i].err)
			printf("thread %d: fallocate: %s\n", i, strerror(jobs[i].err));
		else if (jobs[i].bad)
			printf("thread %d: %s\n", i, jobs[i].bad);
		else
			ok++;
	}
	printf("threads: %d of %d right\n", ok, n);
	return ok == n ? 0 : 1;
}

static volatile sig_atomic_t signals;

static void count(int sig)
{
	(void)sig;
	signals++;
}

static int interrupt(const char *path, off_t len)
{
	struct sigaction sa;
	struct itimerval it = { { 0, 2000 }, { 0, 2000 } }; /* every 2 ms */
	const char *bad = NULL;
	int fd = open_file(path, NULL), err;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = count; /* no SA_RESTART: an interrupted call says EINTR */
	sigaction(SIGALRM, &sa, NULL);
	setitimer(ITIMER_REAL, &it, NULL);
	err = fallocate(fd, 0, 0, len) ? errno : 0;
	memset(&it, 0, sizeof it);
	setitimer(ITIMER_REAL, &it, NULL);
	if (!err)
		bad = check_file(fd, len);
	printf("interrupt: %s, %d signals, file %s\n", err ? strerror(err) : "0", (int)signals,
	       bad ? bad : "right");
	/* Done only when wholly done; EINTR is "not done", never success. */
	return bad || (err && err != EINTR) ? 1 : 0;
}

static int wait_int(void)
{
	struct sigaction sa;
	int i;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = count;
	sigaction(SIGINT, &sa, NULL);
	printf("ready\n");
	fflush(stdout);
	for (i = 0; i < 1000 && !signals; i++)
		usleep(10000);
	usleep(300000); /* a second copy of the signal would arrive meanwhile */
	printf("sigint: %d\n", (int)signals);
	return 5;
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int holes(const char *path, long n)
{
	static char data[1024];
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	long i;

	memset(data, 'x', sizeof data);
	for (i = 0; fd >= 0 && i < n; i++)
		if (pwrite(fd, data, sizeof data, (off_t)i * 2048) != (ssize_t)sizeof data)
			return 1;
	/* The last piece a hole too: the file's size is n * 2 KiB. */
	return fd < 0 || ftruncate(fd, (off_t)n * 2048) != 0 || close(fd) != 0;
}

struct long_call {
	int fd, err;
	off_t len;
	double end;
};

static void *long_main(void *arg)
{
	struct long_call *l = arg;

	l->err = fallocate(l->fd, 0, 0, l->len) ? errno : 0;
	l->end = now_ms();
	return NULL;
}

/* The long call has begun when the holes start to fill: the supervisor is
 * writing for it.  The short call is then timed, and the long one's end
 * compared with the short one's: a short call served only after the long
 * one ends after it. */
static int parallel(const char *long_path, const char *short_path)
{
	struct long_call l;
	struct stat st;
	pthread_t t;
	blkcnt_t before;
	double t0, t1;
	int fd, err, i;

	if ((l.fd = open(long_path, O_RDWR)) < 0 || fstat(l.fd, &st) != 0 ||
	    (fd = open(short_path, O_RDWR | O_CREAT, 0644)) < 0) {
		perror("open");
		return 2;
	}
	l.len = st.st_size;
	before = st.st_blocks;
	pthread_create(&t, NULL, long_main, &l);
	for (i = 0; i < 60000; i++) {
		if (fstat(l.fd, &st) == 0 && st.st_blocks > before)
			break;
		usleep(1000);
	}
	printf("long: begun\n");
	fflush(stdout);
	t0 = now_ms();
	err = fallocate(fd, 0, 0, 4096) ? errno : 0;
	t1 = now_ms();
	printf("short: %s in %.1f ms\n", err ? strerror(err) : "0", t1 - t0);
	fflush(stdout);
	pthread_join(t, NULL);
	printf("long: %s, ended %.0f ms after the short one\n", l.err ? strerror(l.err) : "0", l.end - t1);
	return err || l.err;
}

struct id_job {
	const char *path;
	off_t len;
	int nobody, err;
};

static void *id_main(void *arg)
{
	struct id_job *j = arg;
	int fd = open(j->path, O_RDWR);

	if (j->nobody) {
		syscall(SYS_setfsgid, 65534);
		syscall(SYS_setfsuid, 65534);
	}
	pthread_barrier_wait(&start);
	j->err = fd < 0 || fallocate(fd, 0, 0, j->len) ? errno : 0;
	return NULL;
}

static int two_ids(const char *a, const char *b, off_t len)
{
	struct id_job jobs[2] = { { a, len, 1, 0 }, { b, len, 0, 0 } };
	pthread_t t[2];
	int i;

	pthread_barrier_init(&start, NULL, 2);
	for (i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, id_main, &jobs[i]);
	for (i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	printf("fsuid 65534: %s; as the process: %s\n", jobs[0].err ? strerror(jobs[0].err) : "0",
	       jobs[1].err ? strerror(jobs[1].err) : "0");
	return jobs[0].err || jobs[1].err;
}

/* The same thread's identity changing between its calls: each call is
 * served as the thread is when it makes it, not as it was at its first. */
static int switch_ids(off_t len, char **paths, int n)
{
	static const long ids[3] = { -1, 65534, 0 };
	int err[3] = { 0, 0, 0 }, i, j, fd;

	for (i = 0; i < 3; i++) {
		if (ids[i] >= 0) {
			syscall(SYS_setfsgid, ids[i]);
			syscall(SYS_setfsuid, ids[i]);
		}
		for (j = i * (n / 3); j < (i + 1) * (n / 3) && !err[i]; j++) {
			fd = open(paths[j], O_RDWR);
			err[i] = fd < 0 || fallocate(fd, 0, 0, len) ? errno : 0;
			if (fd >= 0)
				close(fd);
		}
	}
	printf("as the process: %s; fsuid 65534: %s; fsuid 0 again: %s\n", err[0] ? strerror(err[0]) : "0",
	       err[1] ? strerror(err[1]) : "0", err[2] ? strerror(err[2]) : "0");
	return err[0] || err[1] || err[2];
}

/* A tid reused: the supervisor's workers keep the pidfd and status file
 * of the threads they served, and must serve the new thread with that tid
 * as itself. */
struct reuse_job {
	char **paths;
	int n;
	off_t len;
	int nobody;
	pid_t tid;
	int err;
};

static void *reuse_main(void *arg)
{
	struct reuse_job *j = arg;
	int i, fd;

	j->tid = (pid_t)syscall(SYS_gettid);
	if (j->nobody) {
		syscall(SYS_setfsgid, 65534);
		syscall(SYS_setfsuid, 65534);
	}
	for (i = 0; i < j->n && !j->err; i++) {
		fd = open(j->paths[i], O_RDWR);
		j->err = fd < 0 || fallocate(fd, 0, 0, j->len) ? errno : 0;
		if (fd >= 0)
			close(fd);
	}
	return NULL;
}

static int reuse_tid(off_t len, char **paths, int n)
{
	struct reuse_job a = { paths, n / 2, len, 1, 0, 0 }, b = { paths + n / 2, n / 2, len, 0, 0, 0 };
	pthread_t t;
	int tries, fd;
	char num[32];

	pthread_create(&t, NULL, reuse_main, &a);
	pthread_join(t, NULL);
	/* The supervisor's threads take pids of the namespace too: a few
	 * tries until the new thread has the tid. */
	for (tries = 0; tries < 20; tries++) {
		usleep(20000);
		if ((fd = open("/proc/sys/kernel/ns_last_pid", O_WRONLY)) < 0) {
			perror("ns_last_pid");
			return 77;
		}
		snprintf(num, sizeof num, "%ld", (long)a.tid - 1);
		if (write(fd, num, strlen(num)) < 0) {
			perror("ns_last_pid");
			return 77;
		}
		close(fd);
		pthread_create(&t, NULL, reuse_main, &b);
		pthread_join(t, NULL);
		if (b.tid == a.tid)
			break;
		if (b.err)
			break;
	}
	printf("tid %s; fsuid 65534: %s; root: %s\n", b.tid == a.tid ? "reused" : "not reused",
	       a.err ? strerror(a.err) : "0", b.err ? strerror(b.err) : "0");
	return b.tid != a.tid ? 77 : a.err || b.err;
}

/* queue: no call waits for another's in the supervisor (issue 31).  The N
 * calls on DIR's filesystem are held at a known point by freezing it
 * (FIFREEZE): the workers serving them block in the kernel (the engine's
 * first fallocate or write) until the thaw, which comes only at the end.
 * Each SHORT call (the kernel's own fallocate on ext4, an emulation on an
 * unfrozen ext3) must be answered meanwhile.  No clock decides.  The
 * moment every call has reached the supervisor is read from the kernel:
 * each caller asleep where the seccomp wait sleeps (learned from the first
 * held caller, once a worker serves it), the listener with no call left to
 * receive (a copy of it polled), the receiving thread back in poll since.
 * Then each call in progress must have a thread of the supervisor to
 * itself: a queue shows as fewer threads than calls, lasting while the
 * receiving thread (which alone starts workers) does not run between two
 * such looks, and the calls beyond them could only wait for the thaw.
 * Where a caller sleeps is learned rather than named (the function, not
 * the offset: with WAIT_KILLABLE_RECV a received caller sleeps again
 * elsewhere in it; its lock, taken before the call is listed, is why a
 * shortfall must last two looks).  Then, frozen still, the short calls
 * must end, and every held call reach the filesystem. */
#include <dirent.h>
#include <poll.h>
#include <sys/ioctl.h>
/* Debian's musl-gcc sees no Linux headers: the freeze's two requests are
 * the kernel's ABI, spelled out where <linux/fs.h> cannot be had. */
#if defined(__has_include) && __has_include(<linux/fs.h>)
#include <linux/fs.h>
#endif
#ifndef FIFREEZE
#define FIFREEZE _IOWR('X', 119, int)
#endif
#ifndef FITHAW
#define FITHAW _IOWR('X', 120, int)
#endif

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SYS_pidfd_getfd
#define SYS_pidfd_getfd 438
#endif

struct q_call {
	int fd;
	off_t len;
	pid_t tid;
	int started, done, err;
	double ms;
};

static void *q_main(void *arg)
{
	struct q_call *c = arg;
	double t0;

	__atomic_store_n(&c->tid, (pid_t)syscall(SYS_gettid), __ATOMIC_SEQ_CST);
	t0 = now_ms();
	c->err = fallocate(c->fd, 0, 0, c->len) ? errno : 0;
	c->ms = now_ms() - t0;
	__atomic_store_n(&c->done, 1, __ATOMIC_SEQ_CST);
	return NULL;
}

/* The first line of a /proc file, "" when unreadable. */
static void q_line(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "re");

	buf[0] = 0;
	if (f) {
		if (!fgets(buf, (int)size, f))
			buf[0] = 0;
		fclose(f);
	}
	buf[strcspn(buf, "\n")] = 0;
}

/* A thread's state letter (R, S, D...), 0 when gone. */
static char q_state(pid_t pid, pid_t tid)
{
	char path[64], line[512], *p;

	snprintf(path, sizeof path, "/proc/%ld/task/%ld/stat", (long)pid, (long)tid);
	q_line(path, line, sizeof line);
	p = strrchr(line, ')');
	return p && p[1] == ' ' ? p[2] : 0;
}

/* Where a sleeping thread of ours sleeps in the kernel: the top line of its
 * stack ("" while it runs). */
static void q_where(pid_t tid, char *buf, size_t size)
{
	char path[64], *p;
	char st = q_state(getpid(), tid);

	buf[0] = 0;
	if (st != 'S' && st != 'D')
		return;
	snprintf(path, sizeof path, "/proc/self/task/%ld/stack", (long)tid);
	q_line(path, buf, size);
	/* "[<0>] function+offset/size": the address is hidden, the rest
	 * names the place. */
	if ((p = strstr(buf, "] ")))
		memmove(buf, p + 2, strlen(p + 2) + 1);
	if (q_state(getpid(), tid) != st)
		buf[0] = 0;
}

/* The supervisor's threads: *d of them in uninterruptible sleep. */
static int q_threads(pid_t sup, int *d)
{
	char path[64];
	struct dirent *e;
	DIR *dir;
	int n = 0;

	snprintf(path, sizeof path, "/proc/%ld/task", (long)sup);
	*d = 0;
	if (!(dir = opendir(path)))
		return -1;
	while ((e = readdir(dir)))
		if (e->d_name[0] != '.') {
			n++;
			*d += q_state(sup, (pid_t)atol(e->d_name)) == 'D';
		}
	closedir(dir);
	return n;
}

/* How often the receiving thread has been switched out: unchanged, it
 * has not run in between. */
static long q_switches(pid_t sup)
{
	char path[64], line[256];
	long v, total = 0;
	FILE *f;

	snprintf(path, sizeof path, "/proc/%ld/task/%ld/status", (long)sup, (long)sup);
	if (!(f = fopen(path, "re")))
		return -1;
	while (fgets(line, sizeof line, f))
		if (sscanf(line, "voluntary_ctxt_switches: %ld", &v) == 1 ||
		    sscanf(line, "nonvoluntary_ctxt_switches: %ld", &v) == 1)
			total += v;
	fclose(f);
	return total;
}

/* The receiving thread (the supervisor's first) asleep in poll. */
static int q_receiver_polls(pid_t sup)
{
	char path[64], line[512];
	long nr;

	snprintf(path, sizeof path, "/proc/%ld/task/%ld/syscall", (long)sup, (long)sup);
	q_line(path, line, sizeof line);
	if (sscanf(line, "%ld", &nr) != 1 || q_state(sup, sup) != 'S')
		return 0;
#ifdef SYS_poll
	if (nr == SYS_poll)
		return 1;
#endif
	return nr == SYS_ppoll;
}

/* The supervisor's listener, copied: polled, it says whether a call waits
 * to be received.  -1 and why. */
static int q_listener(pid_t sup, const char **why)
{
	char path[320], link[128];
	struct dirent *e;
	DIR *dir;
	int pidfd, fd = -1;
	ssize_t n;

	snprintf(path, sizeof path, "/proc/%ld/fd", (long)sup);
	*why = "the supervisor's descriptors cannot be read";
	if (!(dir = opendir(path)))
		return -1;
	while (fd < 0 && (e = readdir(dir))) {
		snprintf(path, sizeof path, "/proc/%ld/fd/%s", (long)sup, e->d_name);
		n = readlink(path, link, sizeof link - 1);
		if (n > 0 && (link[n] = 0, !strcmp(link, "anon_inode:seccomp notify")))
			fd = atoi(e->d_name);
	}
	closedir(dir);
	*why = "no listener found in the supervisor";
	if (fd < 0)
		return -1;
	*why = "pidfd_getfd of the supervisor's listener refused";
	pidfd = (int)syscall(SYS_pidfd_open, sup, 0);
	if (pidfd < 0)
		return -1;
	fd = (int)syscall(SYS_pidfd_getfd, pidfd, fd, 0);
	close(pidfd);
	return fd;
}

/* Asleep in the function where the first caller waits ("name+off/size"):
 * its first wait, or the killable one a received call sleeps in under
 * WAIT_KILLABLE_RECV; or, for an instant, on the lock taken before the
 * call is listed, which the second look of queue() makes harmless. */
static int q_same_function(const char *where, const char *waiting)
{
	size_t len = strcspn(waiting, "+");

	return where[0] && !strncmp(where, waiting, len) && where[len] == '+';
}

/* A caller asleep in the kernel elsewhere than in the seccomp wait: the
 * supervisor let its call run in it (CONTINUE), frozen with the rest. */
static int q_outside_seccomp(pid_t tid)
{
	char path[64], line[256];
	FILE *f;
	int seccomp = 0;
	char st = q_state(getpid(), tid);

	if (st != 'S' && st != 'D')
		return 0;
	snprintf(path, sizeof path, "/proc/self/task/%ld/stack", (long)tid);
	if (!(f = fopen(path, "re")))
		return 0;
	while (fgets(line, sizeof line, f))
		seccomp |= strstr(line, "seccomp") != NULL;
	fclose(f);
	return !seccomp && q_state(getpid(), tid) == st;
}

/* Every call not done asleep where a seccomp caller waits, no call left to
 * receive, and the receiving thread in poll after that: it has handed over
 * every call (it polls only between calls).  1, 0 (not yet), or -1 when a
 * call runs in its caller. */
static int q_all_received(struct q_call *c, int n, const char *waiting, int listener, pid_t sup)
{
	struct pollfd p = { listener, POLLIN, 0 };
	char where[256];
	int i;

	for (i = 0; i < n; i++) {
		if (__atomic_load_n(&c[i].done, __ATOMIC_SEQ_CST))
			continue;
		if (!__atomic_load_n(&c[i].tid, __ATOMIC_SEQ_CST))
			return 0;
		q_where(c[i].tid, where, sizeof where);
		if (q_same_function(where, waiting) || __atomic_load_n(&c[i].done, __ATOMIC_SEQ_CST))
			continue;
		return q_outside_seccomp(c[i].tid) ? -1 : 0;
	}
	if (poll(&p, 1, 0) != 0)
		return 0;
	return q_receiver_polls(sup);
}

/* What was seen, for a failure's log. */
static void q_show(pid_t sup, struct q_call *c, int n, const char *waiting)
{
	char path[320], line[512], where[256];
	struct dirent *e;
	DIR *dir;
	int i;

	snprintf(path, sizeof path, "/proc/%ld/task", (long)sup);
	if ((dir = opendir(path))) {
		while ((e = readdir(dir)))
			if (e->d_name[0] != '.') {
				snprintf(path, sizeof path, "/proc/%ld/task/%s/syscall", (long)sup, e->d_name);
				q_line(path, line, sizeof line);
				line[strcspn(line, " ")] = 0;
				printf("supervisor thread %s: %c, syscall %s\n", e->d_name,
				       q_state(sup, (pid_t)atol(e->d_name)), line);

			}
		closedir(dir);
	}
	for (i = 0; i < n; i++) {
		q_where(c[i].tid, where, sizeof where);
		printf("call %d: thread %ld, %s, %s\n", i, (long)c[i].tid, c[i].done ? "done" : "in progress",
		       q_same_function(where, waiting) ? "in the seccomp wait" : where);
	}
}

static int q_fail(int dir, const char *what)
{
	ioctl(dir, FITHAW, 0);
	printf("%s\n", what);
	return 1;
}

static int queue(const char *dir_path, int n, off_t len, char **shorts, int n_shorts)
{
	struct q_call *c = calloc((size_t)(n + n_shorts), sizeof *c);
	pthread_t *t = calloc((size_t)(n + n_shorts), sizeof *t);
	pid_t sup = getppid();
	char path[4096], waiting[256], msg[512];
	const char *why;
	int dir, listener, i, threads, d, in_progress, received, bad = 0;
	long switches;

	/* Answered (EBADF), it shows the supervisor has its listener: the
	 * command may start before the supervisor has received it. */
	if (fallocate(-1, 0, 0, 4096) == 0 || errno != EBADF) {
		printf("skip: the supervisor does not answer: %s\n", strerror(errno));
		return 77;
	}
	listener = q_listener(sup, &why);
	if (listener < 0) {
		printf("skip: %s (%s)\n", why, strerror(errno));
		return 77;
	}
	snprintf(path, sizeof path, "/proc/self/task/%ld/stack", (long)getpid());
	q_line(path, waiting, sizeof waiting);
	if (!waiting[0]) {
		printf("skip: no kernel stacks in /proc (CONFIG_STACKTRACE, root)\n");
		return 77;
	}
	for (i = 0; i < n + n_shorts; i++) {
		if (i < n)
			snprintf(path, sizeof path, "%s/h%d", dir_path, i);
		else
			snprintf(path, sizeof path, "%s", shorts[i - n]);
		c[i].len = i < n ? len : 4096;
		if ((c[i].fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644)) < 0) {
			perror(path);
			return 2;
		}
	}
	if ((dir = open(dir_path, O_RDONLY | O_DIRECTORY)) < 0 || ioctl(dir, FIFREEZE, 0) != 0) {
		printf("skip: cannot freeze %s: %s\n", dir_path, strerror(errno));
		return 77;
	}
	/* The first held call, alone: once a worker serves it, its caller
	 * sleeps where every caller whose call was received sleeps. */
	pthread_create(&t[0], NULL, q_main, &c[0]);
	for (;;) {
		threads = q_threads(sup, &d);
		q_where(__atomic_load_n(&c[0].tid, __ATOMIC_SEQ_CST), waiting, sizeof waiting);
		if (__atomic_load_n(&c[0].done, __ATOMIC_SEQ_CST))
			return q_fail(dir, "the first held call ended on a frozen filesystem");
		if (threads > 1 && d > 0 && strstr(waiting, "seccomp"))
			break;
		usleep(1000);
	}
	for (i = 1; i < n; i++)
		pthread_create(&t[i], NULL, q_main, &c[i]);
	while ((received = q_all_received(c, n, waiting, listener, sup)) == 0)
		usleep(1000);
	/* The short calls come when every worker there was is busy. */
	for (i = n; received > 0 && i < n + n_shorts; i++)
		pthread_create(&t[i], NULL, q_main, &c[i]);
	while (received > 0 && (received = q_all_received(c, n + n_shorts, waiting, listener, sup)) == 0)
		usleep(1000);
	if (received < 0) {
		/* Thawed, the calls started end; the others never start. */
		q_fail(dir, "a call was not served by the supervisor but run in its caller (the kernel's own call)");
		for (i = 0; i < n + n_shorts; i++)
			if (__atomic_load_n(&c[i].tid, __ATOMIC_SEQ_CST) || i < n)
				pthread_join(t[i], NULL);
		return 1;
	}
	/* Fewer threads than calls is a queue only if it lasts while the
	 * receiving thread, asleep in poll with nothing to receive, does not
	 * run at all between two such looks: it alone starts workers. */
	for (;;) {
		switches = q_switches(sup);
		threads = q_threads(sup, &d) - 1;
		for (i = in_progress = 0; i < n + n_shorts; i++)
			in_progress += !__atomic_load_n(&c[i].done, __ATOMIC_SEQ_CST);
		if (threads >= in_progress)
			break;
		while (q_all_received(c, n + n_shorts, waiting, listener, sup) <= 0)
			usleep(1000);
		if (q_switches(sup) == switches && q_threads(sup, &d) - 1 == threads)
			break;
	}
	if (threads < in_progress) {
		q_show(sup, c, n + n_shorts, waiting);
		snprintf(msg, sizeof msg, "queued: %d calls in progress, received by the supervisor, and %d threads"
			 " to serve them: the others wait for a busy worker", in_progress, threads);
		bad = q_fail(dir, msg);
	}
	for (i = n; !bad && i < n + n_shorts; i++)
		while (!__atomic_load_n(&c[i].done, __ATOMIC_SEQ_CST))
			usleep(1000);
	/* Frozen still: every held call is in the kernel, none answered. */
	while (!bad && (q_threads(sup, &d), d < n))
		usleep(1000);
	for (i = 0; !bad && i < n; i++)
		if (__atomic_load_n(&c[i].done, __ATOMIC_SEQ_CST))
			bad = q_fail(dir, "a held call ended on a frozen filesystem");
	if (!bad && ioctl(dir, FITHAW, 0) != 0)
		bad = q_fail(dir, "cannot thaw");
	for (i = 0; i < n + n_shorts; i++)
		pthread_join(t[i], NULL);
	for (i = 0; i < n + n_shorts; i++) {
		const char *wrong = c[i].err ? strerror(c[i].err) : check_file(c[i].fd, c[i].len);

		if (wrong) {
			printf("call %d: %s\n", i, wrong);
			bad = 1;
		}
	}
	if (bad)
		return 1;
	for (i = n; i < n + n_shorts; i++)
		printf("short %s: 0 in %.1f ms, while %d calls were held\n", shorts[i - n], c[i].ms, n);
	printf("queue: %d held calls all in the kernel at once, %d short calls answered meanwhile\n", n, n_shorts);
	return 0;
}

int main(int argc, char **argv)
{
	int fd, err;

	if (argc >= 4 && !strcmp(argv[1], "posix")) {
		fd = open_file(argv[2], argc > 4 ? argv[4] : NULL);
		err = fd < 0 ? errno : posix_fallocate(fd, 0, atoll(argv[3]));
		printf("posix_fallocate: %s\n", err ? strerror(err) : "0");
		return !!err;
	}
	if (argc == 4 && (!strcmp(argv[1], "fallocate") || !strcmp(argv[1], "undumpable"))) {
		if (argv[1][0] == 'u')
			prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
		fd = open_file(argv[2], NULL);
		err = fd < 0 || fallocate(fd, 0, 0, atoll(argv[3])) ? errno : 0;
		printf("fallocate: %s\n", err ? strerror(err) : "0");
		return !!err;
	}
	if (argc == 5 && !strcmp(argv[1], "threads"))
		return threads(argv[2], atoi(argv[3]), atoll(argv[4]));
	if (argc == 4 && !strcmp(argv[1], "interrupt"))
		return interrupt(argv[2], atoll(argv[3]));
	if (argc == 5 && !strcmp(argv[1], "at")) {
		fd = open_file(argv[2], NULL);
		err = fd < 0 || fallocate(fd, 0, (off_t)atoll(argv[3]), (off_t)atoll(argv[4])) ? errno : 0;
		printf("fallocate: %s\n", err ? strerror(err) : "0");
		return !!err;
	}
	if (argc == 4 && !strcmp(argv[1], "holes"))
		return holes(argv[2], atol(argv[3]));
	if (argc == 5 && !strcmp(argv[1], "two-ids"))
		return two_ids(argv[2], argv[3], atoll(argv[4]));
	if (argc >= 6 && !strcmp(argv[1], "switch-ids"))
		return switch_ids(atoll(argv[2]), argv + 3, argc - 3);
	if (argc >= 5 && !strcmp(argv[1], "reuse-tid"))
		return reuse_tid(atoll(argv[2]), argv + 3, argc - 3);
	if (argc >= 6 && !strcmp(argv[1], "queue"))
		return queue(argv[2], atoi(argv[3]), atoll(argv[4]), argv + 5, argc - 5);
	if (argc == 4 && !strcmp(argv[1], "parallel"))
		return parallel(argv[2], argv[3]);
	if (argc == 2 && !strcmp(argv[1], "wait-int"))
		return wait_int();
	fprintf(stderr, "usage: see the comment in seccomp-target.c\n");
	return 2;
}
