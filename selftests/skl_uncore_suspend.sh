#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A real suspend to RAM (S3) with events open (vm-run --s3-wake: the host wakes the guest). The
# simulated uncore resets on resume, as the silicon does; counts continue exactly across it.
. /selftests/lib.sh

SIM=/sys/kernel/debug/skl_uncore_sim
PO=/selftests/perf_open
ktap_header

grep -qw mem /sys/power/state || { echo "Bail out! no S3 (mem) in /sys/power/state"; exit 1; }
insmod /lib/skl/skl_uncore_sim.ko || { echo "Bail out! insmod failed"; exit 1; }
echo "clock 0 0 0" > $SIM/rate
for e in 1 2 3 4 5; do echo "imc 0 $e 0" > $SIM/rate; done
inj() { echo "echo '$*' > $SIM/inject"; }

out=$($PO -r "$(inj cbox 0 0x34 0x8f 1000); $(inj arb 0 0x81 0x01 300); $(inj clock 0 0xff 0 5000);
	$(inj imc 0 1 0 700); echo mem > /sys/power/state; echo \$? > /tmp/s3rc;
	grep -c 'GLOBAL_CTRL .*= 0x0*20000000$' $SIM/regs > /tmp/en_after;
	$(inj cbox 0 0x34 0x8f 234); $(inj arb 0 0x81 0x01 45); $(inj clock 0 0xff 0 66); $(inj imc 0 1 0 12)" \
	uncore_cbox_0/0x8f34 uncore_arb/0x181 uncore_clock/0xff uncore_imc/1 2>&1)
echo "$out" | sed 's/^/# /'
check "echo mem > /sys/power/state returned 0" "0" "$(cat /tmp/s3rc)"
check "the guest went through S3 and back" "1 1" \
	"$(dmesg | grep -c 'Preparing to enter system sleep state S3') $(dmesg | grep -c 'Waking up from system sleep state S3')"
check "the model lost its registers in S3" "1" "$(dmesg | grep -c 'skl_uncore_sim: model reset (resume)')"
check "the driver programmed them again at resume: global enable set" "1" "$(cat /tmp/en_after)"
check "counts continue exactly across S3 (cbox, arb, clock, imc)" "1234 345 5066 712" \
	"$(echo $(echo "$out" | sed -n 's/^count \([0-9]*\) .*/\1/p'))"
check "an announced suspend logs no 'changed by someone else'" "0" "$(dmesg | grep -c 'changed by someone else')"
check "S3 ran the syscore hooks only, not the suspend-to-idle ones" "s2idle suspends 0 wakes 0" \
	"$(grep '^s2idle ' $SIM/regs)"
rmmod skl_uncore_sim
check_unloads_clean 1
ktap_end
