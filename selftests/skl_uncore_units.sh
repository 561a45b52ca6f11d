#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# All four units against the simulator: sysfs, event_init rules (exact errnos), exact counts,
# constraints, multiplexing and counter wrap.
# Usage: skl_uncore_units.sh [sim|silicon]. "silicon" runs the same tests with skl_uncore.ko on
# the emulated silicon (vm-run --silicon --cpus 4, every rate 0); checks that need the
# simulator's own bookkeeping are skipped there.
. /selftests/lib.sh
BACKEND=${1:-sim}

DEV=/sys/bus/event_source/devices
SIM=/sys/kernel/debug/skl_uncore_sim
PO=/selftests/perf_open
EINVAL=22
ktap_header

# sim_only NAME COMMAND...: a check that needs the simulator's debugfs.
sim_only() {
	if [ "$BACKEND" = sim ]; then "$@"; else ktap_n=$((ktap_n + 1)); echo "ok $ktap_n $2 # SKIP simulator only"; fi
}
if [ "$BACKEND" = silicon ]; then
	# The silicon's rates are QEMU options (uclk-hz=0, imc-*=0): nothing counts unless injected.
	insmod /lib/skl/skl_uncore.ko || { echo "Bail out! insmod failed"; exit 1; }
else
	insmod /lib/skl/skl_uncore_sim.ko nr_cbox=4 || { echo "Bail out! insmod failed"; exit 1; }
	# Nothing counts unless injected: exact counts.
	echo "clock 0 0 0" > $SIM/rate
	for e in 1 2 3 4 5; do echo "imc 0 $e 0" > $SIM/rate; done
fi

# --- sysfs --------------------------------------------------------------------------------
check "arb formats" "cmask=config:24-28 edge=config:18 event=config:0-7 inv=config:23 umask=config:8-15" \
	"$(cd $DEV/uncore_arb/format && for f in *; do printf '%s=%s ' $f "$(cat $f)"; done | sed 's/ $//')"
check "imc has format/event only (likwid adds a umask when format/umask exists)" "event" "$(ls $DEV/uncore_imc/format)"
check "cbox_0 events: 14 of Table 3-1 + clockticks" "15" "$(ls $DEV/uncore_cbox_0/events | wc -l)"
check "cbox_3 events: 14" "14" "$(ls $DEV/uncore_cbox_3/events | wc -l)"
check "arb events: 5 of Table 3-2" "5" "$(ls $DEV/uncore_arb/events | wc -l)"
check "arb cycles_with_any_request" "event=0x80,umask=0x01,cmask=0x1" \
	"$(cat $DEV/uncore_arb/events/unc_arb_trk_occupancy.cycles_with_any_request)"
check "imc events: 5 names with .scale and .unit" "15" "$(ls $DEV/uncore_imc/events | wc -l)"
check "imc data_writes" "event=0x02 6.103515625e-5 MiB" \
	"$(cd $DEV/uncore_imc/events && echo $(cat data_writes data_writes.scale data_writes.unit))"
