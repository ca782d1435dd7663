# shellcheck shell=sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 the libfallocate authors (see AUTHORS)
# A throwaway single-node Ceph on 127.0.0.1 with a CephFS (issue 38), for
# the tests of ceph-fuse.  POSIX sh, sourced after tests/lib/lib.sh (skip,
# fail, note, on_exit, $scratch); safe under set -eu.  Root only: the
# callers check that.  Debian 12's Ceph 16.2: ceph-mon, ceph-osd, ceph-mds,
# ceph-fuse, ceph-common.
#
# One mon, one OSD on memstore (its data in the OSD's memory, at most
# CEPH_MEMSTORE_BYTES, default 512 MiB), one MDS, and no mgr: pools of one
# replica go active without one, and the mon alone serves everything used
# here (so `ceph -s` says HEALTH_WARN, no active mgr: nothing here reads
# it, and no mgr-only command is used: ceph fs status, ceph df, ceph pg).
# No authentication (auth none).  Every file Ceph writes (conf, data,
# logs, run dir, admin sockets, PID files) is under one directory, never
# /etc/ceph or /var/lib/ceph: every command is given -c $ceph_conf.
#
# ceph_start DIR: the cluster in DIR (made), its CephFS (pools
# $ceph_data_pool and $ceph_meta_pool) up:active; registers ceph_stop with
# on_exit.  Skips (77) with the reason where this machine cannot (a
# package or /dev/fuse missing, a daemon that cannot start for a reason of
# the machine), fails where it should have and did not.  Every wait is
# bounded.  Sets ceph_conf, ceph_dir, ceph_start_secs.
# ceph_mount DIR: one more ceph-fuse client (client.fuseN, its own admin
# socket and log) mounted at DIR (made), a fresh one: no cache shared with
# the others.  ceph_umount DIR ends one.
# ceph_objects FILE: the names of the RADOS objects of FILE (a path on a
# ceph-fuse mount) in the data pool, one a line, sorted: <inode in
# hex>.<object index, 8 hex digits>.  ceph_object_count FILE: how many.
# ceph_rados ARGS: rados on the data pool (ceph_rados stat OBJECT).
# ceph_rss: the daemons' resident memory, "mon.a=... osd.0=... mds.a=..."
# in KiB, and the clients'.
# ceph_since T: seconds (one decimal) since T, a date +%s.%N (ceph_t0 is
# the start of ceph_start).
# ceph_stop: unmounts every client, fails the filesystem (so that the MDS
# ends at TERM), ends every daemon by its recorded PID (TERM, 10 s, then
# KILL), removes the data; where a test fails half-way too (on_exit, and
# HUP, INT and TERM end the test through its EXIT trap).  About 5 s.
# CEPH_STOP_KILL=1: ceph_stop KILLs the daemons at once, without failing
# the filesystem first, for a cluster whose data and machine go anyway (a
# guest about to power off, tests/vm/guest-ceph.sh): under TCG every ceph
# CLI call takes 10 to 17 s, and the wait for the standby took 170 s.
#
# One cluster a test; several tests may run at once: the mon's port is
# free when chosen, the daemons' own ports are found by them.

ceph_dir="" ceph_conf="" ceph_pids="" ceph_clients="" ceph_nclients=0
ceph_data_pool=cephfs_data ceph_meta_pool=cephfs_metadata ceph_fs=lfa
ceph_start_secs="" ceph_t0="" ceph_fs_made=""
: "${CEPH_MEMSTORE_BYTES:=536870912}"

# Alive and not a zombie.
ceph_alive() {
	[ -r "/proc/$1/stat" ] && ! grep -q '^[0-9]* (.*) Z' "/proc/$1/stat" 2> /dev/null
}

ceph_wait_gone() { # PID TENTHS: waits up to TENTHS tenths of a second for PID to end
	_ce_n=0
	while ceph_alive "$1" && [ $_ce_n -lt "$2" ]; do
		sleep 0.1
		_ce_n=$((_ce_n + 1))
	done
}

ceph_end_pid() { # PID: TERM, then KILL after 10 s
	ceph_alive "$1" || { wait "$1" 2> /dev/null; return 0; }
	kill "$1" 2> /dev/null
	ceph_wait_gone "$1" 100
	if ceph_alive "$1"; then
		note "ceph: PID $1 ($(cat "/proc/$1/comm" 2> /dev/null)) ignored TERM for 10 s: KILL"
		kill -9 "$1" 2> /dev/null
	fi
	wait "$1" 2> /dev/null
	return 0
}

