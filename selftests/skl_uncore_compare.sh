#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Linux's intel-uncore.ko and our skl_uncore.ko, one after the other in one guest, counting
# the same injected traffic on the emulated silicon (vm-run --silicon, every rate 0: exact
# counts). Events come from the register manual's tables (selftests/manual-events.txt), never
# from a driver's sysfs. Each driver's counts go into a table; then every event is checked:
# ours == linux == injected, with both columns printed side by side.
#
# Usage: skl_uncore_compare.sh [i7-6700K|i7-8665U]
#   i7-6700K (default profile, 4 counters per CBo): every manual event, clockticks, IMC data
#     reads and writes; and four CBo events as one group on uncore_cbox_0, each with its own
#     injection, the model's tally proving that counters 2 and 3 counted.
#   i7-8665U (Whiskey Lake, 2 counters per CBo): the expected difference. Linux's driver puts
#     the 3rd and 4th events of cbox_0 on counters 2 and 3, which the part lacks: RDMSR of
#     0x708 and WRMSR of 0x702 fault (vm-run --expect-report accepts exactly these two
#     reports) and those events count 0. Ours counts them: as groups of 2, exactly; as four
#     single events, rotated on 2 counters, together exactly what the model counted.
. /selftests/lib.sh

PO=/selftests/perf_open
sku=${1:-i7-6700K}
ktap_header

case "$sku" in i7-6700K | i7-8665U) ;; *) echo "Bail out! usage: skl_uncore_compare.sh [i7-6700K|i7-8665U]"; exit 1 ;; esac
check "the silicon is the $sku" "$sku" "$(skl-silicon info | sed -n 's/.* sku \([^ ]*\) .*/\1/p')"
echo "# $(skl-silicon info)"

# load linux|ours: the driver, alone (the other one unloaded first).
load() {
	case "$1" in
	linux) insmod /lib/skl/intel-uncore.ko ;;
	ours) rmmod intel_uncore && insmod /lib/skl/skl_uncore.ko ;;
	esac
	check "$1: driver loaded, uncore_cbox_0 and uncore_arb registered" "0 yes" \
		"$? $([ -d /sys/bus/event_source/devices/uncore_cbox_0 ] &&
			[ -d /sys/bus/event_source/devices/uncore_arb ] && echo yes)"
}
# counts [-g] INJECTIONS EVENT...: "count enabled running" per event while INJECTIONS ran, one
# line each (nothing for an event that did not open); -g opens the events as one group.
counts() {
	g=; [ "$1" = -g ] && { g=-g; shift; }
	cmd=$1; shift
	$PO $g -r "$cmd" "$@" 2>/dev/null | sed -n 's/^count \([0-9]*\) enabled \([0-9]*\) running \([0-9]*\)$/\1 \2 \3/p'
}
# count INJECTION EVENT: what EVENT counted while INJECTION ran.
count() { counts "$1" "$2" | cut -d' ' -f1; }
# tallies COUNTER...: what the model's CBo 0 counters counted while enabled since tally-reset.
tallies() { for c; do skl-silicon tally cbox 0 "$c" | cut -d' ' -f1; done; }
# Of "count enabled running" lines: "yes" if every event ran all the time it was enabled.
never_rotated() { awk '$2 != $3 || $2 == 0 { r = 1 } END { print r ? "no" : "yes" }'; }
# The "N counters per CBo" line of our module: N, one line per load.
cbo_counters_line() { dmesg | sed -n 's/.*skl_uncore: \([0-9]*\) counters per CBo.*/\1/p'; }

# The four CBo events scheduled together: different events, each hit only by its own
# injection (a counter counts an injection when its umask holds all the injected bits).
G="uncore_cbox_0/0x4122 uncore_cbox_0/0x4822 uncore_cbox_0/0x2134 uncore_cbox_0/0x1834"
GINJ="skl-inject cbox 0 0x22 0x41 2001; skl-inject cbox 0 0x22 0x48 2002;
	skl-inject cbox 0 0x34 0x21 2003; skl-inject cbox 0 0x34 0x18 2004"

if [ "$sku" = i7-6700K ]; then
# --- the plan: every manual event by its encoding, clockticks, IMC reads and writes ---------
# One line per event: KEY|NAME|INJECTED|PERF EVENT|INJECTION.
n=1000
grep -v '^#' /selftests/manual-events.txt | grep . > /tmp/manual
: > /tmp/plan
while read -r unit name ev um cm valid table; do
	n=$((n + 1))
	case $unit in
	cbo) pmu=uncore_cbox_0 u=cbox ;;
	arb) pmu=uncore_arb u=arb ;;
	# The fixed counter: no event select; both drivers name it event=0xff.
	clock) echo "$n|$name (Table $table; fixed counter, event=0xff)|$n|uncore_cbox_0/0xff|skl-inject clock 0 0xff 0 $n" >> /tmp/plan
		continue ;;
	*) echo "Bail out! manual-events.txt: unknown unit $unit"; exit 1 ;;
	esac
	[ "$cm" = - ] && cm=0
	config=$(printf '0x%x' $(( ev | (um << 8) | (cm << 24) )))
	echo "$n|$name (Table $table, $pmu/$config)|$n|$pmu/$config|skl-inject $u 0 $ev $um $n" >> /tmp/plan