check "every PMU has the same cpumask" "0 0 0 0 0 0 0" "$(echo $(cat $DEV/uncore_*/cpumask))"
# Every cpumask, format and events file, exactly (encodings checked against Tables 3-1..3-3).
(cd $DEV && for f in uncore_*/cpumask uncore_*/format/* uncore_*/events/*; do
	printf '%s: %s\n' "$f" "$(cat $f)"; done) > /tmp/sysfs.txt
if diff /selftests/sysfs-4cbox.expected /tmp/sysfs.txt > /tmp/sysfs.diff; then
	ok "all $(wc -l < /tmp/sysfs.txt) sysfs files of the 7 PMUs hold exactly the expected text"
else
	sed 's/^/# /' /tmp/sysfs.diff
	not_ok "every sysfs file's content" "differs from selftests/sysfs-4cbox.expected"
fi

# --- event_init rules ---------------------------------------------------------------------
errno_of() { $PO "$@" >/dev/null; echo $?; }
# An unregistered type makes perf ask every PMU: ours must decline with ENOENT, or its errno
# would reach the user.
check "foreign PMU type -> ENOENT" 2 "$(errno_of 4000/0x8f34)"
check "sampling (period) -> EINVAL" $EINVAL "$(errno_of uncore_cbox_0/0x8f34/period=1000)"
check "sampling (freq) -> EINVAL" $EINVAL "$(errno_of uncore_cbox_0/0x8f34/freq=100)"
check "per-task (pid 0, cpu -1) -> EINVAL" $EINVAL "$(errno_of uncore_cbox_0/0x8f34/pid=0,cpu=-1)"
check "exclude_user -> EINVAL" $EINVAL "$(errno_of uncore_cbox_0/0x8f34/exclude_user)"
check "exclude_kernel -> EINVAL" $EINVAL "$(errno_of uncore_arb/0x181/exclude_kernel)"
check "config bit 16 (reserved) -> EINVAL" $EINVAL "$(errno_of uncore_cbox_0/0x18f34)"
check "config bit 20 (OVF_EN) -> EINVAL" $EINVAL "$(errno_of uncore_cbox_0/0x108f34)"
check "config bit 32 -> EINVAL" $EINVAL "$(errno_of uncore_arb/0x100000181)"
check "config bit 22 (EN, Intel PCM) alone -> ok" "0" "$(errno_of uncore_cbox_0/0x400000)"
check "config1 -> EINVAL" $EINVAL "$(errno_of uncore_cbox_0/0x8f34/config1=1)"
check "config2 -> EINVAL" $EINVAL "$(errno_of uncore_cbox_0/0x8f34/config2=1)"
check "imc event 6 -> EINVAL" $EINVAL "$(errno_of uncore_imc/6)"
check "imc event 0 -> EINVAL" $EINVAL "$(errno_of uncore_imc/0)"
check "imc umask bits -> EINVAL" $EINVAL "$(errno_of uncore_imc/0x101)"
check "clockticks on cbox_1 -> EINVAL" $EINVAL "$(errno_of uncore_cbox_1/0xff)"
check "clockticks on arb -> EINVAL" $EINVAL "$(errno_of uncore_arb/0xff)"
check "clock counts only clockticks" $EINVAL "$(errno_of uncore_clock/0xfe)"
# Table 3-2: UNC_CLOCK.SOCKET on the ARB is event 0x00 umask 0x01, the fixed counter. No other
# ARB event 0 exists: refused, not programmed into a generic counter.
check "arb event=0x0,umask=0x1 (UNC_CLOCK.SOCKET) -> ok" "0" "$(errno_of uncore_arb/0x100)"
check "arb event=0x0,umask=0x1 with EN (bit 22) -> ok" "0" "$(errno_of uncore_arb/0x400100)"
check "arb event 0, umask 0 -> EINVAL" $EINVAL "$(errno_of uncore_arb/0x0)"
check "arb EN alone (event 0) -> EINVAL" $EINVAL "$(errno_of uncore_arb/0x400000)"
check "arb event 0, umask 0x2 -> EINVAL" $EINVAL "$(errno_of uncore_arb/0x200)"
check "arb event 0, umask 0x1, cmask 1 -> EINVAL" $EINVAL "$(errno_of uncore_arb/0x1000100)"
check "arb event 0, umask 0x1, edge -> EINVAL" $EINVAL "$(errno_of uncore_arb/0x40100)"
# event_init logs at most 10 lines a second: a fresh second for this one.
sleep 1
errno_of uncore_arb/0x200 >/dev/null
check "the log says why arb event 0 was refused" "1" \
	"$(dmesg | grep 'uncore_arb: config 0x200: the ARB has no event 0; event=0x0,umask=0x1 alone is UNC_CLOCK.SOCKET' | grep -c . | sed 's/^[1-9][0-9]*$/1/')"
# Perf refuses exclude_* bits itself (Capability::NoExclude), but after event_init: the driver
# refuses them first, to say why.
errno_of uncore_cbox_0/0x8f34/exclude_user >/dev/null
check "the log says why exclude_user was refused" "1" \
	"$(dmesg | grep 'uncore_cbox_0: exclude_\* filters are not supported' | grep -c . | sed 's/^[1-9][0-9]*$/1/')"
check "group of 2 ARB events + UNC_CLOCK.SOCKET -> ok" "0" \
	"$(errno_of -g uncore_arb/0x180 uncore_arb/0x181 uncore_arb/0x100)"
check "group 0x80 + 0x80 -> EINVAL" $EINVAL "$(errno_of -g uncore_arb/0x180 uncore_arb/0x280)"
check "group 0x80 + 0x81 -> ok" "0" "$(errno_of -g uncore_arb/0x180 uncore_arb/0x181)"
# Counters per CBo: the simulator's default is Table 2-1's two; the silicon's default part, the
# i7-6700K, has four, which the module finds at load and says in one line.
nctr=$(dmesg | sed -n 's/^.*skl_uncore[_a-z]*: \([0-9]\) counters per CBo: .*$/\1/p' | tail -n1)
want=2; [ "$BACKEND" = silicon ] && want=4
check "the load line: $want counters per CBo" "$want" "$nctr"
# cbo_events N BOX: N distinct CBo events of uncore_cbox_BOX.
cbo_events() { n=$1; for u in 0x8f 0x1f 0x2f 0x4f 0x11; do [ $n -gt 0 ] || break; echo "uncore_cbox_$2/${u}34"; n=$((n - 1)); done; }
check "group of $((want + 1)) CBo events on $want counters -> EINVAL" $EINVAL \
	"$(errno_of -g $(cbo_events $((want + 1)) 2))"
# Disabled members count too: enabled later, the group could never run whole.
check "group of $((want + 1)) CBo events opened disabled -> EINVAL" $EINVAL \
	"$(errno_of -g $(cbo_events $((want + 1)) 2 | sed 's,$,/disabled=1,'))"
check "group of $want CBo events + clockticks -> ok" "0" \
	"$(errno_of -g $(cbo_events $want 0) uncore_cbox_0/0xff)"

# --- exact counts -------------------------------------------------------------------------
counts() {
	cmd=$1
	shift
	$PO -r "$cmd" "$@" 2>/dev/null | sed -n 's/^count \([0-9]*\) .*/\1/p' | tr '\n' ' ' | sed 's/ $//'
}
inj() { echo "skl-inject $*"; }
# Every counter of a CBo at once, each event with its own traffic (umask 0x80 lies only
# within 0x8f, 0x10 within 0x1f, 0x20 within 0x2f, 0x40 within 0x4f).
c=$(counts "$(inj cbox 1 0x34 0x80 11); $(inj cbox 1 0x34 0x10 22); $(inj cbox 1 0x34 0x20 33); $(inj cbox 1 0x34 0x40 44)" \
	-g $(cbo_events $want 1))
