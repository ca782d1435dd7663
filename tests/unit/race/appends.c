/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright (C) 2026 the libfallocate authors (see AUTHORS) */
/* check_race: other writers' and other machines' appends survive (issues 18 and 24). */
#include "harness.h"

/* --- issue 18: appends survive, loops end, the range is whole ------------ */

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

/* Issue 38's cross-client rule: another client's write still in flight
 * when the engine reads the file (NFSv3 sends a file's pages in parallel,
 * and a later one can land first, leaving a hole below that later data)
 * lands right after the read that found the hole.  On a filesystem shared
 * with other machines the engine reads such zeros again after a pause and
 * writes none over the data; on the main before, the data became zeros.
 * The act lands the data after every read that saw the hole, so the first
 * such read is the one that counts. */
static int64_t in_flight_at, in_flight_len;

static int land_in_flight(void)
{
	unsigned char *rec = malloc((size_t)in_flight_len), got;

	ck_assert(rec != NULL);
	ck_assert_int_eq(pread(other_fd, &got, 1, in_flight_at), 1);
	if (got == 0) { /* still a hole: this read saw it */
		memset(rec, 'R', (size_t)in_flight_len);
		put(other_fd, rec, in_flight_len, in_flight_at);
	}
	free(rec);
	return 0;
}

/* A file of size bytes, data but for [hole, hole + len), called over
 * [0, size) on a shared filesystem (FUSE: GlusterFS); with land, the
 * hole is another client's write in flight.  Returns the pauses taken. */
static int in_flight_case(const char *name, int64_t size, int64_t hole, int64_t len, int land)
{
	const char *p = fresh(name);
	unsigned char *want = pattern(size, 31);
	struct lfa_job_report rep;
	int fd = open(p, O_RDWR | O_CREAT | O_TRUNC, 0600), pauses;

	ck_assert_int_ge(fd, 0);
	put(fd, want, hole, 0);
	put(fd, want + hole + len, size - hole - len, hole + len);
	ck_assert_int_eq(ftruncate(fd, size), 0);
	memset(want + hole, land ? 'R' : 0, (size_t)len);
	other_fd = open(p, O_RDWR);
	ck_assert_int_ge(other_fd, 0);
	in_flight_at = hole;
	in_flight_len = len;
	if (land) {
		script("pread64", 1, 1, land_in_flight);
		hk.nth = -1; /* every read: see land_in_flight */
	} else {
		hook_reset();
	}
	case_fs_type = 0x65735546; /* FUSE: GlusterFS, shared */
	memset(&rep, 0, sizeof rep);
	ck_assert_int_eq(job(fd, 0, size, &rep, NULL), 0);
	case_fs_type = 0;
	pauses = naps;
	ck_assert_int_eq(rep.hole_map, LFA_MAP_READ);
	expect_bytes(p, want, size);
	close(fd);
	close(other_fd);
	other_fd = -1;
	free(want);
	return pauses;
}

START_TEST(write_in_flight_on_a_shared_fs_survives)
{
	/* Data after the hole in the same piece. */
	ck_assert_int_ge(in_flight_case("in-flight", 192 * KiB, 64 * KiB, 64 * KiB, 1), 1);
	/* The hole runs to the end of the first 256 KiB piece: a piece read
	 * from its start shows what follows it (here the data, landed). */
	(void)in_flight_case("in-flight-long", 384 * KiB, 128 * KiB, 192 * KiB, 1);
	/* At the end of file, inside its size (ceph-fuse publishes the size
	 * before the data). */
	ck_assert_int_ge(in_flight_case("in-flight-tail", 192 * KiB, 128 * KiB, 64 * KiB, 1), 1);
}
END_TEST

/* The pause costs nothing where zeros cannot be a write in flight: whole
 * pieces of zeros (a range the kernel's 0 just grew on ceph-fuse, a long
 * hole); they are filled all the same.  Elsewhere one pause a piece. */
START_TEST(no_pause_for_whole_pieces_of_zeros)
{
	ck_assert_int_eq(in_flight_case("zeros-whole", 1024 * KiB, 256 * KiB, 512 * KiB, 0), 0);
	ck_assert_int_eq(in_flight_case("zeros-inside", 192 * KiB, 64 * KiB, 64 * KiB, 0), 1);
	ck_assert_int_eq(in_flight_case("zeros-to-end", 192 * KiB, 64 * KiB, 128 * KiB, 0), 1);
	/* The piece read from the zeros' start: a whole piece of them. */
	ck_assert_int_eq(in_flight_case("zeros-late", 1024 * KiB, 128 * KiB, 512 * KiB, 0), 0);
}
END_TEST

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

void race_appends_tests(TCase *tc)
{
	tcase_add_test(tc, append_between_look_and_write_survives);
	tcase_add_test(tc, overlay_dropping_rwf_append_keeps_appends);
	tcase_add_test(tc, other_clients_append_survives);
	tcase_add_test(tc, write_in_flight_on_a_shared_fs_survives);
	tcase_add_test(tc, no_pause_for_whole_pieces_of_zeros);
	tcase_add_test(tc, shared_fs_reopen_stays_invisible);
	tcase_add_test(tc, shared_fs_reopens_once_local_never);
	tcase_add_test(tc, shared_fs_without_a_reopen_still_appends);
	tcase_add_test(tc, setfl_append_mid_call);
	tcase_add_test(tc, setfl_append_mid_call_without_noappend);
}
