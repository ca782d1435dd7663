# shellcheck shell=sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 the libfallocate authors (see AUTHORS)
# A throwaway GlusterFS on this machine, shared by tests/shared/two-clients.sh,
# tests/realfs/check-fs.sh and bench/run.sh (issue 24).  POSIX sh; safe under
# set -eu.  Root only: the callers check that.
#
# gluster_start DIR HOOK BRICK_SIZE CLIENTS: a replica-2 volume of two
# bricks on ext3 loop images of BRICK_SIZE (GlusterFS then has no
# fallocate: ext3 says EOPNOTSUPP), served by a glusterd whose working
# directory is DIR, and CLIENTS FUSE mounts of it (DIR/c1, DIR/c2, ...).
# HOOK is the caller's cleanup registration (on_exit, restore), called once
# as HOOK gluster_stop.  Sets gluster_clients (the mount points),
# gluster_host, gluster_volume; or sets $why and returns 1 (this machine
# cannot: skip) or 2 (a hard error).
# gluster_mount DIR: one more client (a fresh mount, no cache of the
# others), unmounted by gluster_stop.
# gluster_stop: unmounts the clients, stops the volume, ends glusterd and
# the bricks (by their PIDs), detaches the images, and removes what
# GlusterFS wrote under /var/run/gluster, /var/log/glusterfs and
# /var/lib/glusterd (entries that were not there before the start).
#
# One GlusterFS at a time on a machine: glusterd listens on port 24007.
# Ours wait for each other (a lock); another glusterd running is a skip.

# The lock is taken on the package's own glusterd.vol: no file is made.
gluster_lock=/etc/glusterfs/glusterd.vol
gluster_state="/var/run/gluster /var/run/glusterd.socket /var/log/glusterfs /var/lib/glusterd"
gluster_dir="" gluster_clients="" gluster_loops="" gluster_bricks="" gluster_pid=""
gluster_volume="" gluster_locked="" gluster_before=""

# Alive and not a zombie: glusterd and its bricks daemonize, and their
# parent may be slow to reap them.
gluster_alive() {
	[ -r "/proc/$1/stat" ] && ! grep -q '^[0-9]* (.*) Z' "/proc/$1/stat" 2> /dev/null
}

gluster_end_pid() { # PID: TERM, then KILL after 5 s
	gluster_alive "$1" || return 0
	kill "$1" 2> /dev/null
	_gl_n=0
	while gluster_alive "$1" && [ $_gl_n -lt 50 ]; do
		sleep 0.1
		_gl_n=$((_gl_n + 1))
	done
	gluster_alive "$1" && kill -9 "$1" 2> /dev/null
	return 0
}

# GlusterFS's own places and what is in its directories, one path a line.
gluster_listing() {
	for _gl_d in $gluster_state; do
		[ -e "$_gl_d" ] && echo "$_gl_d"
		[ -d "$_gl_d" ] && find "$_gl_d" -mindepth 1 -maxdepth 1
	done | sort
}

