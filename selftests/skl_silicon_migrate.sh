#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# skl_uncore.ko counting across a migration of the guest (vm-run --silicon --migrate, every rate
# 0): one perf stat spans it, with injections before and after, and must count each exactly;
# the registers the driver programmed, a counter preset through the backdoor and a clock rate
# changed at run time all arrive in the second QEMU. The model's fault tally is not migrated
# (qemu/README.md): a #GP taken on purpose before the move, gone after it, tells this script
# that it runs on the second QEMU.
. /selftests/lib.sh
ktap_header

insmod /lib/skl/skl_uncore.ko || { echo "Bail out! insmod failed"; exit 1; }
# A clock rate set at run time (the device booted with uclk-hz=0).
skl-silicon rate clock 0 50000000
msr 0 0x70f >/dev/null 2>&1   # a #GP on purpose: an MSR of CBo 0's block that is absent
check "the marker fault is tallied" "msr 0x70f gp 1 violations 0" "$(skl-silicon faults)"
# CBo 3 counter 3 (unused by these events): a value set before the move.
skl-preset cbox 3 3 0xabcdef12345

cat > /tmp/across <<'EOF'
skl-inject cbox 0 0x34 0x8f 1000
skl-inject imc 0 1 0 500
echo SKL-VM-MIGRATE
# Wait for the second QEMU: its fault tally starts empty.
i=0
while [ -n "$(skl-silicon faults)" ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
echo "$i" > /tmp/waited
skl-inject cbox 0 0x34 0x8f 2345
skl-inject imc 0 1 0 77
EOF
perf stat -x, -o /tmp/across.csv -a -e uncore_cbox_0/event=0x34,umask=0x8f/ -e uncore_imc/event=0x1/ \
	-- sh /tmp/across
echo "# waited $(cat /tmp/waited) x 0.1 s for the second QEMU"
check "the guest moved to the second QEMU (its fault tally started empty)" "" "$(skl-silicon faults)"
check "a CBo event counts 1000 before and 2345 after the move: 3345" "3345" \
	"$(grep -v '^#' /tmp/across.csv | grep uncore_cbox_0 | cut -d, -f1)"
check "an IMC event counts 500 + 77 across it" "577" \
	"$(grep -v '^#' /tmp/across.csv | grep uncore_imc | cut -d, -f1)"
check "the backdoor preset arrived (CBo 3 counter 3)" "0xabcdef12345" "$(skl-silicon peek cbox 3 3)"
# The rate changed at run time migrated: UCLK at 50 MHz over a busy second.
t0=$(cut -d' ' -f1 /proc/uptime)
perf stat -x, -o /tmp/clk.csv -a -e uncore_clock/clockticks/ -- sleep 1
t1=$(cut -d' ' -f1 /proc/uptime)
c=$(perf_count /tmp/clk.csv)
hi=$(awk -v t0="$t0" -v t1="$t1" 'BEGIN { printf "%d", 50000000 * (t1 - t0 + 0.02) }')
if [ "$c" -ge 49500000 ] && [ "$c" -le "$hi" ]; then
	ok "UCLK still at the run-time rate after the move ($c ticks over a 1 s sleep, 49500000..$hi)"
else
	not_ok "UCLK still at the run-time rate after the move" "$c ticks over a 1 s sleep, not in 49500000..$hi"
fi
rmmod skl_uncore
check "rmmod skl_uncore" "0" "$?"
ktap_end
