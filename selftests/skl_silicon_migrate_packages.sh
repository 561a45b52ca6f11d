#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# skl_uncore.ko counting across a migration of a two-package guest (vm-run --silicon --migrate
# --cpus 4,sockets=2,cores=2, every rate 0): skl_silicon_migrate.sh's move, with each package's
# own state. One perf stat spans the move, with injections before and after on both packages,
# and each package must count its own exactly (--per-socket); the registers the driver
# programmed, a backdoor preset and the count tally are checked per package, so a package whose
# register file did not arrive (or arrived as the other's) shows. The IMC is one per machine
# (one MCHBAR): injected through both packages' CPUs, it counts each injection once.
. /selftests/lib.sh
ktap_header

check "two packages of two CPUs" "0-1 2-3" \
	"$(cat /sys/devices/system/cpu/cpu0/topology/package_cpus_list) $(cat /sys/devices/system/cpu/cpu2/topology/package_cpus_list)"
insmod /lib/skl/skl_uncore.ko || { echo "Bail out! insmod failed"; exit 1; }
# The rates are the machine's (qemu/README.md): UCLK at 50 MHz in both packages.
skl-silicon rate clock 0 50000000
# A #GP on purpose in each package (an absent MSR of CBo 0's block): the fault tally is the
# machine's and is not migrated, so its emptying tells the guest it runs on the second QEMU.
msr 0 0x70f >/dev/null 2>&1
msr 2 0x70f >/dev/null 2>&1
check "the marker faults are tallied, one per package" "msr 0x70f gp 2 violations 0" "$(skl-silicon faults)"
# CBo 3 counter 3 (no PMU of a 2-core package uses it): a different value in each package.
skl-preset cbox 3 3 0xabcdef12345
SKL_SILICON_CPU=2 skl-preset cbox 3 3 0x123456789ab

# What the driver programmed in each package while perf counts, read before and after the
# move: GLOBAL_CTRL, then CBo 0's and CBo 1's PERFEVTSEL0.
cat > /tmp/across <<'EOF'
regs() { for c in 0 2; do printf '%s ' $(msr $c 0xe01) $(msr $c 0x700) $(msr $c 0x710); done; }
regs > /tmp/regs.before
skl-inject cbox 0 0x34 0x8f 1000
SKL_SILICON_CPU=2 skl-inject cbox 0 0x34 0x8f 2000
SKL_SILICON_CPU=2 skl-inject cbox 1 0x34 0x8f 300
skl-inject imc 0 1 0 500
echo SKL-VM-MIGRATE
# Wait for the second QEMU: its fault tally starts empty.
i=0
while [ -n "$(skl-silicon faults)" ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
echo "$i" > /tmp/waited
regs > /tmp/regs.after
skl-inject cbox 0 0x34 0x8f 2345
SKL_SILICON_CPU=2 skl-inject cbox 0 0x34 0x8f 4321
SKL_SILICON_CPU=2 skl-inject cbox 1 0x34 0x8f 33
# The IMC through package 1's CPU: the same counter as package 0's.
SKL_SILICON_CPU=2 skl-inject imc 0 1 0 77
EOF
perf stat -x, --per-socket -o /tmp/across.csv -a -e uncore_cbox_0/event=0x34,umask=0x8f/ \
	-e uncore_cbox_1/event=0x34,umask=0x8f/ -e uncore_imc/event=0x1/ -- sh /tmp/across
echo "# waited $(cat /tmp/waited) x 0.1 s for the second QEMU"
grep -v '^#' /tmp/across.csv | grep . | sed 's/^/# /'
check "the guest moved to the second QEMU (its fault tally started empty)" "" "$(skl-silicon faults)"
# "SOCKET:COUNT" per PMU, from the CSV rows "S0,CPUS,COUNT,,EVENT,...".
per_socket() { echo $(grep -v '^#' /tmp/across.csv | awk -F, -v e="$1" 'index($5, e) == 1 { print $1 ":" $3 }'); }
check "CBo 0 counts its package's injections: 1000 + 2345 in package 0, 2000 + 4321 in package 1" \
	"S0:3345 S1:6321" "$(per_socket uncore_cbox_0/)"
check "CBo 1 counts only package 1's: 300 + 33, package 0's nothing" "S0:0 S1:333" "$(per_socket uncore_cbox_1/)"
check "the IMC counts 500 (through package 0) + 77 (through package 1) once, in one context" \
	"S0:577" "$(per_socket uncore_imc/)"
before=$(cat /tmp/regs.before)
check "GLOBAL_CTRL and CBo 0, 1 PERFEVTSEL0 of both packages: the same after the move" \
	"$before" "$(cat /tmp/regs.after)"
# Not a vacuous match: in each package the driver had the uncore on (GLOBAL_CTRL.EN, bit 29)
# and both events enabled (PERFEVTSEL.EN, bit 22).
set -- $before
if [ $# = 6 ] && [ $(($1 & $4 & 0x20000000)) != 0 ] && [ $(($2 & $3 & $5 & $6 & 0x400000)) != 0 ]; then
	ok "both packages were counting: GLOBAL_CTRL.EN and both PERFEVTSEL.EN set ($before)"
else
	not_ok "both packages were counting" "registers: '$before'"
fi
check "package 0's backdoor preset arrived (CBo 3 counter 3)" "0xabcdef12345" "$(skl-silicon peek cbox 3 3)"
check "package 1's backdoor preset arrived as its own (CBo 3 counter 3)" "0x123456789ab" \
	"$(SKL_SILICON_CPU=2 skl-silicon peek cbox 3 3)"
# The count tallies restart on load (not migrated): in each package they hold what was
# injected after the move, from one start (the loaded counters found counting).
check "the second QEMU's tallies, package 0's CBo 0 / package 1's CBo 0 / CBo 1: after the move only" \
	"2345 1 / 4321 1 / 33 1" \
	"$(skl-silicon tally cbox 0) / $(SKL_SILICON_CPU=2 skl-silicon tally cbox 0) / $(SKL_SILICON_CPU=2 skl-silicon tally cbox 1)"
# The rate changed at run time migrated, for both packages: each UCLK at 50 MHz.
t0=$(cut -d' ' -f1 /proc/uptime)
perf stat -x, --per-socket -o /tmp/clk.csv -a -e uncore_clock/clockticks/ -- sleep 1
t1=$(cut -d' ' -f1 /proc/uptime)
hi=$(awk -v t0="$t0" -v t1="$t1" 'BEGIN { printf "%d", 50000000 * (t1 - t0 + 0.02) }')
for s in S0 S1; do
	c=$(grep -v '^#' /tmp/clk.csv | awk -F, -v s=$s '$1 == s { print $3 }')
	if [ -n "$c" ] && [ "$c" -ge 49500000 ] && [ "$c" -le "$hi" ]; then
		ok "$s: UCLK still at the run-time rate after the move ($c ticks over a 1 s sleep, 49500000..$hi)"
	else
		not_ok "$s: UCLK still at the run-time rate after the move" "'$c' ticks over a 1 s sleep, not in 49500000..$hi"
	fi
done
rmmod skl_uncore
check "rmmod skl_uncore" "0" "$?"
ktap_end
