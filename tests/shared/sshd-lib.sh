# shellcheck shell=sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 the libfallocate authors (see AUTHORS)
# A throwaway sshd on 127.0.0.1 for sshfs, shared by tests/shared/sshfs-lib.sh,
# tests/realfs/check-fs.sh and bench/run.sh.  POSIX sh (dash and bash source it);
# safe under set -eu.  Root only: the callers check that, and that $sshd_bin
# is there, with their own messages.
#
# sshd_start DIR HOOK [SFTP]: host and user keys, sshd_config and ssh_config
# in DIR (made if missing), an sshd on a free port of 127.0.0.1 that lets
# root in with the user key only, started and waited for until it accepts
# us.  HOOK is the caller's cleanup registration (on_exit, restore): called
# as HOOK "COMMAND"; the commands must run last registered first.  SFTP is
# the sftp subsystem (default internal-sftp).  Sets sshd_pid, sshd_port and
# sshd_ssh_config (for ssh -F and sshfs -F, host 127.0.0.1); or sets $why
# and returns 1 (this machine cannot: skip) or 2 (a hard error).
# sshd_stop PID: ends that sshd (and waits for it).

sshd_bin=$(command -v sshd 2> /dev/null || echo /usr/sbin/sshd)

# Whether some sshd (or sshd-session) other than a zombie runs: one of ours,
# once ended, may be a zombie until init reaps it.
sshd_running() {
	ps -e -o stat=,comm= | awk '$2 ~ /^sshd(-|$)/ && $1 !~ /^Z/ { f = 1 } END { exit !f }'
}

# shellcheck disable=SC2034 # $why and the sshd_ variables are for the caller
sshd_start() {
	_sshd_dir=$1 _sshd_hook=$2 _sshd_sftp=${3:-internal-sftp}
	why="ssh (openssh-client) is not installed"
	command -v ssh > /dev/null 2>&1 && command -v ssh-keygen > /dev/null 2>&1 || return 1
	# sshd refuses to start without its privilege separation directory.
	# Made here, it goes at the end unless another sshd may need it.
	if ! [ -d /run/sshd ]; then
		why="cannot create /run/sshd"
		mkdir -m 755 /run/sshd || return 1
		"$_sshd_hook" "sshd_running || rmdir /run/sshd 2> /dev/null"
	fi
	why="cannot write in $_sshd_dir"
	mkdir -p "$_sshd_dir" && chmod 700 "$_sshd_dir" || return 2
	rm -f "$_sshd_dir/host_key" "$_sshd_dir/host_key.pub" "$_sshd_dir/user_key" "$_sshd_dir/user_key.pub"
	why="ssh-keygen failed"
	ssh-keygen -q -t ed25519 -N '' -f "$_sshd_dir/host_key" < /dev/null > /dev/null || return 2
	ssh-keygen -q -t ed25519 -N '' -f "$_sshd_dir/user_key" < /dev/null > /dev/null || return 2
	cp "$_sshd_dir/user_key.pub" "$_sshd_dir/authorized_keys" || return 2
	sshd_ssh_config=$_sshd_dir/ssh_config
	why="sshd did not start"
	for _sshd_try in 1 2 3 4 5; do
		sshd_port=$(shuf -i 20000-60000 -n 1) || return 2
		# in use already: another try; taken meanwhile: sshd exits, idem
		if command -v ss > /dev/null 2>&1 && ss -Hltn "sport = :$sshd_port" 2> /dev/null | grep -q .; then
			continue
		fi
		cat > "$_sshd_dir/sshd_config" <<-EOF || return 2
			ListenAddress 127.0.0.1:$sshd_port
			HostKey $_sshd_dir/host_key
			PidFile $_sshd_dir/sshd.pid
			AuthorizedKeysFile $_sshd_dir/authorized_keys
			AuthenticationMethods publickey
			PubkeyAuthentication yes
			PasswordAuthentication no
			KbdInteractiveAuthentication no
			PermitRootLogin prohibit-password
			UsePAM no
			StrictModes no
			Subsystem sftp $_sshd_sftp
		EOF
		echo "[127.0.0.1]:$sshd_port $(cut -d' ' -f1,2 "$_sshd_dir/host_key.pub")" \
			> "$_sshd_dir/known_hosts" || return 2
		cat > "$sshd_ssh_config" <<-EOF || return 2
			Host 127.0.0.1
				Port $sshd_port
				User root
				IdentityFile $_sshd_dir/user_key
				IdentitiesOnly yes
				BatchMode yes
				StrictHostKeyChecking yes
				UserKnownHostsFile $_sshd_dir/known_hosts
				GlobalKnownHostsFile /dev/null
				ConnectTimeout 10
				LogLevel ERROR
		EOF
		"$sshd_bin" -D -e -f "$_sshd_dir/sshd_config" < /dev/null 2> "$_sshd_dir/sshd.log" &
		sshd_pid=$!
		"$_sshd_hook" "sshd_stop $sshd_pid"
		for _sshd_wait in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
			if ssh -F "$sshd_ssh_config" 127.0.0.1 true < /dev/null 2> /dev/null; then
				why=""
				return 0
			fi
			kill -0 "$sshd_pid" 2> /dev/null || break
			sleep 0.25
		done
		why="sshd did not start: $(tail -n 1 "$_sshd_dir/sshd.log")"
		if kill -0 "$sshd_pid" 2> /dev/null; then
			why="the throwaway sshd did not accept us: $(tail -n 1 "$_sshd_dir/sshd.log")"
			sshd_stop "$sshd_pid"
			return 1
		fi
	done
	return 1
}

sshd_stop() { # PID
	# Its sessions end once their client (sshfs) has gone: they get the
	# time to, then are ended, while it lives to reap them (init may be slow
	# to reap orphans, and a zombie sshd looks like another sshd running).
	_sshd_n=0
	while _sshd_kids=$(pgrep -P "$1") && [ $_sshd_n -lt 30 ]; do
		sleep 0.1
		_sshd_n=$((_sshd_n + 1))
	done
	# shellcheck disable=SC2086 # one PID a word
	[ -z "$_sshd_kids" ] || { kill $_sshd_kids 2> /dev/null; sleep 0.5; }
	kill "$1" 2> /dev/null || :
	wait "$1" 2> /dev/null || :
	# not our child (a subshell started it): wait by polling
	_sshd_n=0
	while kill -0 "$1" 2> /dev/null && [ $_sshd_n -lt 50 ]; do
		sleep 0.1
		_sshd_n=$((_sshd_n + 1))
	done
}