# shellcheck disable=SC2034 # $why and the gluster_ variables are for the caller
gluster_start() {
	gluster_dir=$1 _gl_hook=$2 _gl_size=$3 _gl_n=$4
	for _gl_c in glusterd gluster glusterfs mount.glusterfs mkfs.ext3 losetup flock getent; do
		command -v "$_gl_c" > /dev/null 2>&1 ||
			{ why="$_gl_c is not installed (glusterfs-server, glusterfs-client)"; return 1; }
	done
	[ -c /dev/fuse ] || { why="no /dev/fuse"; return 1; }
	grep -qw fuse /proc/filesystems || modprobe fuse 2> /dev/null ||
		{ why="the kernel has no FUSE"; return 1; }
	# Its CLI refuses 127.0.0.1 as a brick host; a name that leads
	# elsewhere would serve the volume beyond this machine.
	gluster_host=$(hostname)
	_gl_addr=$(getent ahostsv4 "$gluster_host" 2> /dev/null | awk 'NR == 1 { print $1 }')
	case $_gl_addr in
	127.*) ;;
	*) why="the host name $gluster_host resolves to '${_gl_addr:-nothing}', not 127.x (GlusterFS's CLI wants a host name for 127.x)"
		return 1 ;;
	esac
	"$_gl_hook" gluster_stop
	why="another GlusterFS test held the lock on $gluster_lock for 5 minutes"
	exec 9< "$gluster_lock" || { why="no $gluster_lock (glusterfs-server)"; return 1; }
	flock -w 300 9 || return 1
	gluster_locked=1
	if command -v ss > /dev/null 2>&1 && ss -Hltn 'sport = :24007' 2> /dev/null | grep -q .; then
		why="port 24007 is taken (another glusterd runs here)"
		return 1
	fi
	gluster_before=$(gluster_listing)
	mkdir -p "$gluster_dir/wd" || { why="cannot write in $gluster_dir"; return 2; }
	for _gl_b in b1 b2; do
		truncate -s "$_gl_size" "$gluster_dir/$_gl_b.img" || { why="cannot make images"; return 2; }
		mkfs.ext3 -q -F "$gluster_dir/$_gl_b.img" > /dev/null 2>&1 || { why="mkfs.ext3 failed"; return 2; }
		_gl_dev=$(losetup -f --show "$gluster_dir/$_gl_b.img" 2> /dev/null) ||
			{ why="no free loop device"; return 1; }
		gluster_loops="$_gl_dev $gluster_loops"
		mkdir -p "$gluster_dir/$_gl_b"
		mount -t ext3 "$_gl_dev" "$gluster_dir/$_gl_b" || { why="cannot mount ext3"; return 1; }
		gluster_bricks="$gluster_dir/$_gl_b $gluster_bricks"
	done
	sed "s|^\( *option working-directory\).*|\1 $gluster_dir/wd|" /etc/glusterfs/glusterd.vol \
		> "$gluster_dir/glusterd.vol" 2> /dev/null ||
		{ why="no /etc/glusterfs/glusterd.vol"; return 1; }
	# In the foreground (-N), our child: its PID is known at once, and
	# it answers in 2-3 s where daemonizing took 10.  The lock's
	# descriptor stays with us, not with the daemons.
	glusterd -N -f "$gluster_dir/glusterd.vol" -l "$gluster_dir/glusterd.log" \
		9>&- < /dev/null > /dev/null 2>&1 &
	gluster_pid=$!
	_gl_i=0
	until gluster --mode=script volume list > /dev/null 2>&1; do
		_gl_i=$((_gl_i + 1))
		gluster_alive "$gluster_pid" ||
			{ why="glusterd failed: $(tail -n 1 "$gluster_dir/glusterd.log" 2> /dev/null)"; return 1; }
		[ $_gl_i -lt 150 ] || { why="glusterd does not answer"; return 1; }
		sleep 0.2
	done
	gluster_volume=lfa$$
	gluster --mode=script volume create "$gluster_volume" replica 2 \
		"$gluster_host:$gluster_dir/b1/brick" "$gluster_host:$gluster_dir/b2/brick" force \
		> "$gluster_dir/create.log" 2>&1 ||
		{ why="volume create failed: $(tail -n 1 "$gluster_dir/create.log")"; return 1; }
	gluster --mode=script volume start "$gluster_volume" 9>&- > "$gluster_dir/start.log" 2>&1 ||
		{ why="volume start failed: $(tail -n 1 "$gluster_dir/start.log")"; return 1; }
	_gl_i=1
	while [ $_gl_i -le "$_gl_n" ]; do
		gluster_mount "$gluster_dir/c$_gl_i" || return 1
		_gl_i=$((_gl_i + 1))
	done
	why=""
}

# shellcheck disable=SC2034 # $why is for the caller
gluster_mount() { # DIR
	mkdir -p "$1"
	mount -t glusterfs -o "log-file=$gluster_dir/$(basename "$1").log" \
		"$gluster_host:/$gluster_volume" "$1" 9>&- < /dev/null > /dev/null 2>&1 ||
		{ why="cannot mount the volume: $(tail -n 1 "$gluster_dir/$(basename "$1").log" 2> /dev/null)"; return 1; }
	gluster_clients="$gluster_clients $1"
	# Not there yet until the first look succeeds (the client connects
	# to both bricks in the background).
	_gl_j=0
	until [ "$(stat -f -c %t "$1" 2> /dev/null)" = 65735546 ]; do
		_gl_j=$((_gl_j + 1))
		[ $_gl_j -lt 50 ] || { why="the mount $1 does not answer"; return 1; }
		sleep 0.1
	done
}

gluster_umount() { # DIR
	umount "$1" 2> /dev/null || { sleep 1; umount "$1" 2> /dev/null; } || umount -l "$1" 2> /dev/null
}

gluster_stop() {
	for _gl_m in $gluster_clients; do
		gluster_umount "$_gl_m"
	done
	gluster_clients=""
	# The bricks' and the self-heal daemon's PIDs, before glusterd goes.
	_gl_pids=""
	if [ -n "$gluster_volume" ]; then
		_gl_pids=$(cat /var/run/gluster/vols/"$gluster_volume"/*.pid \
			/var/run/gluster/shd/"$gluster_volume"/*.pid 2> /dev/null)
		gluster --mode=script volume stop "$gluster_volume" force > /dev/null 2>&1
		gluster_volume=""
	fi
	if [ -n "$gluster_pid" ]; then
		gluster_end_pid "$gluster_pid"
		wait "$gluster_pid" 2> /dev/null
	fi
	gluster_pid=""
	for _gl_p in $_gl_pids; do
		gluster_end_pid "$_gl_p"
	done
	for _gl_b in $gluster_bricks; do
		gluster_umount "$_gl_b"
	done
	gluster_bricks=""
	for _gl_l in $gluster_loops; do
		losetup -d "$_gl_l" 2> /dev/null
	done
	gluster_loops=""
	if [ -n "$gluster_before" ]; then
		gluster_listing | while read -r _gl_e; do
			printf '%s\n' "$gluster_before" | grep -qxF "$_gl_e" || rm -rf "$_gl_e"
		done
		gluster_before=""
	fi
	[ -n "$gluster_dir" ] && rm -rf --one-file-system "$gluster_dir"/wd "$gluster_dir"/*.img 2> /dev/null
	if [ -n "$gluster_locked" ]; then
		exec 9>&-
		gluster_locked=""
	fi
	return 0
}
