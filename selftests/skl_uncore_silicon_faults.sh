#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# skl_uncore.ko on the emulated silicon (vm-run --silicon --s3-wake, every rate 0) while the
# world changes its registers: a real S3, whose wakeup resets the uncore; another tool's
# WRMSR through /dev/cpu/0/msr to the global control, a PERFEVTSEL and a counter; the
# silicon losing part of its state (the backdoor's lose: only GLOBAL_CTRL, only the controls,
# only the counters). Counts stay exact, and one log line names each register found changed.
. /selftests/lib.sh

PO=/selftests/perf_open
ktap_header

insmod /lib/skl/skl_uncore.ko || { echo "Bail out! insmod skl_uncore failed"; exit 1; }
# count CMD EVENT...: what the events counted while CMD ran, read meanwhile in a loop from
# CPU 0 (a count read before another tool erases its counter is the driver's; one not read yet
# is lost with the register).
count() {
	cmd=$1; shift
	echo $($PO -R 1 -r "$cmd" "$@" 2>/dev/null | sed -n 's/^count \([0-9]*\) .*/\1/p')
}

check "S3 between two injections: cbox_0, arb, clock and imc each count the sum" \
	"1234 345 5066 712" \
	"$(count "skl-inject cbox 0 0x34 0x8f 1000; skl-inject arb 0 0x81 0x01 300;
		skl-inject clock 0 0xff 0 5000; skl-inject imc 0 1 0 700;
		echo mem > /sys/power/state;
		skl-inject cbox 0 0x34 0x8f 234; skl-inject arb 0 0x81 0x01 45;
		skl-inject clock 0 0xff 0 66; skl-inject imc 0 1 0 12" \
		uncore_cbox_0/0x8f34 uncore_arb/0x181 uncore_clock/0xff uncore_imc/1)"
check "the silicon went through S3" "1" "$(dmesg | grep -c 'Waking up from system sleep state S3')"
check "an announced suspend logs no 'changed by someone else'" "0" \
	"$(dmesg | grep -c 'changed by someone else')"

check "wrmsr 0xe01 0, then 13 s later 500 injected: 500" "500" \
	"$(count "msr 0 0xe01 0; sleep 13; skl-inject cbox 1 0x34 0x8f 500" uncore_cbox_1/0x8f34)"
check "a rewritten PERFEVTSEL (CBo 0 counter 0) is repaired: 700 of 700" "700" \
	"$(count "msr 0 0x700 0x408122; sleep 13; skl-inject cbox 0 0x34 0x8f 700" uncore_cbox_0/0x8f34)"
check "a counter zeroed by another tool: 1000 + 10, no 2^44 jump" "1010" \
	"$(count "skl-inject cbox 1 0x34 0x8f 1000; sleep 1.5; msr 0 0x716 0; sleep 1.5;
		skl-inject cbox 1 0x34 0x8f 10" uncore_cbox_1/0x8f34)"
check "the log names MSR_UNC_PERF_GLOBAL_CTRL" "yes" \
	"$(dmesg | grep -q 'MSR_UNC_PERF_GLOBAL_CTRL (0xe01) was reset or changed by someone else' && echo yes)"
check "the log names MSR_UNC_CBO_0_PERFEVTSEL0" "yes" \
	"$(dmesg | grep -q 'MSR_UNC_CBO_0_PERFEVTSEL0 (0x700) was reset or changed by someone else' && echo yes)"

# Partial losses: the driver's check (every 10 s, 2.5 s of slack) repairs what it programmed.
# lines TEXT: how many log lines since the last dmesg -c hold TEXT.
lines() { dmesg | grep -c "$1"; }
dmesg -c >/dev/null
check "lose global, then 13 s later 400 injected: 400" "400" \
	"$(count "skl-silicon lose global; sleep 13; skl-inject cbox 1 0x34 0x8f 400" uncore_cbox_1/0x8f34)"
check "lose global: one line names MSR_UNC_PERF_GLOBAL_CTRL" "1 1" \
	"$(lines 'was reset or changed by someone else') $(lines 'MSR_UNC_PERF_GLOBAL_CTRL (0xe01) was reset or changed by someone else')"
dmesg -c >/dev/null
check "lose ctrl (PERFEVTSELs, FIXED_CTRL), 13 s later cbox_0 600, arb 60, clock 6000" "600 60 6000" \
	"$(count "skl-silicon lose ctrl; sleep 13; skl-inject cbox 0 0x34 0x8f 600;
		skl-inject arb 0 0x81 0x01 60; skl-inject clock 0 0xff 0 6000" \
		uncore_cbox_0/0x8f34 uncore_arb/0x181 uncore_clock/0xff)"
dmesg | grep 'was reset or changed' | sed 's/^\[[^]]*\] /# /'
check "lose ctrl: one line, naming a control found changed (CBo 0, ARB PERFEVTSEL0 or FIXED_CTRL)" "1 1" \
	"$(lines 'was reset or changed by someone else') $(dmesg | grep -cE \
		'MSR_UNC_(CBO_0_PERFEVTSEL0 \(0x700\)|ARB_PERFEVTSEL0 \(0x3b2\)|PERF_FIXED_CTRL \(0x394\)) was reset or changed')"
dmesg -c >/dev/null
check "lose counters between injections: cbox_1 1000 + 10, clock 2000 + 20, no 2^44 jump" "1010 2020" \
	"$(count "skl-inject cbox 1 0x34 0x8f 1000; skl-inject clock 0 0xff 0 2000; sleep 1.5;
		skl-silicon lose counters; sleep 13; skl-inject cbox 1 0x34 0x8f 10;
		skl-inject clock 0 0xff 0 20" uncore_cbox_1/0x8f34 uncore_clock/0xff)"
# Which of the two lost counters the driver meets first depends on timing: either is right.
# A read finds the reset; the watchdog (every 10 s, 2.5 s of slack) logs it: hence the 13 s.
dmesg | grep 'was reset or changed' | sed 's/^\[[^]]*\] /# /'
check "lose counters: one line, naming a counter found changed (CBo 1 PERFCTR0 or FIXED_CTR)" "1 1" \
	"$(lines 'was reset or changed by someone else') $(dmesg | grep -cE \
		'MSR_UNC_(CBO_1_PERFCTR0 \(0x716\)|PERF_FIXED_CTR \(0x395\)) was reset or changed')"
rmmod skl_uncore
check "rmmod skl_uncore" "0" "$?"
check "unload left the global control clear" "0x0" "$(msr 0 0xe01)"
ktap_end