done < /tmp/manual
check "the plan holds the manual's 20 events (14 CBo, 5 ARB, the fixed counter)" "20" "$(grep -c . /tmp/plan)"
echo "6000|uncore_imc data_reads (uncore_imc/1)|6000|uncore_imc/1|skl-inject imc 0 1 0 6000" >> /tmp/plan
echo "7000|uncore_imc data_writes (uncore_imc/2)|7000|uncore_imc/2|skl-inject imc 0 2 0 7000" >> /tmp/plan

# measure DRIVER: /tmp/DRIVER.tab, "KEY COUNT" per planned event, then the group's lines.
measure() {
	: > /tmp/$1.tab
	while IFS='|' read -r key name inj ev cmd; do
		echo "$key $(count "$cmd" "$ev")" >> /tmp/$1.tab
	done < /tmp/plan
	skl-silicon tally-reset
	counts -g "$GINJ" $G > /tmp/$1.group
	tallies 0 1 2 3 > /tmp/$1.tally
}

load linux
measure linux
load ours
check "ours: one load line 'N counters per CBo', N = 4 on the $sku" "4" "$(cbo_counters_line)"
measure ours

# --- event by event: ours == linux == injected ------------------------------------------------
printf '# %-62s %9s %9s %9s\n' "event" injected linux ours
while IFS='|' read -r key name inj ev cmd; do
	l=$(sed -n "s/^$key //p" /tmp/linux.tab); o=$(sed -n "s/^$key //p" /tmp/ours.tab)
	printf '# %-62s %9s %9s %9s\n' "$name" "$inj" "${l:--}" "${o:--}"
done < /tmp/plan
while IFS='|' read -r key name inj ev cmd; do
	check "$name: linux and ours count the $inj injected" "$inj $inj" \
		"$(sed -n "s/^$key //p" /tmp/linux.tab) $(sed -n "s/^$key //p" /tmp/ours.tab)"
done < /tmp/plan

# --- four counters scheduled: one group of 4 on uncore_cbox_0 --------------------------------
echo "# group of 4 on uncore_cbox_0 (count enabled running), linux | ours:"
paste -d'|' /tmp/linux.group /tmp/ours.group | sed 's/^/#   /'
echo "# the model's CBo 0 counters 0..3 counted, linux | ours:"
paste -d'|' /tmp/linux.tally /tmp/ours.tally | sed 's/^/#   /'
for d in linux ours; do
	check "$d: a group of 4 on uncore_cbox_0 counts 2001 2002 2003 2004, never rotated" \
		"2001 2002 2003 2004 yes" "$(echo $(cut -d' ' -f1 /tmp/$d.group)) $(never_rotated < /tmp/$d.group)"
	# From the model, not the driver: four counters counted one injection each.
	check "$d: the model's counters 0..3 of CBo 0 counted the 4 injections, one each" \
		"2001 2002 2003 2004" "$(echo $(sort -n /tmp/$d.tally))"
	# Counters 2 and 3 each counted one of the injections, and not one that counters 0 and 1
	# counted.
	t2=$(sed -n 3p /tmp/$d.tally) t3=$(sed -n 4p /tmp/$d.tally)
	check "$d: counters 2 and 3 of CBo 0 each counted an injection of its own (the model's tally)" \
		"yes yes 4" "$(for t in "$t2" "$t3"; do case "$t" in 2001 | 2002 | 2003 | 2004) echo yes ;; *) echo no ;; esac
			done | tr '\n' ' ')$(sort -u /tmp/$d.tally | grep -c .)"
done

else
# --- Whiskey Lake (i7-8665U): no CBo counters 2 and 3 -----------------------------------------
check "the silicon has 2 counters per CBo" "2" "$(skl-silicon info | sed -n 's/.* counters \([0-9]*\) .*/\1/p')"
LINJ="skl-inject cbox 0 0x22 0x41 101; skl-inject cbox 0 0x22 0x48 102; skl-inject cbox 0 0x34 0x21 103; skl-inject cbox 0 0x34 0x18 104"
LG="uncore_cbox_0/0x4122 uncore_cbox_0/0x4822 uncore_cbox_0/0x2134 uncore_cbox_0/0x1834"
# rotated DRIVER: the four events opened singly, 0.5 s of background traffic (1M/s per counter
# of CBo 0); "count enabled running" per event in /tmp/DRIVER.rot, the box's tally after.
rotated() {
	skl-silicon tally-reset
	skl-silicon rate cbox 0 1000000
	counts "sleep 0.5" $LG > /tmp/$1.rot
	skl-silicon rate cbox 0 0
	skl-silicon tally cbox 0 | cut -d' ' -f1 > /tmp/$1.rottally
}

