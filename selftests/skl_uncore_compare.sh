#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# One driver on the emulated silicon (vm-run --silicon, every rate 0), counting the same
# injected traffic as the other: run once with `ours` (skl_uncore.ko) and once with `linux`
# (Linux's intel-uncore.ko, which wants 4 counters per CBo and a global control that takes
# its reserved bit 4). Every named CBo and ARB event of ours (Tables 3-1, 3-2), opened by its
# encoding, clockticks and two IMC counters must count exactly what was injected, so the two
# runs agree event by event.
. /selftests/lib.sh

PO=/selftests/perf_open
driver=${1:-ours}
ktap_header

case "$driver" in
ours) insmod /lib/skl/skl_uncore.ko ;;
linux) insmod /lib/skl/intel-uncore.ko ;;
*) echo "Bail out! usage: skl_uncore_compare.sh ours|linux"; exit 1 ;;
esac || { echo "Bail out! insmod failed"; exit 1; }

# count INJECTION EVENT: what EVENT counted while INJECTION ran.
count() { $PO -r "$1" "$2" 2>/dev/null | sed -n 's/^count \([0-9]*\) .*/\1/p'; }

n=1000
# Not a pipe: the loop's checks must count in this shell.
grep -E '^uncore_(cbox_0|arb)/events/[a-z_.]*: event=0x[0-9a-f]*,umask' /selftests/sysfs-4cbox.expected \
	> /tmp/named
while IFS= read -r line; do
	pmu=${line%%/*}
	name=${line#*/events/}; name=${name%%:*}
	enc=${line#*: }
	ev=$(echo "$enc" | sed -n 's/.*event=\(0x[0-9a-f]*\).*/\1/p')
	um=$(echo "$enc" | sed -n 's/.*umask=\(0x[0-9a-f]*\).*/\1/p')
	cm=$(echo "$enc" | sed -n 's/.*cmask=\(0x[0-9a-f]*\).*/\1/p')
	config=$(printf '0x%x' $(( ev | (um << 8) | (${cm:-0} << 24) )))
	unit=cbox; [ "$pmu" = uncore_arb ] && unit=arb
	n=$((n + 1))
	check "$driver: $pmu $name ($config) counts $n injected" "$n" \
		"$(count "skl-inject $unit 0 $ev $um $n" "$pmu/$config")"
done < /tmp/named
check "$driver: uncore_cbox_0 clockticks (event=0xff) counts 5000 UCLK" "5000" \
	"$(count "skl-inject clock 0 0xff 0 5000" uncore_cbox_0/0xff)"
check "$driver: uncore_imc data_reads counts 6000 lines" "6000" \
	"$(count "skl-inject imc 0 1 0 6000" uncore_imc/1)"
check "$driver: uncore_imc data_writes counts 7000 lines" "7000" \
	"$(count "skl-inject imc 0 2 0 7000" uncore_imc/2)"
ktap_end
