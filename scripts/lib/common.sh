# shellcheck shell=bash
# Helpers shared by every host-side script: logging, package installs, the
# cache location and input hashing.  Source it; it defines functions only.

LBS_CACHE=${LBS_CACHE:-/var/cache/lbs-demo}
LBS_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
_lbs_t0=$(date +%s)

log() {
	printf '[%s +%ss] %s\n' "${LBS_LOG_TAG:-lbs}" "$(($(date +%s) - _lbs_t0))" "$*" >&2
}

die() {
	printf '[%s] error: %s\n' "${LBS_LOG_TAG:-lbs}" "$*" >&2
	exit 1
}

# need_pkgs PKG...: install the Debian packages that are missing (needs root).
need_pkgs() {
	local missing=() p
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
			missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	[ "$(id -u)" -eq 0 ] || die "missing packages (${missing[*]}); run as root or install them"
	log "installing packages: ${missing[*]}"
	apt-get update -q >&2 || die "apt-get update failed"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}" >&2 ||
		die "apt-get install ${missing[*]} failed"
}

# hash_inputs PATH...: one sha256 over the names and contents of the files
# under PATH (sorted, so the result does not depend on directory order;
# any file name works, spaces included).
hash_inputs() {
	local f
	find "$@" -type f ! -name '*~' ! -name '.*.swp' -print0 2>/dev/null | LC_ALL=C sort -z |
		while IFS= read -r -d '' f; do
			printf '%s\n' "${f#"$LBS_TOP"/}"
			sha256sum <"$f"
		done | sha256sum | cut -c1-16
}

# cache_hold ENTRY: keep a cache entry (a directory) from being pruned
# while this shell runs: a shared lock on it, on a descriptor the shell
# keeps open (run-vm for its boot, workloads/run for all its boots).  A
# long evidence run once lost its guest image to two other images built
# beside it.
cache_hold() {
	local fd
	exec {fd}<"$1" || { log "cannot hold the cache entry $1"; return 0; }
	flock -s "$fd"
}

# cache_oldest DIR KEEP FIND-TEST...: the names of DIR's entries that pass
# the find tests, all but the KEEP most recently modified, each ended by a
# NUL and without DIR (a name with a newline, or a DIR with one, must not
# split into other paths).
cache_oldest() {
	local dir=$1 keep=$2
	shift 2
	find "$dir" -mindepth 1 -maxdepth 1 "$@" -printf '%T@ %f\0' |
		sort -z -rn | tail -z -n +"$((keep + 1))" | cut -z -d' ' -f2-
}

# prune_cache DIR KEEP: remove all but the KEEP most recently used entries.
# Only entries named like our cache keys (16 hex digits, ".tmp" while they
# are built) are ever removed: a DIR that holds anything else keeps it.  An
# entry held (cache_hold) is kept, however old: it is taken exclusively for
# its removal, so a boot that starts meanwhile waits and then finds it
# gone.
prune_cache() {
	local dir=$1 keep=$2
	[ -d "$dir" ] || return 0
	# Half-built entries of an interrupted run, left for more than two hours.
	find "$dir" -mindepth 1 -maxdepth 1 -type d -regextype posix-extended \
		-regex '.*/[0-9a-f]{16}\.tmp' -mmin +120 -exec rm -rf {} +
	# NUL-separated: a DIR with a newline in its name must not split into
	# names of directories outside it.
	cache_oldest "$dir" "$keep" -type d -regextype posix-extended -regex '.*/[0-9a-f]{16}' |
		while IFS= read -r -d '' old; do
			old=$dir/$old
			if flock -n -x "$old" rm -rf -- "$old"; then
				log "pruned old cache entry $old"
			elif [ -d "$old" ]; then
				log "keeping old cache entry $old: in use"
			fi
		done
}

# in_session LOG NICE CMD...: start CMD (a program) in the background, in a
# session of its own at nice value NICE, its output to LOG and its input
# from /dev/null; SESSION_PID is its pid, the session's leader (kill --
# -PID stops all of it).  A session is also a scheduler autogroup of its
# own, weighed against the others by the group's nice value, not its
# tasks': the group gets NICE too, or a niced build would take its equal
# share of the machine all the same.
in_session() {
	local logf=$1
	shift
	# shellcheck disable=SC2016  # expanded by the inner shell
	setsid bash -c 'echo "$1" >/proc/self/autogroup 2>/dev/null ||
		echo "in_session: cannot set the nice value of its autogroup to $1" >&2
		n=$(($1 - $(nice))); shift; exec nice -n "$n" "$@"' in_session "$@" \
		>"$logf" 2>&1 </dev/null &
	SESSION_PID=$!
}

# with_heartbeat [--status FN] LOG CMD...: run CMD with output to LOG,
# printing a progress line every 30 s (FN, when given, prints what the line
# says; the default is the log's line count and last line); on failure show
# the tail of LOG.  CMD runs in a session of its own, and Ctrl-C, SIGTERM or
# SIGHUP (a dropped ssh session) stops all of it (make and its compilers,
# debootstrap and its children) before this shell exits: a build left
# running would keep the build lock.  The session keeps this shell's nice
# value (in_session), so that a build started niced (the debug kernel's,
# beside the tests) stays at that priority.
with_heartbeat() {
	local logf pid rc n=0 status=
	if [ "${1:-}" = --status ]; then
		status=${2:?--status needs a function}
		shift 2
	fi
	logf=$1
	shift
	in_session "$logf" "$(nice)" "$@"
	pid=$SESSION_PID
	# shellcheck disable=SC2064  # pid is fixed now
	trap "kill -TERM -- -$pid 2>/dev/null; wait $pid 2>/dev/null; die 'interrupted: stopped $1'" INT TERM HUP
	while kill -0 "$pid" 2>/dev/null; do
		sleep 2
		n=$((n + 1))
		if [ $((n % 15)) -eq 0 ] && kill -0 "$pid" 2>/dev/null; then
			if [ -n "$status" ]; then
				log "... $((n * 2)) s: $("$status" "$logf")"
			else
				log "... $((n * 2)) s: $(wc -l <"$logf") log lines, last: $(tail -n1 "$logf" | cut -c1-100)"
			fi
		fi
	done
	rc=0
	wait "$pid" || rc=$?
	trap - INT TERM HUP
	if [ "$rc" -ne 0 ]; then
		tail -n 40 "$logf" >&2
		die "'$*' failed (exit $rc); full log: $logf"
	fi
}

# build_userspace BUILD-DIR: install the packages, configure and build the
# userspace tools (seconds; no kernel).
build_userspace() {
	local build=$1
	need_pkgs cmake gcc make pkg-config liburing-dev shellcheck qemu-system-x86 \
		debootstrap e2fsprogs python3
	log "configuring $build"
	cmake -S "$LBS_TOP" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
	log "building userspace"
	cmake --build "$build" -j"$(nproc)"
}

# build_all BUILD-DIR: the userspace tools, the kernel and the guest image
# (the last two cached under $LBS_CACHE).
build_all() {
	build_userspace "$1"
	log "building kernel and guest image (cached in $LBS_CACHE)"
	cmake --build "$1" --target vm-prereqs
}
