#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Reads in NMI context (issue 21), on the simulator: perf_event_read_local() from an NMI
# handler, as a BPF program run from a perf NMI does. TCG has no vPMU, so the test-only module
# nmi_read.ko (selftests/nmi_read/) makes the NMIs: it opens kernel counters on our PMUs and
# sends NMI IPIs to a chosen CPU, whose handler asserts in_nmi() and reads every event. With
# PERF_EV_CAP_READ_SCOPE (package scope) perf calls our read on any CPU of the event's package
# and refuses (-EINVAL) on the other package.
#
# Checks, with two packages (vm-run --cpus 4,sockets=2,cores=2):
# - exact: after known injections, every CPU of an event's package reads the injected total
#   in NMI, on that CPU; the other package's CPUs get -EINVAL; enabled = running > 0; the
#   final count (process context) is the same total;
# - rotation: NMI reads on every CPU, one after another, for as long as injections land in a
#   perf stat that multiplexes 5 CBo 0 events per package (2 kernel counters, 3 of perf
#   stat) on its 2 counters: no read fails, none goes backwards, and per package the
#   five events' counts add up exactly to what CBo 0's counters counted (the model's totals):
#   no NMI read moved a count between events, lost or invented one;
# - nothing logged by either module, no unknown NMI.
#
# Usage: skl_uncore_nmi.sh (vm-run --add nmi_read.ko --cpus 4,sockets=2,cores=2)
. /selftests/lib.sh
ktap_header

DEV=/sys/bus/event_source/devices
SIM=/sys/kernel/debug/skl_uncore_sim
INJ=1000
ROUNDS=3000

load_sim_nmi_read
log0=$(dmesg | wc -l)
pkgs=$(for c in 0 1 2 3; do cat /sys/devices/system/cpu/cpu$c/topology/physical_package_id; done | tr '\n' ' ')
check "two packages: CPUs 0,1 and 2,3" "0 0 1 1 " "$pkgs"
check "uncore_cbox_0's collectors: a CPU per package" "0,2" "$(cat $DEV/uncore_cbox_0/cpumask)"
# The simulator's register reads in NMI, and those that found its register file busy (held by
# the context the NMI interrupted or another CPU, over 0.5 ms: the read faults, and is stale).
nmi_reads() { sed -n 's/^nmi_reads \([0-9]*\) busy \([0-9]*\)$/\1 \2/p' $SIM/regs; }
cbox=$(cat $DEV/uncore_cbox_0/type)
arb=$(cat $DEV/uncore_arb/type)

# Phase 1, exact. Events 0..3: CBo 0 LLC lookups (0x8f34) on packages 0 and 1, ARB 0x0181
# on packages 0 and 1.
for e in "0 $cbox 0x8f34" "2 $cbox 0x8f34" "0 $arb 0x0181" "2 $arb 0x0181"; do
	echo "open $e" > $CTL || not_ok "open $e" "refused"
done
set -- $(nmi_reads)
r0=$1 b0=$2
echo 'cbox 0 0x34 0x8f 12345' > $SIM/inject
echo 'arb 0 0x81 0x01 777' > $SIM/inject
for c in 0 1 2 3; do echo "read $c" > $CTL || not_ok "NMI read on CPU $c" "failed or timed out"; done
# The second round from the other CPUs first, after more counts.
echo 'cbox 0 0x34 0x8f 1000' > $SIM/inject
echo 'arb 0 0x81 0x01 1' > $SIM/inject
for c in 3 2 1 0; do echo "read $c" > $CTL || not_ok "NMI read on CPU $c" "failed or timed out"; done
sed 's/^/# /' $RES
set -- $(nmi_reads)
check "our read ran in NMI: >= 16 register reads there (one per in-package read), none busy" \
	"yes 0" "$([ $(($1 - r0)) -ge 16 ] && echo yes || echo "no: $(($1 - r0))") $(($2 - b0))"
# What each read must give: the total on the event's package (round 1: 12345 and 777; round
# 2: 13345 and 778), -EINVAL (and no value) on the other; in NMI, on the CPU it was sent to.
n=0
for c in 0 1 2 3 3 2 1 0; do
	n=$((n + 1))
	for e in 0 1 2 3; do
		if [ $((e % 2)) != $((c / 2)) ]; then v="err -22 value 0"
		elif [ $e -lt 2 ]; then v="err 0 value $((n > 4 ? 13345 : 12345))"
		else v="err 0 value $((n > 4 ? 778 : 777))"; fi
		echo "read $c ev $e $v nmi 1 on $c"
	done
