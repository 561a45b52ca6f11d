#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# skl_uncore.ko on one part of the emulated silicon, booted with that part's real core count
# as vCPUs (vm-run --silicon --silicon-opt sku=SKU --cpus CORES, every rate 0). Exactly: the
# PMUs it registers and its one CBo line; every uncore_cbox_N counts an injection into its own
# box; the CBo MSRs it touches, seen twice (the kernel's msr tracepoints and the model's access
# counts), are the blocks it registered and no other: CBo 7 at 0xF70, never 0x770..0x77F, never
# a block past its count (the fifth block at 0x740 of the 4-core parts). Then the counters per
# CBo: the log line's number, a group of NCTR events on a CBo counts each of its injections,
# the model saw every counter of the box count, and a group larger than the box is refused.
# The expectations are this file's own (see "CBo count on real parts" in design.rst).
#
# Usage: skl_uncore_silicon_parts.sh SKU NCTR
#   SKU   the device's sku= (i7-6700K, manual, 2-core, i7-8665U, i9-9900K, i9-10900K)
#   NCTR  counters per CBo the driver must find and use (4 or 2)
. /selftests/lib.sh

sku=$1 nctr=$2
PO=/selftests/perf_open
DEV=/sys/bus/event_source/devices
T=/sys/kernel/tracing
ktap_header

# --- the part: CORES CBOS BLOCKS, then the CBo line after "Skylake: " ----------------------
# CORES: real cores (= vCPUs); CBOS: CBo PMUs expected; BLOCKS: CBo blocks in the model.
L="MSR_UNC_CBO_CONFIG"
case $sku in
i7-6700K) part="4 4 5" line="$L 0x5 (NO_CBO_BANKS 5), 4 cores: 4 CBo PMUs (NO_CBO_BANKS - 1 = 4)" ;;
manual) part="4 4 4" line="$L 0x5 (NO_CBO_BANKS 5), 4 cores: 4 CBo PMUs (NO_CBO_BANKS - 1 = 4)" ;;
2-core) part="2 2 3" line="$L 0x3 (NO_CBO_BANKS 3), 2 cores: 2 CBo PMUs (NO_CBO_BANKS - 1 = 2)" ;;
i7-8665U) part="4 4 5" line="$L 0x5 (NO_CBO_BANKS 5), 4 cores: 4 CBo PMUs (NO_CBO_BANKS - 1 = 4)" ;;
i9-9900K) part="8 8 8" line="$L 0x9 (NO_CBO_BANKS 9), 8 cores: 8 CBo PMUs (NO_CBO_BANKS - 1 = 8)" ;;
i9-10900K) part="10 8 8" line="$L 0xb (NO_CBO_BANKS 11), 10 cores: 8 CBo PMUs (NO_CBO_BANKS - 1 = 10, clamped to 8, the most with known MSR addresses)" ;;
*) echo "Bail out! unknown part '$sku'"; exit 1 ;;
esac
set -- $part
cores=$1 ncbo=$2 blocks=$3
case $nctr in 2 | 4) ;; *) echo "Bail out! NCTR must be 2 or 4, not '$nctr'"; exit 1 ;; esac

hex() { printf '%#x' "$1"; }
seq0() { n=0; while [ $n -lt $1 ]; do echo $n; n=$((n + 1)); done; }
# PERFEVTSEL0 of CBo N: 0x700 + 0x10 N, CBo 7 at 0xF70.
evtsel0() { [ $1 = 7 ] && echo $((0xf70)) || echo $((0x700 + 0x10 * $1)); }
# block ADDR(hex, no 0x): the CBo block an MSR address belongs to, "0x77x" for 0x770..0x77F.
block_of() {
	a=$((0x$1))
	if [ $a -ge $((0x700)) ] && [ $a -le $((0x76f)) ]; then echo $(((a - 0x700) / 16))
	elif [ $a -ge $((0xf70)) ] && [ $a -le $((0xf7f)) ]; then echo 7
	else echo "$(hex $a)"; fi
}
# perf_open's output goes to /tmp/po too, printed as a comment when a check on it fails.
po() { $PO "$@" > /tmp/po 2>&1; }
# check_po NAME EXPECTED ACTUAL: check, and perf_open's output after a failure.
check_po() {
	check "$@"
	[ "$2" = "$3" ] || sed 's/^/# perf_open: /' /tmp/po
}
counts() { po "$@"; echo $(sed -n 's/^count \([0-9]*\) .*/\1/p' /tmp/po); }
# What perf_event_open said for each event: "ok" or the errno's name.
opens() { po "$@"; echo $(sed -n 's/^[^ ]*: \(ok\|errno [0-9]* \(.*\)\)$/\1/p' /tmp/po | sed 's/^errno [0-9]* //'); }