# The ceph CLI, bounded: the mon answers in well under a second here;
# --connect-timeout bounds the wait for a mon that is gone.
ceph_cli() {
	timeout 60 ceph -c "$ceph_conf" --connect-timeout 20 "$@"
}

# The last lines of a log, on one line, for a message.
ceph_log_tail() {
	tail -n "${2:-3}" "$1" 2> /dev/null | tr '\n' ' ' | cut -c 1-600
}

# A daemon started in the foreground (-f) in the background: our child,
# its PID known at once and recorded for ceph_stop.
ceph_daemon() { # NAME PROGRAM ARGS...
	_ce_name=$1
	shift
	"$@" -c "$ceph_conf" -f < /dev/null > "$ceph_dir/log/$_ce_name.out" 2>&1 &
	ceph_pids="$! $ceph_pids"
	eval "ceph_pid_$(echo "$_ce_name" | tr . _)=$!"
}

# Until COMMAND succeeds, every 0.2 s, at most SECS; fails with MESSAGE
# (and the log's last lines) where the daemon with PID has gone or the
# time is up.
ceph_wait() { # SECS PID LOG MESSAGE COMMAND...
	_ce_max=$(($1 * 5)) _ce_pid=$2 _ce_log=$3 _ce_msg=$4
	shift 4
	_ce_i=0
	until "$@" > /dev/null 2>&1; do
		if [ -n "$_ce_pid" ] && ! ceph_alive "$_ce_pid"; then
			wait "$_ce_pid" 2> /dev/null
			ceph_why "$_ce_msg: the daemon exited: $(ceph_log_tail "$_ce_log")"
		fi
		_ce_i=$((_ce_i + 1))
		[ $_ce_i -lt $_ce_max ] || fail "$_ce_msg: not within $((_ce_max / 5)) s: $(ceph_log_tail "$_ce_log")"
		sleep 0.2
	done
}

# A daemon that could not start: a skip where the cause is the machine's
# (no memory, no port, no FUSE), a failure otherwise.
ceph_why() {
	case $1 in
	*"Cannot allocate memory"* | *"Address already in use"* | *"fuse: device not found"* | \
		*"Operation not permitted"* | *"Permission denied"*)
		skip "ceph: $1" ;;
	*) fail "ceph: $1" ;;
	esac
}

