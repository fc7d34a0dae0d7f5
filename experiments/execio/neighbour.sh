#!/bin/sh
# neighbour.sh: a disk-heavy noisy neighbour for rigor exec's A/A trials
# (issue 39 item 5). It loops until killed, in one of these modes:
#
#   fsync  (default) each cycle writes a 256 MiB file with O_DIRECT, then
#          200 small files each followed by an fsync of the directory's
#          file system (sync -f), then reads the big file back with
#          O_DIRECT and removes everything: the disk queue stays full and
#          the journal is committed over and over, with little CPU.
#   drop   as fsync, and every cycle also drops the page cache
#          (echo 3 > /proc/sys/vm/drop_caches; needs root), so that every
#          exec of a command pages its binary and libraries in again.
#   dropall the page cache dropped every 0.2 s (echo 1 >
#          /proc/sys/vm/drop_caches; needs root), nothing written: nearly
#          every run of a command pages its binary in from disk, and the
#          run after it in the same round finds it cached.
#   apt    a package-index update as in the report that opened the issue:
#          apt-get update, then the package cache rebuilt from the lists
#          (rm /var/cache/apt/*.bin; apt-cache gencaches), over and over.
#          It reaches the Debian mirror only when its lists are stale.
#   aptfull a package-index update from scratch: the lists removed, then
#          apt-get update (about 14 MB from the Debian mirror and 48 MB
#          written, in about 13 s here), over and over.
#
#   experiments/execio/neighbour.sh [fsync|drop|dropall|apt|aptfull] [DIR]
#
# DIR (default: a new directory under /tmp) holds the files written; it is
# removed when the neighbour is killed (SIGTERM or SIGINT).
set -eu
mode=${1:-fsync}
dir=${2:-$(mktemp -d /tmp/execio-neighbour.XXXXXX)}
mkdir -p "$dir"
trap 'rm -rf "$dir"; exit 0' INT TERM
case $mode in
fsync | drop | dropall | apt | aptfull) ;;
*)
	echo "neighbour.sh: unknown mode $mode (want fsync, drop, dropall, apt or aptfull)" >&2
	exit 2
	;;
esac
while :; do
	if [ "$mode" = apt ]; then
		apt-get update -qq >/dev/null 2>&1 || true
		rm -f /var/cache/apt/*.bin
		apt-cache gencaches >/dev/null 2>&1 || true
		continue
	fi
	if [ "$mode" = dropall ]; then
		echo 1 >/proc/sys/vm/drop_caches
		sleep 0.2
		continue
	fi
	if [ "$mode" = aptfull ]; then
		rm -rf /var/lib/apt/lists/*
		mkdir -p /var/lib/apt/lists/partial
		apt-get update -qq >/dev/null 2>&1 || true
		continue
	fi
	dd if=/dev/zero of="$dir/big" bs=1M count=256 oflag=direct status=none
	i=0
	while [ $i -lt 200 ]; do
		echo "$i" >"$dir/small.$i"
		sync -f "$dir/small.$i"
		i=$((i + 1))
	done
	dd if="$dir/big" of=/dev/null bs=1M iflag=direct status=none
	rm -f "$dir"/small.* "$dir/big"
	if [ "$mode" = drop ]; then
		sync
		echo 3 >/proc/sys/vm/drop_caches
	fi
done
