# SPDX-License-Identifier: GPL-2.0
# KTAP helpers for the guest-side selftests (busybox sh).

ktap_n=0
ktap_fail=0

# The plan goes last ("1..N" after the results, as TAP allows), so tests can loop.
ktap_header() { echo "TAP version 13"; }

# ok NAME / not_ok NAME REASON
ok() { ktap_n=$((ktap_n + 1)); echo "ok $ktap_n $1"; }
not_ok() { ktap_n=$((ktap_n + 1)); ktap_fail=$((ktap_fail + 1)); echo "not ok $ktap_n $1 # $2"; }

# check NAME EXPECTED ACTUAL
check() {
	if [ "$2" = "$3" ]; then ok "$1"; else not_ok "$1" "expected '$2', got '$3'"; fi
}

# The count of the first event in perf stat -x, CSV output in FILE.
perf_count() { grep -v '^#' "$1" | grep -v '^$' | head -n1 | cut -d, -f1; }
# Its running time in ns (CSV field 4).
perf_runtime() { grep -v '^#' "$1" | grep -v '^$' | head -n1 | cut -d, -f4; }

# Every unload of the simulator module so far left all enables clear, with no faulting access
# and no constraint violation (its "unload:" line).
check_unloads_clean() {
	n=$(dmesg | grep -c 'skl_uncore_sim: unload:')
	dirty=$(dmesg | grep 'skl_uncore_sim: unload:' |
		grep -vc 'global_ctrl 0x0 fixed_ctrl 0x0 enabled 0 faults 0 violations 0$')
	if [ "$n" -ge "$1" ] && [ "$dirty" = 0 ]; then
		ok "$n unloads left no enable set, no fault, no violation"
	else
		dmesg | grep 'skl_uncore_sim: unload:' |
			grep -v 'global_ctrl 0x0 fixed_ctrl 0x0 enabled 0 faults 0 violations 0$' | sed 's/^/# /'
		not_ok "unloads clean" "$n unload lines (expected at least $1), $dirty dirty"
	fi
}

# The simulator's one IMC (one per machine, whatever the packages; skl_uncore_sim_imc.sh checks
# that): its unwrapped DRAM_DATA_READS total, from $SIM/regs.
imc_total() { sed -n 's/^totals imc \([0-9]*\) .*/\1/p' $SIM/regs; }
# The simulator's package-timer runs so far (its `polls`), and the guest's clock in ms
# (/proc/uptime: 10 ms steps; busybox date has no %N). A script that perf_open -r runs sources
# this file and sets SIM.
polls() { sed -n 's/.* polls \([0-9]*\)$/\1/p' $SIM/regs; }
uptime_ms() { awk '{ printf "%d", $1 * 1000 }' /proc/uptime; }

# without_sys CMD: runs CMD in a mount namespace without /sys (every mount under it, deepest
# first: debugfs, and securityfs on distribution kernels); fails if /sys could not go.
without_sys() {
	unshare -m sh -c "for m in \$(awk '\$2 ~ \"^/sys/\" { print \$2 }' /proc/mounts | sort -r); do
		umount \$m || exit 1; done; umount /sys && [ ! -e /sys/bus ] && $*"
}

# The simulator module and nmi_read.ko (selftests/nmi_read/, added with vm-run --add), given
# perf_event_read_local()'s address from kallsyms (the symbol is not exported to modules).
# CTL and RES: nmi_read's control and results files.
load_sim_nmi_read() {
	CTL=/sys/kernel/debug/nmi_read/ctl
	RES=/sys/kernel/debug/nmi_read/results
	insmod /lib/skl/skl_uncore_sim.ko || { echo "Bail out! insmod skl_uncore_sim failed"; exit 1; }
	addr=$(awk '$3 == "perf_event_read_local" { print $1; exit }' /proc/kallsyms)
	insmod /add/nmi_read.ko read_local=0x$addr ||
		{ echo "Bail out! insmod nmi_read failed (read_local=0x$addr)"; exit 1; }
}

ktap_end() {
	echo "1..$ktap_n"
	exit $((ktap_fail > 0))
}
