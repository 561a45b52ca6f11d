#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Registers that fault (issue 21, item 3), in skl_uncore_sim's model: a control register that
# exists but refuses EN, a counter whose read faults, a control register whose read faults. No
# event ever presents a number that did not come from a counter: an event that cannot count is
# "not counted" (add fails with EIO, perf keeps it off the PMU) or refused at open (EIO); each
# fault is logged once and the register is not tried again (the model's fault count).
. /selftests/lib.sh

SIM=/sys/kernel/debug/skl_uncore_sim
PO=/selftests/perf_open
ktap_header

# load FAULT-LINE: a fresh module, no background traffic, the model's fault profile set.
load() {
	insmod /lib/skl/skl_uncore_sim.ko nr_cbox=4
	echo "clock 0 0 0" > $SIM/rate
	for e in 1 2 3 4 5; do echo "imc 0 $e 0" > $SIM/rate; done
	echo "$1" > $SIM/fault
}
# unload: removes the module; prints the driver's fault count from its unload line.
unload() {
	rmmod skl_uncore_sim
	dmesg | grep 'skl_uncore_sim: unload:' | tail -n1 | grep -o 'faults [0-9]*'
}
# stat EVENT: perf stat's count field (CSV) for EVENT over 0.3 s; "error" if perf refused it.
stat() {
	perf stat -x, -o /tmp/st.csv -a -e "$1" -- sleep 0.3 2>/dev/null || { echo error; return; }
	perf_count /tmp/st.csv
}
inj() { echo "echo '$*' > $SIM/inject"; }
lines() { dmesg | grep -c "$1"; }

# 1. MSR_UNC_PERF_FIXED_CTRL exists but faults when CNT_EN is set: uncore_clock cannot count.
load "en-faults 0x394"
first=$(stat uncore_clock/clockticks/)
out=$($PO -r "$(inj clock 0 0xff 0 5000); sleep 0.3" uncore_clock/0xff 2>&1)
echo "$out" | sed 's/^/# /'
again=$(stat uncore_clock/clockticks/)
faults=$(unload)
check "fixed enable faults: perf stat shows the clock <not counted>, not a count" "<not counted>" "$first"
check "fixed enable faults: the next open is refused with EIO" "uncore_clock/0xff: errno 5 EIO" \
	"$(echo "$out" | grep '^uncore_clock')"
check "fixed enable faults: perf stat then reports an error, still no count" "error" "$again"
check "fixed enable faults: one log line names MSR_UNC_PERF_FIXED_CTRL" "1" \
	"$(lines 'MSR_UNC_PERF_FIXED_CTRL (0x394) faulted when written')"
check "fixed enable faults: written once, never retried" "faults 1" "$faults"

# 2. MSR_UNC_PERF_GLOBAL_CTRL refuses EN: no MSR event can count; the IMC counts on.
load "en-faults 0xe01"
first=$(stat uncore_cbox_0/event=0x34,umask=0x8f/)
out=$($PO -r "$(inj imc 0 1 0 700); sleep 0.3" uncore_imc/1 uncore_cbox_1/0x8f34 uncore_clock/0xff 2>&1)
echo "$out" | sed 's/^/# /'
faults=$(unload)
check "global enable faults: perf stat shows the CBo event <not counted>" "<not counted>" "$first"
check "global enable faults: CBo and clock refused with EIO at open, the IMC counts 700" \
	"uncore_imc/1: ok|uncore_cbox_1/0x8f34: errno 5 EIO|uncore_clock/0xff: errno 5 EIO|count 700" \
	"$(echo "$out" | grep -E '^(uncore|count)' | sed 's/ enabled.*//' | tr '\n' '|' | sed 's/|$//')"
check "global enable faults: one log line names MSR_UNC_PERF_GLOBAL_CTRL" "1" \
	"$(lines 'MSR_UNC_PERF_GLOBAL_CTRL (0xe01) faulted when written')"
check "global enable faults: written once, never retried" "faults 1" "$faults"