ceph_start() { # DIR
	for _ce_c in ceph-mon ceph-osd ceph-mds ceph-fuse ceph monmaptool rados timeout uuidgen; do
		command -v "$_ce_c" > /dev/null 2>&1 ||
			skip "$_ce_c is not installed (ceph-mon, ceph-osd, ceph-mds, ceph-fuse, ceph-common)"
	done
	[ -c /dev/fuse ] || skip "no /dev/fuse (ceph-fuse)"
	grep -qw fuse /proc/filesystems || modprobe fuse 2> /dev/null || skip "the kernel has no FUSE"
	ceph_dir=$1
	ceph_conf=$ceph_dir/ceph.conf
	mkdir -p "$ceph_dir/mon" "$ceph_dir/osd" "$ceph_dir/mds" "$ceph_dir/log" "$ceph_dir/run" "$ceph_dir/mnt" ||
		fail "cannot write in $ceph_dir"
	on_exit ceph_stop
	# A test ended by a signal (a harness's timeout, ^C) runs its EXIT
	# trap too: no daemon outlives it.
	trap 'exit 129' HUP
	trap 'exit 130' INT
	trap 'exit 143' TERM
	ceph_t0=$(date +%s.%N)
	_ce_port=""
	for _ce_try in 1 2 3 4 5 6 7 8 9 10; do
		_ce_p=$(shuf -i 20000-60000 -n 1) || fail "shuf failed"
		if command -v ss > /dev/null 2>&1 && ss -Hltn "sport = :$_ce_p" 2> /dev/null | grep -q .; then
			continue
		fi
		_ce_port=$_ce_p
		break
	done
	[ -n "$_ce_port" ] || skip "no free port found for the mon"
	_ce_fsid=$(uuidgen)
	# msgr2 only (one port); 127.0.0.1 only.  The mon's data-space checks
	# are off: a nearly full /tmp is no concern of a throwaway cluster.
	cat > "$ceph_conf" <<-EOF || fail "cannot write $ceph_conf"
		[global]
		fsid = $_ce_fsid
		mon_host = v2:127.0.0.1:$_ce_port
		ms_bind_msgr1 = false
		ms_bind_msgr2 = true
		ms_bind_ipv4 = true
		ms_bind_ipv6 = false
		public_network = 127.0.0.1/32
		cluster_network = 127.0.0.1/32
		public_addr = 127.0.0.1
		cluster_addr = 127.0.0.1
		auth_cluster_required = none
		auth_service_required = none
		auth_client_required = none
		auth_supported = none
		keyring = $ceph_dir/keyring
		run_dir = $ceph_dir/run
		admin_socket = $ceph_dir/run/\$name.asok
		pid_file = $ceph_dir/run/\$name.pid
		log_file = $ceph_dir/log/\$name.log
		mon_cluster_log_file = $ceph_dir/log/cluster.log
		crash_dir = $ceph_dir/crash
		log_to_stderr = false
		err_to_stderr = true
		log_to_journald = false
		mon_cluster_log_to_journald = false
		mon_data = $ceph_dir/mon/\$id
		osd_data = $ceph_dir/osd/\$id
		mds_data = $ceph_dir/mds/\$id
		osd_objectstore = memstore
		memstore_device_bytes = $CEPH_MEMSTORE_BYTES
		osd_pool_default_size = 1
		osd_pool_default_min_size = 1
		mon_allow_pool_size_one = true
		mon_warn_on_pool_no_redundancy = false
		mon_warn_on_insecure_global_id_reclaim_allowed = false
		osd_pool_default_pg_num = 8
		osd_pool_default_pgp_num = 8
		osd_pool_default_pg_autoscale_mode = off
		osd_crush_chooseleaf_type = 0
		mon_allow_pool_delete = true
		mon_data_avail_crit = 0
		mon_data_avail_warn = 0
		mon_osd_reporter_subtree_level = osd
		osd_memory_target = 939524096
		mds_cache_memory_limit = 134217728
	EOF
	: > "$ceph_dir/keyring"
	_ce_log=$ceph_dir/log/setup.log
	monmaptool --create --clobber --fsid "$_ce_fsid" --addv a "[v2:127.0.0.1:$_ce_port]" \
		"$ceph_dir/monmap" > "$_ce_log" 2>&1 || fail "ceph: monmaptool failed: $(ceph_log_tail "$_ce_log")"
	timeout 60 ceph-mon -c "$ceph_conf" --mkfs -i a --monmap "$ceph_dir/monmap" > "$_ce_log" 2>&1 ||
		ceph_why "ceph-mon --mkfs failed: $(ceph_log_tail "$_ce_log")"
	ceph_daemon mon.a ceph-mon -i a
	ceph_wait 30 "$ceph_pid_mon_a" "$ceph_dir/log/mon.a.log" "the mon does not answer" \
		ceph_cli mon stat
	# The OSD: an id from the mon, a memstore made, started, and up.
	_ce_uuid=$(uuidgen)
	_ce_id=$(ceph_cli osd new "$_ce_uuid" 2> "$_ce_log") || fail "ceph osd new: $(ceph_log_tail "$_ce_log")"
	[ "$_ce_id" = 0 ] || fail "ceph osd new gave id '$_ce_id', not 0"
	mkdir -p "$ceph_dir/osd/0"
	timeout 60 ceph-osd -c "$ceph_conf" -i 0 --mkfs --osd-uuid "$_ce_uuid" > "$_ce_log" 2>&1 ||
		ceph_why "ceph-osd --mkfs failed: $(ceph_log_tail "$_ce_log")"
	ceph_daemon osd.0 ceph-osd -i 0
	ceph_wait 60 "$ceph_pid_osd_0" "$ceph_dir/log/osd.0.log" "the OSD does not come up" \
		ceph_osd_up
	# The pools (8 PGs each, one replica) and the filesystem; the MDS.
	for _ce_pool in "$ceph_meta_pool" "$ceph_data_pool"; do
		ceph_cli osd pool create "$_ce_pool" 8 8 replicated > "$_ce_log" 2>&1 ||
			fail "ceph osd pool create $_ce_pool: $(ceph_log_tail "$_ce_log")"
	done
	ceph_cli fs new "$ceph_fs" "$ceph_meta_pool" "$ceph_data_pool" > "$_ce_log" 2>&1 ||
		fail "ceph fs new: $(ceph_log_tail "$_ce_log")"
	ceph_fs_made=1
	mkdir -p "$ceph_dir/mds/a"
	ceph_daemon mds.a ceph-mds -i a
	ceph_wait 90 "$ceph_pid_mds_a" "$ceph_dir/log/mds.a.log" "the MDS does not become up:active" \
		ceph_mds_active
	ceph_start_secs=$(ceph_since "$ceph_t0")
	note "ceph: mon on 127.0.0.1:$_ce_port, osd.0 (memstore), mds.a up:active in $ceph_start_secs s"
}