check "a group on all $want counters of cbox_1 counts exactly" "$(echo 11 22 33 44 | cut -d' ' -f1-$want)" "$c"
c=$(counts "$(inj cbox 3 0x22 0x48 4242)" uncore_cbox_3/0x4822 uncore_cbox_3/0x4122)
check "cbox_3: umask subset rule (0x48 counts, 0x41 does not)" "4242 0" "$c"
# As likwid opens: on the first measured CPU of the package, disabled, with inherit.
c=$(counts "$(inj cbox 0 0x34 0x8f 1000)" uncore_cbox_0/0x8f34/cpu=1,inherit=1)
check "event opened on CPU 1 (likwid: inherit) is retargeted to the collector and counts" "1000" "$c"
c=$(counts "$(inj clock 0 0xff 0 5000)" uncore_clock/0xff uncore_cbox_0/0xff uncore_clock/0xff)
check "clockticks: both spellings, shared fixed counter, own baselines" "5000 5000 5000" "$c"
c=$(counts "$(inj clock 0 0xff 0 6000)" uncore_arb/0x100 uncore_clock/0xff)
check "uncore_arb/event=0x0,umask=0x1/ counts the fixed counter like uncore_clock/clockticks/" "6000 6000" "$c"
# A running UCLK (the simulator's rate file; the silicon's clock is a QEMU option): both events
# are enabled over the whole time the clock runs, so they see the same ticks, to the tick.
running_uclk() {
	c=$(counts "echo 'clock 0 0 3000000' > $SIM/rate; sleep 0.3; echo 'clock 0 0 0' > $SIM/rate" \
		uncore_arb/0x100 uncore_clock/0xff)
	check "$1" "yes" "$(echo $c | awk '$1 == $2 && $1 > 0 { print "yes" }')"
	echo "# UCLK ticks over the interval: $c"
}
sim_only running_uclk "under a running UCLK, arb event=0x0,umask=0x1 == uncore_clock/clockticks/ (and > 0)"
for e in 1 2 3 4 5; do
	c=$(counts "$(inj imc 0 $e 0 $((e * 1111)))" uncore_imc/$e)
	check "imc event $e counts exactly" "$((e * 1111))" "$c"
done
c=$(counts "$(inj arb 0 0x80 0x01 300); $(inj arb 0 0x81 0x01 700)" -g uncore_arb/0x181 uncore_arb/0x180)
check "arb group 0x81 + 0x80: occupancy moved to counter 0, both exact" "700 300" "$c"
perf stat -x, -o /tmp/sum.csv -a -e uncore_cbox/event=0x34,umask=0x8f/ -- sh -c \
	"$(inj cbox 0 0x34 0x8f 1); $(inj cbox 1 0x34 0x8f 20); $(inj cbox 2 0x34 0x8f 300); $(inj cbox 3 0x34 0x8f 4000)"
check "uncore_cbox/... sums all boxes" "4321" "$(perf_count /tmp/sum.csv)"