# 3. CBo 1's PERFCTR0 read faults: the event it was given first gets EIO (no zero baseline);
# perf schedules it again and it counts on PERFCTR1, exactly.
load "read-faults 0x716"
out=$($PO -r "sleep 0.3; $(inj cbox 1 0x34 0x8f 1000); sleep 0.3" uncore_cbox_1/0x8f34 2>&1)
echo "$out" | sed 's/^/# /'
faults=$(unload)
check "unreadable counter: the event counts every event injected on the other counter" "count 1000" \
	"$(echo "$out" | grep -o '^count [0-9]*')"
check "unreadable counter: its running time is real (it counted)" "yes" \
	"$(echo "$out" | awk '/^count/ { print ($6 > 0 ? "yes" : "no") }')"
check "unreadable counter: one log line names MSR_UNC_CBO_1_PERFCTR0" "1" \
	"$(lines 'MSR_UNC_CBO_1_PERFCTR0 (0x716) faulted when read')"
check "unreadable counter: read once, never again" "faults 1" "$faults"

# 4. CBo 2's PERFEVTSEL0 read faults: its event counts (the write works), the watchdog says so
# once and stops reading it: no "changed by someone else" every tick. One watchdog tick
# (10 s, 2.5 s of slack) passes.
load "read-faults 0x720"
before=$(lines 'changed by someone else')
out=$($PO -r "$(inj cbox 2 0x34 0x8f 500); sleep 13.5; $(inj cbox 2 0x34 0x8f 34)" uncore_cbox_2/0x8f34 2>&1)
echo "$out" | sed 's/^/# /'
faults=$(unload)
check "unreadable control: the event counts exactly" "count 534" "$(echo "$out" | grep -o '^count [0-9]*')"
check "unreadable control: one line, no 'changed by someone else'" "1 0" \
	"$(lines 'MSR_UNC_CBO_2_PERFEVTSEL0 (0x720) faulted when read') $(($(lines 'changed by someone else') - before))"
check "unreadable control: read once, never again" "faults 1" "$faults"
# 5. The same fault under a group of two on CBo 1 (perf_open -g): the leader's add fails first,
# then, with one counter left, the pair never fits. Perf takes a group's failed add as the whole
# group's (group_sched_in): the group stays off the PMU; the member never runs; the leader is
# charged only the moments between its add and the member's failed one at each rotation (perf's
# accounting, well under 1 % of enabled): no count from anywhere.
said=$(lines 'MSR_UNC_CBO_1_PERFCTR0 (0x716) faulted when read')
load "read-faults 0x716"
out=$($PO -g -r "sleep 0.2; $(inj cbox 1 0x34 0x8f 100); sleep 0.3" uncore_cbox_1/0x8f34 uncore_cbox_1/0x1134 2>&1)
echo "$out" | sed 's/^/# /'
faults=$(unload)
check "unreadable counter, a group of two: counts 0 0, member running 0, leader under 1 %" "0 0 0 yes" \
	"$(echo $(echo "$out" | awk '/^count/ { c[++n] = $2; e[n] = $4; r[n] = $6 }
		END { print c[1], c[2], r[2], (r[1] * 100 < e[1]) ? "yes" : "no: " r[1] " of " e[1] }'))"
check "unreadable counter, a group of two: one line, read once" "1 faults 1" \
	"$(($(lines 'MSR_UNC_CBO_1_PERFCTR0 (0x716) faulted when read') - said)) $faults"
# 6. Once the fault is known, such a group is refused at open (EINVAL: it does not fit the one
# counter left), where it would otherwise open and never count; a lone event still opens.
load "read-faults 0x716"
$PO -r "sleep 0.2" uncore_cbox_1/0x8f34 > /dev/null 2>&1
out=$($PO -g uncore_cbox_1/0x8f34 uncore_cbox_1/0x1134 2>&1)
echo "$out" | sed 's/^/# /'
lone=$($PO uncore_cbox_1/0x1134 2>&1)
faults=$(unload)
check "a known-unreadable counter: a group of two is refused at open, a lone event opens" \
	"uncore_cbox_1/0x8f34: ok|uncore_cbox_1/0x1134: errno 22 EINVAL|uncore_cbox_1/0x1134: ok" \
	"$(printf "%s\n%s\n" "$out" "$lone" | grep '^uncore' | tr '\n' '|' | sed 's/|$//')"
check "a known-unreadable counter: read once" "faults 1" "$faults"
ktap_end