check "the device runs the part $sku" "sku $sku blocks $blocks" "$(skl-silicon info | grep -o 'sku [^ ]* config [^ ]* blocks [0-9]*' | sed 's/ config [^ ]*//')"
check "$cores vCPUs, one package: the part's cores" "$cores 1" \
	"$(grep -c ^processor /proc/cpuinfo) $(cat /sys/devices/system/cpu/cpu*/topology/physical_package_id | sort -u | wc -l)"
if [ "$blocks" -gt "$ncbo" ] && [ "$ncbo" -lt 7 ]; then
	# The 4-core parts' fifth block (the VirtualBox probe of the i7-6700K): present, unused.
	b=$(evtsel0 $ncbo)
	check "the model has block $ncbo at $(hex $b) (PERFEVTSEL0 takes a write)" "$(hex $b) gp 0xffffffffe0230000 ignore 0" \
		"$(msr-probe 0 $(hex $b) $(hex $b))"
	# The probe faulted on purpose (once per #GP bit of the mask): not the driver's.
	check "msr-probe's own faults, as its mask says" "msr $(hex $b) gp 38 violations 0" "$(skl-silicon faults)"
	skl-silicon faults-reset
fi

# --- the load, traced -----------------------------------------------------------------------
mount -t tracefs nodev $T 2>/dev/null
F="(msr >= 0x700 && msr <= 0x77f) || (msr >= 0xf70 && msr <= 0xf7f)"
echo 4096 > $T/buffer_size_kb
for e in read_msr write_msr; do
	echo "$F" > $T/events/msr/$e/filter && echo 1 > $T/events/msr/$e/enable ||
		{ echo "Bail out! cannot trace msr:$e"; exit 1; }
done
echo > $T/trace
skl-silicon stats-reset
skl-silicon tally-reset
dmesg -c >/dev/null
echo 1 > $T/tracing_on

insmod /lib/skl/skl_uncore.ko
check "insmod skl_uncore" "0" "$?"
cbos=$(seq0 $ncbo | sed 's/^/uncore_cbox_/' | tr '\n' ' ')
check "PMUs: arb, $ncbo CBos, clock, imc" "uncore_arb ${cbos}uncore_clock uncore_imc " \
	"$(cd $DEV && ls -d uncore_* | tr '\n' ' ')"
log() { dmesg | grep 'skl_uncore: ' | sed 's/^\[[^]]*\] //'; }
check "one CBo line, exactly" "1 skl_uncore: Skylake: $line" "$(log | grep -c $L) $(log | grep $L)"
log | grep 'counters per CBo' | sed 's/^/# /'
check "one line says $nctr counters per CBo" "1 $nctr" \
	"$(log | grep -c 'counters per CBo') $(log | grep 'counters per CBo' | sed -n 's/.* \([0-9]*\) counters per CBo.*/\1/p')"
