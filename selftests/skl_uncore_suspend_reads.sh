#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Reads from another CPU and in NMI across a real S3 (issue 30, item 1), on the simulator,
# which resets its registers on resume as the silicon does. nmi_read.ko (selftests/nmi_read/)
# opens CBo 0, ARB and UCLK kernel counters on CPU 0 and reads them in NMI on CPU 0 and on
# CPU 1 (another CPU of the package: perf's PERF_EV_CAP_READ_SCOPE), one-off and in a loop
# that runs before the suspend and again as soon as user space thaws. Every read, before,
# right after and later, is exactly what was injected so far: both bounds, no wrap invented
# against the baseline from before the sleep, none going backwards.
#
# Usage: skl_uncore_suspend_reads.sh (vm-run --s3-wake --cpus 2 --add nmi_read.ko)
. /selftests/lib.sh
ktap_header

DEV=/sys/bus/event_source/devices
SIM=/sys/kernel/debug/skl_uncore_sim

grep -qw mem /sys/power/state || { echo "Bail out! no S3 (mem) in /sys/power/state"; exit 1; }
load_sim_nmi_read
# Exact counts: UCLK counts only what is injected.
echo "clock 0 0 0" > $SIM/rate
log0=$(dmesg | wc -l)
for e in "$(cat $DEV/uncore_cbox_0/type) 0x8f34" "$(cat $DEV/uncore_arb/type) 0x0181" \
	"$(cat $DEV/uncore_clock/type) 0xff"; do
	echo "open 0 $e" > $CTL || not_ok "open $e" "refused"
done
inj() { echo "$*" > $SIM/inject; }
# NMI reads on CPUs $*: "CPU: CBO ARB UCLK;" per CPU, of the reads that ran in NMI on that
# CPU without error.
reads() {
	n=$(grep -c '^read ' $RES)
	for c in "$@"; do echo "read $c" > $CTL || echo "NMI read on CPU $c failed"; done
	grep '^read ' $RES | tail -n +$((n + 1)) |
		awk '$6 == 0 && $14 == 1 && $16 == $2 { v[$2] = v[$2] " " $8 } END { for (c in v) print c ":" v[c] }' |
		sort | tr '\n' ';'
}

inj cbox 0 0x34 0x8f 1000
inj arb 0 0x81 0x01 300
inj clock 0 0xff 0 5000
check "before S3: NMI reads on CPU 0 and CPU 1 read the injected totals" \
	"0: 1000 300 5000;1: 1000 300 5000;" "$(reads 0 1)"
# The loop of NMI reads on both CPUs, 20 ms at a time: user space freezes between two.
(while [ ! -e /tmp/stop ]; do echo 'loop 20' > $CTL || exit 1; done) &
loop=$!
sleep 1
echo mem > /sys/power/state
rc=$?
# The first thing after the thaw: the counts as they were (the counters reset in S3).
after=$(reads 1 0)
sleep 1
inj cbox 0 0x34 0x8f 234
inj arb 0 0x81 0x01 45
inj clock 0 0xff 0 66
sleep 1
touch /tmp/stop
wait $loop
check "echo mem > /sys/power/state returned 0, the NMI loop 0" "0 0" "$rc $?"
check "the guest went through S3 and back; the model reset on resume" "1 1 1" \
	"$(dmesg | grep -c 'Preparing to enter system sleep state S3') $(dmesg | grep -c 'Waking up from system sleep state S3') $(dmesg | grep -c 'skl_uncore_sim: model reset (resume)')"
check "right after S3: NMI reads on CPU 1 and CPU 0 read the totals from before it" \
	"0: 1000 300 5000;1: 1000 300 5000;" "$after"
check "after more injections: the new totals, on both CPUs" \
	"0: 1234 345 5066;1: 1234 345 5066;" "$(reads 1 0)"
grep -E '^loop' $RES | sed 's/^/# /'
rounds=$(awk '/^loop rounds/ { print $3 }' $RES)
if [ "${rounds:-0}" -ge 20 ]; then ok "NMI loop: $rounds rounds on both CPUs"; else not_ok "NMI loop rounds" "${rounds:-0} < 20"; fi
check "NMI loop: every read handled, in NMI, on its CPU" "0 0 0" \
	"$(awk '/^loop rounds/ { print $5, $7, $9 }' $RES)"
# Each event read on CPUs 0 and 1 (mask 0x3), no error, never backwards, its last read
# within the totals (a wrap invented across S3 would be 2^44 above them).
check "NMI loop: every read within [0, total], never backwards, on both CPUs" \
	"0x3 0 0 1234;0x3 0 0 345;0x3 0 0 5066;" \
	"$(awk '/^loop ev/ { printf "%s %s %s %s;", $5, $9, $11, $13 }' $RES)"
echo close > $CTL
check "final counts (process context): the totals" "1234 345 5066" \
	"$(awk '/^final/ { printf "%s%s", s, $5; s = " " }' $RES)"
rmmod nmi_read
check "rmmod nmi_read" "0" "$?"
long='INFO: NMI handler (.*) took too long to run: [0-9.]* msecs$'
check "an announced suspend logs nothing of ours, no unknown NMI" "" \
	"$(dmesg | tail -n +$((log0 + 1)) | grep -iE 'skl_uncore|nmi' | grep -v "$long" |
		grep -v 'skl_uncore_sim: model reset (resume)')"
rmmod skl_uncore_sim
check "rmmod skl_uncore_sim" "0" "$?"
check_unloads_clean 1
ktap_end