done > /tmp/nmi.want
awk '/^read / { print $1, $2, $3, $4, $5, $6, $7, $8, $13, $14, $15, $16 }' $RES > /tmp/nmi.got
bad=$(awk 'NR == FNR { w[FNR] = $0; next } $0 != w[FNR] { n++; print "# expected " w[FNR] "; got " $0 > "/tmp/nmi.bad" }
	END { print n + 0 }' /tmp/nmi.want /tmp/nmi.got)
check "32 NMI reads: every CPU of an event's package reads the injected total, in NMI, on that CPU; the other package -EINVAL" \
	"32 0" "$(wc -l < /tmp/nmi.got) $bad"
[ "$bad" = 0 ] || cat /tmp/nmi.bad
check "in package: enabled = running > 0 (no multiplexing)" "16" \
	"$(awk '/^read / && $6 == 0 && $10 > 0 && $10 == $12 { n++ } END { print n + 0 }' $RES)"
echo close > $CTL
check "final counts (process context): the same totals" "13345 13345 778 778" \
	"$(awk '/^final/ { printf "%s%s", s, $5; s = " " }' $RES)"

# Phase 2: NMI reads against perf's rotation, for as long as the injections last. Per package: kernel counters 0x8f34 and
# 0x1134, perf stat's 0x2134 0x4134 0x8134, all counting injections of umask 0x01, on CBo 0's
# two counters. Events 0,1 on package 0, 2,3 on package 1.
totals() { awk -v p="$1" '/^package / { pkg = $2 } /^totals fixed/ && pkg == p { for (i = 1; i <= NF; i++) if ($i == "cbox0") { print $(i + 1) + $(i + 2); exit } }' $SIM/regs; }
t0=$(totals 0) t1=$(totals 1)
set -- $(nmi_reads)
r0=$1 b0=$2
for e in "0 $cbox 0x8f34" "0 $cbox 0x1134" "2 $cbox 0x8f34" "2 $cbox 0x1134"; do
	echo "open $e" > $CTL || not_ok "open $e" "refused"
done
perf stat --no-scale -A -x';' -o /tmp/rot.csv -a -e uncore_cbox_0/event=0x34,umask=0x21/ \
	-e uncore_cbox_0/event=0x34,umask=0x41/ -e uncore_cbox_0/event=0x34,umask=0x81/ -- \
	sh -c "(while [ ! -e /tmp/injected ]; do echo 'loop 200' > $CTL || exit 1; done) & reader=\$!
		i=0; while [ \$i -lt $ROUNDS ]; do echo 'cbox 0 0x34 0x01 $INJ' > $SIM/inject; i=\$((i + 1)); done
		touch /tmp/injected; wait \$reader"
check "perf stat and the NMI loop exit 0" "0" "$?"
echo close > $CTL
t0=$(($(totals 0) - t0)) t1=$(($(totals 1) - t1))
grep -v '^#' /tmp/rot.csv | grep . | sed 's/^/# perf stat: /'
grep -E '^(loop|final)' $RES | sed 's/^/# /'
echo "# the model's totals of CBo 0's counters: package 0 $t0, package 1 $t1"
set -- $(nmi_reads)
echo "# register reads in NMI: $(($1 - r0)), of which busy (stale reads): $(($2 - b0))"
if [ $(($1 - r0)) -gt 0 ]; then ok "our read ran in NMI during the rotation"; else not_ok "our read ran in NMI during the rotation" "no register read in NMI"; fi
check "NMI loop: every read handled, in NMI, on its CPU" "0 0 0" \
	"$(awk '/^loop rounds/ { print $5, $7, $9 }' $RES)"
rounds=$(awk '/^loop rounds/ { print $3 }' $RES)
if [ "${rounds:-0}" -ge 20 ]; then ok "NMI loop: $rounds rounds of reads on the 4 CPUs"; else not_ok "NMI loop rounds" "$rounds < 20"; fi
check "NMI loop: each event read on its package's CPUs (mask 0x3, 0xc), -EINVAL on the other's, no other error, never backwards" \
	"0x3 0xc 0 0;0x3 0xc 0 0;0xc 0x3 0 0;0xc 0x3 0 0;" \
	"$(awk '/^loop ev/ { printf "%s %s %s %s;", $5, $7, $9, $11 }' $RES)"
# perf stat -A: CPU0 is package 0's collector, CPU2 package 1's.
sum() { awk -F';' -v cpu="$1" '$1 == cpu { s += $2 } END { printf "%.0f", s }' /tmp/rot.csv; }
k0=$(awk '/^final ev [01] / { s += $5 } END { printf "%.0f", s }' $RES)
k1=$(awk '/^final ev [23] / { s += $5 } END { printf "%.0f", s }' $RES)
check "package 0: the 5 events' counts add up to the model's totals" "$t0" "$((k0 + $(sum CPU0)))"
check "package 1: the 5 events' counts add up to the model's totals" "$t1" "$((k1 + $(sum CPU2)))"
# Both counters take every injection (2 x $ROUNDS x $INJ), less those that landed while perf
# reprogrammed one.
for t in $t0 $t1; do
	if [ "$t" -le $((2 * ROUNDS * INJ)) ] && [ "$t" -ge $((ROUNDS * INJ)) ]; then
		ok "totals within [1, 2] x $ROUNDS x $INJ: $t"
	else
		not_ok "totals within [1, 2] x $ROUNDS x $INJ" "$t"
	fi
done
check "every event counted (multiplexed, none starved) and none above $ROUNDS x $INJ" "10" \
	"$( (awk '/^final/ { print $5 }' $RES; grep -v '^#' /tmp/rot.csv | grep . | cut -d';' -f2) |
		awk -v m=$((ROUNDS * INJ)) '$1 > 0 && $1 <= m { n++ } END { print n + 0 }')"

rmmod nmi_read
check "rmmod nmi_read" "0" "$?"
# The NMI core times every handler by the guest's clock, which runs on while the host
# preempts the vCPU's thread (4 vCPUs on a loaded host): its "took too long" lines, for ours
# and for nmi_cpu_backtrace_handler (which only tests a cpumask) alike, say so and are no
# message of ours (shown, not counted).
long='INFO: NMI handler (.*) took too long to run: [0-9.]* msecs$'
dmesg | tail -n +$((log0 + 1)) | grep "$long" | sed 's/^/# /'
check "nothing logged by the modules, no unknown NMI" "" \
	"$(dmesg | tail -n +$((log0 + 1)) | grep -iE 'skl_uncore|nmi' | grep -v "$long")"
rmmod skl_uncore_sim
check "rmmod skl_uncore_sim" "0" "$?"
check_unloads_clean 1
ktap_end