if [ "$sku" = i7-6700K ]; then
	# The simulator module registers the same names: refused, its one line naming the holder
	# (looked up in the module kset) and the fix.
	insmod /lib/skl/skl_uncore_sim.ko 2>/dev/null
	check "insmod skl_uncore_sim while skl_uncore holds the names: EBUSY" "16" "$?"
	msg="skl_uncore_sim: a PMU named uncore_cbox_0 is already registered by skl_uncore: unload it first (rmmod skl_uncore)"
	# (busybox's insmod tries finit_module, then init_module: one line per try, alike.)
	check "its line names skl_uncore and the fix, exactly" "1" \
		"$(dmesg | sed 's/^\[[^]]*\] //' | grep -xF "$msg" | sort -u | grep -c .)"
fi

# --- every CBo counts its own box ----------------------------------------------------------
# CBo n gets 100 + n events; the first block past the count gets 999 (exit 1: no counter there
# counts; 2: the part has no such block).
evs= cmd= want=
for n in $(seq0 $ncbo); do
	evs="$evs uncore_cbox_$n/0x8f34"
	cmd="$cmd skl-inject cbox $n 0x34 0x8f $((100 + n));"
	want="$want $((100 + n))"
done
cmd="$cmd skl-inject cbox $ncbo 0x34 0x8f 999 2>/dev/null; echo \$? > /tmp/past"
check_po "each uncore_cbox_N counts the injection into box N, exactly" "$(echo $want)" "$(counts -r "$cmd" $evs)"
check "box $ncbo (past the count): no counter enabled there" \
	"$([ $blocks -gt $ncbo ] && echo 1 || echo 2)" "$(cat /tmp/past)"
tallies=$(for n in $(seq0 $blocks); do skl-silicon tally cbox $n | cut -d' ' -f1; done)
check "the model's tally of each block 0..$((blocks - 1)): each counted its own injection only" \
	"$(echo $want $([ $blocks -gt $ncbo ] && echo 0))" "$(echo $tallies)"