# Seconds (one decimal) since T, a date +%s.%N.
ceph_since() { # T
	awk -v t0="$1" -v t1="$(date +%s.%N)" 'BEGIN { printf "%.1f\n", t1 - t0 }'
}

# After ceph fs fail: until the MDS is a standby again (or gone), at
# most 10 s.
ceph_wait_standby() {
	[ -n "${ceph_pid_mds_a:-}" ] || return 0
	_ce_n=0
	while ceph_alive "$ceph_pid_mds_a" && [ $_ce_n -lt 20 ]; do
		timeout 10 ceph -c "$ceph_conf" --connect-timeout 5 mds stat 2> /dev/null |
			grep -q 'up:standby' && return 0
		sleep 0.5
		_ce_n=$((_ce_n + 1))
	done
}

ceph_osd_up() {
	ceph_cli osd dump 2> /dev/null | grep -q '^osd\.0 up '
}

ceph_mds_active() {
	ceph_cli mds stat 2> /dev/null | grep -q 'up:active'
}

ceph_mount() { # DIR
	ceph_nclients=$((ceph_nclients + 1))
	_ce_name=fuse$ceph_nclients
	mkdir -p "$1" || fail "cannot make $1"
	# Foreground (-f), our child: its PID known at once; mounted once the
	# mount point is a FUSE mount that answers.
	ceph-fuse -c "$ceph_conf" --id "$_ce_name" \
		--admin-socket "$ceph_dir/run/client.$_ce_name.asok" \
		--log-file "$ceph_dir/log/client.$_ce_name.log" \
		--pid-file "$ceph_dir/run/client.$_ce_name.pid" \
		-f "$1" < /dev/null > "$ceph_dir/log/client.$_ce_name.out" 2>&1 &
	_ce_cpid=$!
	ceph_clients="$1:$_ce_cpid $ceph_clients"
	ceph_wait 60 "$_ce_cpid" "$ceph_dir/log/client.$_ce_name.out" "ceph-fuse does not mount $1" \
		ceph_mounted "$1"
}

ceph_mounted() { # DIR
	[ "$(stat -f -c %T "$1" 2> /dev/null)" = fuseblk ] || [ "$(stat -f -c %t "$1" 2> /dev/null)" = 65735546 ] ||
		return 1
	ls "$1" > /dev/null
}

ceph_umount() { # DIR
	_ce_keep=""
	for _ce_e in $ceph_clients; do
		if [ "${_ce_e%:*}" = "$1" ]; then
			ceph_umount_one "${_ce_e%:*}" "${_ce_e##*:}"
		else
			_ce_keep="$_ce_keep $_ce_e"
		fi
	done
	ceph_clients=$_ce_keep
}

ceph_umount_one() { # DIR PID
	# A client that got a signal itself (a test ended by a signal sent
	# to its whole process group) waits for its MDS session for 30 s,
	# and an umount meanwhile waits for it (seen: 31 s).  So the umount
	# gets 5 s, then the client is killed, which lets the umount end.
	if grep -q " $1 fuse" /proc/mounts; then
		umount "$1" 2> /dev/null &
		_ce_u=$!
		ceph_wait_gone "$_ce_u" 50
		if ceph_alive "$_ce_u"; then
			note "ceph: umount $1 waits for its client for 5 s: KILL the client (PID $2)"
			kill -9 "$2" 2> /dev/null
		fi
		wait "$_ce_u" 2> /dev/null
		# busy (a process in it): lazily
		if grep -q " $1 fuse" /proc/mounts; then
			sleep 1
			umount "$1" 2> /dev/null || umount -l "$1" 2> /dev/null
		fi
	fi
	# ceph-fuse exits once unmounted
	ceph_wait_gone "$2" 50
	ceph_end_pid "$2"
}

ceph_objects() { # FILE
	_ce_ino=$(stat -c %i "$1") || fail "cannot stat $1"
	_ce_hex=$(printf '%x' "$_ce_ino")
	timeout 60 rados -c "$ceph_conf" -p "$ceph_data_pool" ls 2> "$ceph_dir/log/rados.err" |
		grep "^$_ce_hex\.[0-9a-f]\{8\}\$" | sort
}

