#!/usr/bin/env bash
# When io_uring cannot be set up (a container's seccomp profile,
# kernel.io_uring_disabled), write and bench fail before they write
# anything, and take back what --create made: no new target or output file
# is left behind, a grown file is shrunk back, and an earlier journal stays
# as it was (a journal with an END record would say a run that wrote
# nothing was complete).  no_io_uring, built beside the tool, makes
# io_uring_setup fail with EPERM; the same runs without it work (the control).
# shellcheck source=atomicw/tests/clilib.sh
. "$(dirname "$0")/../clilib.sh"

nou=$(dirname "$AW")/no_io_uring
new=$scratch/new old=$scratch/old j=$scratch/j
outs=("$scratch/b.csv" "$scratch/b.json" "$scratch/r.csv")
[ -x "$nou" ] || { fail "no $nou (built with the tool)"; cli_done; }
rc=0
"$nou" true || rc=$?
if [ "$rc" -eq 77 ]; then
	echo "$name: this kernel takes no seccomp filter: nothing checked"
	exit 0
fi

# fails WHAT ARGS...: atomicw ARGS, io_uring refused, exits 1 naming the call.
fails() {
	local what=$1
	shift
	checks=$((checks + 1))
	rc=0
	out=$("$nou" "$AW" "$@" 2>&1) || rc=$?
	if [ "$rc" -ne 1 ] || ! grep -q "io_uring_queue_init.*Operation not permitted" <<<"$out"; then
		fail "$what: want exit 1 and io_uring_queue_init refused; got exit $rc: $out"
	fi
}


wargs=(--create 1m -b 4k -n 16 -j "$j" --journal-same-device)
bargs=(--create 1m -b 4k -n 16 -c 1 --modes "plain,doublewrite" --csv "${outs[0]}"
	--json "${outs[1]}" --rounds-csv "${outs[2]}")

fails "write --create" write "$new" "${wargs[@]}"
absent "write --create" "$new" "$j"
truncate -s 64k "$old"
fails "write --create, growing" write "$old" "${wargs[@]}"
grown "write --create, growing" "$old"
absent "write --create, growing" "$j"

# An earlier run's journal is not overwritten by a run that cannot start.
works "write, the control" write "$new" "${wargs[@]}"
check "write, the control: $new not made" test -f "$new"
check "write, the control: $j not written" test -s "$j"
sum=$(cksum <"$j")
rm "$new"
fails "write --create over a journal" write "$new" "${wargs[@]}"
absent "write --create over a journal" "$new"
same_bytes "write --create over a journal" "$j" "$sum"

fails "bench --create" bench "$new" "${bargs[@]}"
absent "bench --create" "$new" "${outs[@]}"
fails "bench --create, growing" bench "$old" "${bargs[@]}"
grown "bench --create, growing" "$old"
absent "bench --create, growing" "${outs[@]}"
works "bench, the control" bench "$new" "${bargs[@]}"
for p in "$new" "${outs[@]}"; do
	check "bench, the control: $p not written" test -s "$p"
done
cli_done