# --- multiplexing -------------------------------------------------------------------------
[ "$BACKEND" = sim ] && echo "arb 0 0 1000000" > $SIM/rate
out=$($PO -r "sleep 1" uncore_arb/0x180 uncore_arb/0x280 2>/dev/null | grep '^count')
[ "$BACKEND" = sim ] && echo "arb 0 0 0" > $SIM/rate
mux=$(echo "$out" | awk '$6 < $4 && $6 > 0 { n++ } END { print n + 0 }')
check "two occupancy events multiplex (both ran, neither all the time)" "2" "$mux"
# The simulator's count of violations; the silicon's tally per MSR (Table 3-2: on ARB counter 1,
# 0x3b3, occupancy counts 0 and is tallied).
if [ "$BACKEND" = sim ]; then
	check "occupancy never programmed on ARB counter 1" "0" "$(sed -n 's/^violations \([0-9]*\)$/\1/p' $SIM/regs 2>/dev/null)"
else
	check "occupancy never programmed on ARB counter 1 (the silicon's violation tally)" "" \
		"$(skl-silicon faults | grep -v ' violations 0$')"
fi

# --- wrap ---------------------------------------------------------------------------------
skl-preset arb 0 0 0xFFFFFFFFC18
c=$(counts "$(inj arb 0 0x81 0x01 5000)" uncore_arb/0x181)
check "44-bit ARB counter at 2^44-1000 + 5000 -> 5000" "5000" "$c"
skl-preset cbox 1 0 0xFFFFFFFFFFF
c=$(counts "$(inj cbox 1 0x34 0x8f 7)" uncore_cbox_1/0x8f34)
check "44-bit CBo counter at 2^44-1 + 7 -> 7" "7" "$c"
skl-preset clock 0 0 0xFFFFFFFFFC18
c=$(counts "$(inj clock 0 0xff 0 5000)" uncore_clock/0xff)
check "48-bit fixed counter at 2^48-1000 + 5000 -> 5000" "5000" "$c"
skl-preset imc 0 1 0xFFFFFF00
c=$(counts "$(inj imc 0 1 0 1000)" uncore_imc/1)
check "32-bit IMC counter at 2^32-256 + 1000 -> 1000" "1000" "$c"

# --- perf's names ------------------------------------------------------------------------
bad=0
n=0
for pmu in uncore_cbox_0 uncore_cbox_1 uncore_arb uncore_clock uncore_imc; do
	for ev in $(ls $DEV/$pmu/events | grep -v '\.scale$' | grep -v '\.unit$'); do
		n=$((n + 1))
		perf stat -x, -o /dev/null -a -e "$pmu/$ev/" -- true 2>/dev/null || { bad=$((bad + 1)); echo "# perf refused $pmu/$ev/"; }
	done
done
check "perf accepts every one of the $n sysfs event names" "0" "$bad"
perf stat -x, -o /tmp/named.csv -a -e uncore_cbox_2/unc_cbo_cache_lookup.write_m/ -- sh -c "$(inj cbox 2 0x34 0x21 31)"
check "a named CBo event counts" "31" "$(perf_count /tmp/named.csv)"
perf stat -x, -o /tmp/arbclk.csv -a -e uncore_arb/event=0x0,umask=0x1/ -- sh -c "$(inj clock 0 0xff 0 7000)"
check "perf stat -e uncore_arb/event=0x0,umask=0x1/ counts UCLK" "7000" "$(perf_count /tmp/arbclk.csv)"
# perf 7.3's JSON (chosen with PERF_CPUID): UNC_CLOCK.SOCKET is uncore_cbox_0 event 0xff, and
# CBO events merge across boxes.
PERF_CPUID=GenuineIntel-6-5E-3 perf stat -x, -o /tmp/json.csv -a -e unc_clock.socket -e unc_cbo_cache_lookup.any_mesi \
	-- sh -c "$(inj clock 0 0xff 0 5000); $(inj cbox 1 0x34 0x8f 70); $(inj cbox 3 0x34 0x8f 7)"
check "perf JSON: unc_clock.socket and unc_cbo_cache_lookup.any_mesi" "5000 77" \
	"$(echo $(grep -v '^#' /tmp/json.csv | grep . | cut -d, -f1))"

if [ "$BACKEND" = silicon ]; then
	rmmod skl_uncore
	# A faulting access would have been an "unchecked MSR access" splat (vm-run fails on it).
	check "unload left GLOBAL_CTRL, FIXED_CTRL and every PERFEVTSEL clear" "0x0 0x0 0x0 0x0 0x0 0x0 0x0 0x0 0x0 0x0 0x0 0x0" \
		"$(echo $(for r in 0xe01 0x394 0x3b2 0x3b3 0x700 0x701 0x710 0x711 0x720 0x721 0x730 0x731; do msr 0 $r; done))"
else
	check "no register faults" "0" "$(sed -n 's/^accesses .* faults \([0-9]*\)$/\1/p' $SIM/regs)"
	rmmod skl_uncore_sim
	check_unloads_clean 1
fi
ktap_end