# rados on the data pool, bounded: ceph_rados stat OBJECT ...
ceph_rados() {
	timeout 60 rados -c "$ceph_conf" -p "$ceph_data_pool" "$@"
}

# Waits up to SECS seconds for the data pool to hold no object: the MDS
# purges a removed file's objects in the background, and a memstore OSD
# fills up with what it has not purged yet.
ceph_drained() { # SECS
	_ce_end=$(($(date +%s) + $1))
	while [ "$(ceph_rados ls 2> /dev/null | wc -l)" != 0 ]; do
		[ "$(date +%s)" -lt "$_ce_end" ] || return 1
		sleep 1
	done
}

ceph_object_count() { # FILE
	ceph_objects "$1" | wc -l
}

ceph_rss() {
	for _ce_v in mon_a osd_0 mds_a; do
		eval "_ce_p=\${ceph_pid_$_ce_v:-}"
		[ -n "$_ce_p" ] || continue
		printf '%s=%s ' "$(echo "$_ce_v" | tr _ .)" \
			"$(awk '/^VmRSS/ { print $2 }' "/proc/$_ce_p/status" 2> /dev/null)"
	done
	for _ce_e in $ceph_clients; do
		printf '%s=%s ' "client:${_ce_e%:*}" \
			"$(awk '/^VmRSS/ { print $2 }' "/proc/${_ce_e##*:}/status" 2> /dev/null)"
	done
	echo
}

ceph_stop() {
	for _ce_e in $ceph_clients; do
		ceph_umount_one "${_ce_e%:*}" "${_ce_e##*:}"
	done
	ceph_clients=""
	if [ -n "${CEPH_STOP_KILL:-}" ]; then
		for _ce_p in $ceph_pids; do
			kill -9 "$_ce_p" 2> /dev/null
			wait "$_ce_p" 2> /dev/null
		done
		ceph_pids="" ceph_fs_made=""
	fi
	# An active MDS that is sent TERM tells the mon it goes; the mon
	# then blocklists it, and an MDS that sees itself blocklisted while
	# shutting down respawns (execs itself, same PID) and takes rank 0
	# again: it never ends (seen: ignored TERM for 10 s, then KILL).
	# The filesystem failed first (not joinable, rank 0 failed), it
	# respawns as a standby, which ends at TERM.
	if [ -n "$ceph_fs_made" ] && [ -n "${ceph_pid_mon_a:-}" ] && ceph_alive "$ceph_pid_mon_a"; then
		timeout 20 ceph -c "$ceph_conf" --connect-timeout 5 fs fail "$ceph_fs" > /dev/null 2>&1
		ceph_wait_standby
	fi
	ceph_fs_made=""
	# The MDS first, then the OSD, the mon last (ceph_pids is newest first).
	for _ce_p in $ceph_pids; do
		ceph_end_pid "$_ce_p"
	done
	ceph_pids=""
	[ -n "$ceph_dir" ] && rm -rf --one-file-system "$ceph_dir"/mon "$ceph_dir"/osd "$ceph_dir"/mds 2> /dev/null
	return 0
}

# ceph_matrix DIR WHAT: realfs-check's descriptor matrix in DIR (made and
# removed here) through $REALFS_CHECK_PUBLIC, each kind PASS or the test
# fails naming WHAT; its lines are printed, prefixed [matrix].
ceph_matrix() {
	mkdir "$1" || fail "cannot make $1"
	"$REALFS_CHECK_PUBLIC" prepare "$1" > "$scratch/out" 2>&1 || fail "prepare: $(cat "$scratch/out")"
	LIBFALLOCATE_EMULATION=auto "$REALFS_CHECK_PUBLIC" fs "$1" > "$scratch/out" 2>&1
	_cm_rc=$?
	grep -E '^(# |FAIL)' "$scratch/out" | sed "s|$scratch/||g; s|^|[matrix] |"
	grep -q '^KIND ' "$scratch/out" || fail "realfs-check exited with $_cm_rc: $(tail -n 3 "$scratch/out")"
	_cm_bad=$(grep '^KIND ' "$scratch/out" | grep -v ' PASS' || :)
	[ -z "$_cm_bad" ] || fail "descriptor matrix on $2:
$_cm_bad"
	note "descriptor matrix: $(grep -c '^KIND ' "$scratch/out") kinds, every one PASS"
	rm -rf "$1"
}