load linux
# Linux's driver puts a group of 4 on counters 0..3: the first RDMSR of PERFCTR2 (0x708) and
# the first WRMSR of PERFEVTSEL2 (0x702, EN | 0x2134) fault; Linux reports each kind once.
skl-silicon tally-reset
counts -g "$LINJ" $LG > /tmp/linux.group
echo "# linux, group of 4 (count enabled running):"; sed 's/^/#   /' /tmp/linux.group
check "linux: a group of 4 on cbox_0 counts 101 102 0 0 (events 3, 4 on absent counters 2, 3), never rotated" \
	"101 102 0 0 yes" "$(echo $(cut -d' ' -f1 /tmp/linux.group)) $(never_rotated < /tmp/linux.group)"
check "linux: the model's counters 0 and 1 counted 101 and 102" "101 102" "$(echo $(tallies 0 1))"
dmesg | grep 'unchecked MSR access error' | sed 's/^/# /'
check "linux: exactly two unchecked MSR access reports: RDMSR from 0x708, WRMSR to 0x702 (EN | 0x2134)" \
	"RDMSR from 0x708 |WRMSR to 0x702 (tried to write 0x0000000000402134) " \
	"$(dmesg | sed -En 's/.*unchecked MSR access error: ((RDMSR|WRMSR) [a-z]+ 0x[0-9a-f]+ (\([^)]*\) )?).*/\1/p' | sort | tr '\n' '|' | sed 's/|$//')"
rotated linux
$PO -g uncore_cbox_0/0x4122/disabled=1 uncore_cbox_0/0x4822 uncore_cbox_0/0x2134 uncore_cbox_0/0x1834 \
	> /tmp/linux.open4 2>/dev/null
echo "ok ok ok ok" > /tmp/linux.open4.expected
echo "# linux, four single events (count enabled running), box tally $(cat /tmp/linux.rottally):"
sed 's/^/#   /' /tmp/linux.rot
check "linux: four single events are never rotated; events 3 and 4 count 0; 1 and 2 sum to the model's tally" \
	"yes 0 0 $(cat /tmp/linux.rottally)" \
	"$(never_rotated < /tmp/linux.rot) $(echo $(sed -n '3,4p' /tmp/linux.rot | cut -d' ' -f1)) $(sed -n '1,2p' /tmp/linux.rot | awk '{ s += $1 } END { print s }')"

load ours
check "ours: one load line 'N counters per CBo', N = 2 on the $sku" "2" "$(cbo_counters_line)"
$PO -g uncore_cbox_0/0x4122/disabled=1 uncore_cbox_0/0x4822 uncore_cbox_0/0x2134 uncore_cbox_0/0x1834 \
	> /tmp/ours.open4 2>/dev/null
echo "ok ok errno 22 EINVAL errno 22 EINVAL" > /tmp/ours.open4.expected
# The same group of 4, opened as perf stat opens a group (the leader disabled, the others
# not, so the driver sees them when it checks the group): Linux's driver takes it (4 counters,
# it believes), ours refuses the 3rd and 4th events with EINVAL.
for d in linux ours; do
	echo "# $d, group of 4 opened:"; sed 's/^/#   /' /tmp/$d.open4
	check "$d: a group of 4 on uncore_cbox_0, opened: $(cat /tmp/$d.open4.expected)" \
		"$(cat /tmp/$d.open4.expected)" "$(echo $(sed 's/^[^ ]*: //' /tmp/$d.open4))"
done
# Groups of 2: the same events, each with its injection, exactly.
skl-silicon tally-reset
counts -g "skl-inject cbox 0 0x22 0x41 101; skl-inject cbox 0 0x22 0x48 102" \
	uncore_cbox_0/0x4122 uncore_cbox_0/0x4822 > /tmp/ours.g12
counts -g "skl-inject cbox 0 0x34 0x21 103; skl-inject cbox 0 0x34 0x18 104" \
	uncore_cbox_0/0x2134 uncore_cbox_0/0x1834 > /tmp/ours.g34
cat /tmp/ours.g12 /tmp/ours.g34 > /tmp/ours.group
echo "# the four events (count enabled running), linux (group of 4) | ours (2 groups of 2):"
paste -d'|' /tmp/linux.group /tmp/ours.group | sed 's/^/#   /'
check "ours: the same 4 events as 2 groups of 2 count 101 102 103 104, never rotated" \
	"101 102 103 104 yes" "$(echo $(cut -d' ' -f1 /tmp/ours.group)) $(never_rotated < /tmp/ours.group)"
check "ours: the model's counters 0 and 1 counted 101+103 and 102+104" "204 206" "$(echo $(tallies 0 1))"
rotated ours
echo "# ours, four single events (count enabled running), box tally $(cat /tmp/ours.rottally):"
sed 's/^/#   /' /tmp/ours.rot
check "ours: four single events rotate on 2 counters (0 < running < enabled), together the model's tally" \
	"4 $(cat /tmp/ours.rottally)" \
	"$(awk '$3 > 0 && $3 < $2 && $1 > 0' /tmp/ours.rot | grep -c .) $(awk '{ s += $1 } END { print s }' /tmp/ours.rot)"
fi
ktap_end