# --- counters per CBo ----------------------------------------------------------------------
# Four events that never count each other's injections (event 0x34 umasks 0x81 and 0x16,
# event 0x22 umasks 0x41 and 0x48: neither umask of a pair holds the other).
EV="0x8134 0x1634 0x4122 0x4822"
INJ="0x34:0x81:11 0x34:0x16:22 0x22:0x41:33 0x22:0x48:44"
for n in $( [ $ncbo -gt 1 ] && echo 0 $((ncbo - 1)) || echo 0); do
	evs= cmd= want=
	i=0
	for e in $EV; do
		[ $i -lt $nctr ] || break
		evs="$evs uncore_cbox_$n/$e"
		i=$((i + 1))
	done
	i=0
	for j in $INJ; do
		[ $i -lt $nctr ] || break
		ev=${j%%:*} rest=${j#*:}
		um=${rest%%:*} c=${rest#*:}
		cmd="$cmd skl-inject cbox $n $ev $um $c;"
		want="$want $c"
		i=$((i + 1))
	done
	skl-silicon tally-reset
	check_po "cbox_$n: a group of $nctr events counts each its own injection, exactly" "$(echo $want)" \
		"$(counts -g -r "$cmd" $evs)"
	check "cbox_$n: the model saw counters 0..$((nctr - 1)) of box $n count them (tally, sorted)" \
		"$(echo $want)" \
		"$(echo $(for c in $(seq0 $nctr); do skl-silicon tally cbox $n $c | cut -d' ' -f1; done | sort -n))"
	# A group larger than the box never fits. Opened enabled, its extra members are refused.
	big=$([ $nctr = 2 ] && echo "$EV" || echo "$EV 0x8f34")
	want=$([ $nctr = 2 ] && echo "ok ok EINVAL EINVAL" || echo "ok ok ok ok EINVAL")
	check_po "cbox_$n: a group of $(echo $big | wc -w) does not fit $nctr counters: $want" \
		"$want" "$(opens -g $(for e in $big; do echo uncore_cbox_$n/$e; done))"
	# Opened disabled, to be enabled later (perf_open -r): refused alike. (Linux checks only
	# the enabled members at open; such a group then never runs, and each failed try to
	# schedule it gives its leader a moment of running time and a count of 0.)
	check_po "cbox_$n: the same group opened disabled is refused alike: $want" "$want" \
		"$(opens -g -r "$cmd skl-inject cbox $n 0x34 0x8f 55" $(for e in $big; do echo uncore_cbox_$n/$e; done))"
done

rmmod skl_uncore
check "rmmod skl_uncore" "0" "$?"
echo 0 > $T/tracing_on

# --- which CBo MSRs the driver touched, load to unload ------------------------------------
# One line per access: read_msr|write_msr ADDR VALUE (hex, no 0x).
grep -E ' (read|write)_msr: ' $T/trace |
	sed 's/.* \(read_msr\|write_msr\): \([0-9a-f]*\), value \([0-9a-f]*\).*/\1 \2 \3/' > /tmp/msrs
check "the trace lost nothing" "0" "$(cat $T/per_cpu/cpu*/stats | sed -n 's/^overrun: //p' | awk '{s += $1} END {print s + 0}')"
want=$(echo $(seq0 $ncbo))
check "msr tracepoints: the CBo blocks read or written are 0..$((ncbo - 1)), no other" "$want" \
	"$(echo $(cut -d' ' -f2 /tmp/msrs | while read a; do block_of $a; done | sort -u | sort -n))"
check "msr tracepoints: nothing in 0x770..0x77f" "0" "$(grep -c '^[a-z_]* 77[0-9a-f] ' /tmp/msrs)"
skl-silicon stats | grep -E '^msr 0x(7[0-7]|f7)[0-9a-f] ' > /tmp/stats
if [ "$blocks" -gt "$ncbo" ] && [ "$ncbo" -lt 7 ]; then
	b=$(printf %x $(evtsel0 $ncbo)); b=${b%0}
	check "block $ncbo at 0x${b}0..0x${b}f, present in the model, never read or written (tracepoints, model)" \
		"0 0" "$(grep -c "^[a-z_]* $b[0-9a-f] " /tmp/msrs) $(grep -c "^msr 0x$b[0-9a-f] " /tmp/stats)"
fi
check "the model's access counts: the CBo blocks accessed are 0..$((ncbo - 1)), no other" "$want" \
	"$(echo $(sed 's/^msr 0x\([0-9a-f]*\) .*/\1/' /tmp/stats | while read a; do block_of $a; done | sort -u | sort -n))"
if [ $ncbo = 8 ]; then
	check "CBo 7 through 0xF70: PERFEVTSEL0 written, PERFCTR0 read (msr tracepoints)" "yes yes" \
		"$(grep -q '^write_msr f70 ' /tmp/msrs && echo yes) $(grep -q '^read_msr f76 ' /tmp/msrs && echo yes)"
	check "CBo 7 through 0xF70: the model counted writes of 0xf70 and reads of 0xf76" "yes yes" \
		"$(grep -qE '^msr 0xf70 reads [0-9]+ writes [1-9]' /tmp/stats && echo yes) $(grep -qE '^msr 0xf76 reads [1-9]' /tmp/stats && echo yes)"
fi
if [ $nctr = 4 ]; then
	# written_en ADDR: "yes" if the trace has a write of ADDR with EN (bit 22) set, an event's
	# programming (the load's probe of CBo 0 writes EN clear).
	written_en() {
		grep "^write_msr $(printf %x $1) " /tmp/msrs | while read op a v; do
			[ $((0x$v & 0x400000)) -ne 0 ] && { echo yes; break; }; done
	}
	l=$(evtsel0 $((ncbo - 1)))
	check "counters 2 and 3 programmed on CBo 0 and CBo $((ncbo - 1)): PERFEVTSEL2/3 written with EN" \
		"yes yes yes yes" "$(for a in $((0x702)) $((0x703)) $((l + 2)) $((l + 3)); do
			[ "$(written_en $a)" = yes ] && echo yes || echo "no $(hex $a)"; done | tr '\n' ' ' | sed 's/ $//')"
fi
ktap_end
