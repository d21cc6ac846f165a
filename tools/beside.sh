#!/usr/bin/env bash
# The OVN build test beside the other test stages of `make test` (see the
# Makefile): `start` runs it in the background at the lowest CPU priority,
# `wait` waits for it and prints its output, `stop` ends it if it still runs.
# TMP, BIN and OVN_BUILD_TEST come from the Makefile.
set -euo pipefail
dir="$TMP/beside"
case "$1" in
  start)
    rm -rf "$dir" && mkdir -p "$dir"
    echo "make test: $OVN_BUILD_TEST runs beside the other stages (nice 19); its output follows when it is done"
    # setsid: its own process group, which `stop` ends whole (pytest, ansible, make, cc). A new session is
    # also a new scheduler autogroup, in which nice counts only against its own members: the autogroup
    # itself is set to nice 19 too (/proc/self/autogroup), or it would take a core's fair half.
    setsid bash -c 'echo 19 > /proc/self/autogroup 2>/dev/null || true; nice -n 19 "$1"/pytest -q -p no:cacheprovider --durations=5 --basetemp="$2/tmp" "$3" > "$2/log" 2>&1; echo $? > "$2/rc"' \
      beside "$BIN" "$dir" "$OVN_BUILD_TEST" < /dev/null &
    echo $! > "$dir/pid"
    ;;
  wait)
    started=$(date +%s)
    while [ ! -f "$dir/rc" ]; do sleep 2; done
    echo "== $(cat "$dir/log" | tail -n 1 | sed 's/^=* *//;s/ *=*$//') (waited $(( $(date +%s) - started )) s for it)"
    cat "$dir/log"
    exit "$(cat "$dir/rc")"
    ;;
  stop)
    if [ -f "$dir/pid" ] && [ ! -f "$dir/rc" ]; then
      kill -TERM -- "-$(cat "$dir/pid")" 2>/dev/null || true
      echo "make test: stopped the OVN build test (an earlier stage failed)"
    fi
    ;;
  *) echo "usage: beside.sh start|wait|stop" >&2; exit 2 ;;
esac
