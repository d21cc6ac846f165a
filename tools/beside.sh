#!/usr/bin/env bash
# What `make test` runs beside its other test stages (see the Makefile), at
# the lowest CPU priority: the OVN build test, then the molecule scenarios of
# the host stages (HOST_SCENARIOS), which touch neither Open vSwitch nor
# namespaces, then QEMU and the VM lab's guest image (vm_lab_state=image), which
# the VM lab's test, last, would otherwise build first. `start` runs them in
# the background, `wait` waits for them and prints their output, `stop` ends
# them if they still run.
# TMP, BIN, OVN_BUILD_TEST and HOST_SCENARIOS come from the Makefile.
set -euo pipefail
dir="$TMP/beside"
case "$1" in
  start)
    rm -rf "$dir" && mkdir -p "$dir"
    echo "make test: $OVN_BUILD_TEST, then molecule $HOST_SCENARIOS, then the VM lab's image, run beside the other stages (nice 19); their output follows when they are done"
    # The scenarios get a copy of the collection: the other stages' `make molecule` installs it again meanwhile.
    cp -a "$ANSIBLE_COLLECTIONS_PATH" "$dir/collections"
    # setsid: its own process group, which `stop` ends whole (pytest, ansible, make, cc). A new session is
    # also a new scheduler autogroup, in which nice counts only against its own members: the autogroup
    # itself is set to nice 19 too (/proc/self/autogroup), or it would take a core's fair half.
    setsid bash -c 'echo 19 > /proc/self/autogroup 2>/dev/null || true; cd "$4"
      nice -n 19 "$1"/pytest -q -p no:cacheprovider --durations=5 --basetemp="$2/tmp" "$3" > "$2/log" 2>&1; rc=$?
      for scenario in $5; do
        [ $rc = 0 ] || break
        ANSIBLE_COLLECTIONS_PATH="$2/collections" ANSIBLE_CALLBACKS_ENABLED=ansible.posix.timer \
          nice -n 19 "$1"/molecule test -s "$scenario" >> "$2/molecule.log" 2>&1 || rc=$?
      done
      if [ $rc = 0 ]; then
        ANSIBLE_COLLECTIONS_PATH="$2/collections" nice -n 19 "$1"/ansible-playbook -i inventories/vm playbooks/vm_lab.yml \
          -e vm_lab_state=image > "$2/vm-image.log" 2>&1 || rc=$?
      fi; echo $rc > "$2/rc"' \
      beside "$BIN" "$dir" "$OVN_BUILD_TEST" "$PWD" "$HOST_SCENARIOS" < /dev/null &
    echo $! > "$dir/pid"
    ;;
  wait)
    started=$(date +%s)
    while [ ! -f "$dir/rc" ]; do sleep 2; done
    echo "== $(tail -n 1 "$dir/log" | sed 's/^=* *//;s/ *=*$//') (waited $(( $(date +%s) - started )) s for it)"
    cat "$dir/log"
    if [ -f "$dir/molecule.log" ]; then
      echo "== molecule $HOST_SCENARIOS, beside:"
      cat "$dir/molecule.log"
      if [ "$(cat "$dir/rc")" != 0 ]; then
        echo "== beside: failed; the failing tasks:"
        awk '/^TASK \[/ {task=$0} /^(fatal|failed): |^ERROR! |^CRITICAL / {print task; print substr($0, 1, 900)}' "$dir/molecule.log" | tail -n 8
      fi
    fi
    if [ -f "$dir/vm-image.log" ]; then
      echo "== the VM lab's QEMU and guest image, beside:"
      cat "$dir/vm-image.log"
    fi
    exit "$(cat "$dir/rc")"
    ;;
  stop)
    if [ -f "$dir/pid" ] && [ ! -f "$dir/rc" ]; then
      kill -TERM -- "-$(cat "$dir/pid")" 2>/dev/null || true
      echo "make test: stopped what ran beside (an earlier stage failed)"
    fi
    ;;
  *) echo "usage: beside.sh start|wait|stop" >&2; exit 2 ;;
esac
