#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Debian's stock kernels: a module built outside the project's test kernels loads and counts.
# Usage: skl_uncore_stock.sh MODE [KO]
#   sim            skl_uncore_sim.ko loads (imc=1, u8 parameter) and counts an injection exactly
#   silicon [KO]   KO (default /lib/skl/skl_uncore.ko; e.g. DKMS's, signed) on the emulated
#                  silicon (every rate 0): its PMUs, an exact CBo, ARB and clock count
#   lockdown       booted with lockdown=integrity: insmod of an unsigned module is refused
#                  (EPERM), and scripts/load (in /add) says why in one line and names the fix
. /selftests/lib.sh
MODE=$1
DEV=/sys/bus/event_source/devices
PO=/selftests/perf_open
ktap_header

count() { $PO -r "$1" "$2" 2>/dev/null | sed -n 's/^count \([0-9]*\) .*/\1/p'; }

case "$MODE" in
sim)
	insmod /lib/skl/skl_uncore_sim.ko nr_cbox=2 imc=1
	check "skl_uncore_sim loads (imc=1)" "0" "$?"
	echo "clock 0 0 0" > /sys/kernel/debug/skl_uncore_sim/rate
	check "its PMUs" "uncore_arb uncore_cbox_0 uncore_cbox_1 uncore_clock uncore_imc" \
		"$(cd $DEV && ls -d uncore_* | tr '\n' ' ' | sed 's/ $//')"
	check "12345 injected LLC lookups counted exactly" "12345" \
		"$(count "skl-inject cbox 0 0x34 0x8f 12345" uncore_cbox_0/0x8f34)"
	rmmod skl_uncore_sim
	check "unloads" "0" "$?"
	insmod /lib/skl/skl_uncore_sim.ko imc=0
	check "imc=0: no uncore_imc" "no" "$([ -e $DEV/uncore_imc ] && echo yes || echo no)"
	rmmod skl_uncore_sim
	check_unloads_clean 2
	;;
silicon)
	ko=${2:-/lib/skl/skl_uncore.ko}
	insmod "$ko"
	check "insmod $ko" "0" "$?"
	check "its PMUs on the 2-core silicon" "uncore_arb uncore_cbox_0 uncore_cbox_1 uncore_clock uncore_imc" \
		"$(cd $DEV && ls -d uncore_* | tr '\n' ' ' | sed 's/ $//')"
	check "CBo 0: 4242 injected lookups counted exactly" "4242" \
		"$(count "skl-inject cbox 0 0x34 0x8f 4242" uncore_cbox_0/0x8f34)"
	check "ARB: 777 injected requests counted exactly" "777" \
		"$(count "skl-inject arb 0 0x81 0x01 777" uncore_arb/0x181)"
	check "clock: 100000 injected UCLK cycles counted exactly" "100000" \
		"$(count "skl-inject clock 0 0xff 0 100000" uncore_clock/0xff)"
	rmmod skl_uncore
	check "unloads" "0" "$?"
	;;
lockdown)
	check "the kernel is locked down (integrity)" "1" \
		"$(grep -c '\[integrity\]' /sys/kernel/security/lockdown)"
	insmod /lib/skl/skl_uncore_sim.ko 2>/dev/null
	check "insmod of the unsigned module refused" "1" "$?"
	# (Once per system call busybox's insmod tries.)
	check "the kernel says why (lockdown)" "yes" \
		"$(dmesg | grep -q 'Lockdown: insmod: unsigned module loading is restricted' && echo yes)"
	out=$(sh /add/load /lib/skl/skl_uncore_sim.ko)
	rc=$?
	check "make load fails" "1" "$rc"
	check "make load says so in one line, naming the fix" \
		"load: the kernel is locked down (Secure Boot) and refuses skl_uncore_sim: it is not signed by a key the kernel trusts; install it with DKMS (make deb), which signs it, and enroll DKMS's key: sudo mokutil --import /var/lib/dkms/mok.pub, then reboot (README: On your own machine)" \
		"$out"
	check "not loaded" "no" "$([ -e /sys/module/skl_uncore_sim ] && echo yes || echo no)"
	out=$(sh /add/load --lockdown-note)
	check "make install's note under lockdown: the same line" \
		"load: the kernel is locked down (Secure Boot) and refuses skl_uncore: it is not signed by a key the kernel trusts; install it with DKMS (make deb), which signs it, and enroll DKMS's key: sudo mokutil --import /var/lib/dkms/mok.pub, then reboot (README: On your own machine)" \
		"$out"
	;;
*) echo "Bail out! unknown mode $MODE"; exit 1 ;;
esac
ktap_end
