#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# S3 on two packages (issue 21, item 7; vm-run --s3-wake --cpus 4,sockets=2,cores=2). Syscore
# runs on the boot CPU with every other CPU offline, so package 1's events went before it: when
# its last CPU went offline perf took them off (our `del` folded their counts) and left them
# off. Its registers reset in S3 all the same: an event opened on package 1 after resume must
# count at once, not wait for the watchdog to find the global enable gone.
. /selftests/lib.sh

SIM=/sys/kernel/debug/skl_uncore_sim
PO=/selftests/perf_open
ktap_header

grep -qw mem /sys/power/state || { echo "Bail out! no S3 (mem) in /sys/power/state"; exit 1; }
[ "$(cat /sys/devices/system/cpu/cpu2/topology/physical_package_id)" = 1 ] ||
	{ echo "Bail out! CPU 2 is not in package 1"; exit 1; }
insmod /lib/skl/skl_uncore_sim.ko || { echo "Bail out! insmod failed"; exit 1; }
echo "clock 0 0 0" > $SIM/rate
for e in 1 2 3 4 5; do echo "imc 0 $e 0" > $SIM/rate; done
# Injections go to both packages' models.
inj() { echo "echo 'cbox 0 0x34 0x8f $1' > $SIM/inject"; }

out=$($PO -r "$(inj 1000); echo mem > /sys/power/state; echo \$? > /tmp/s3rc;
	$PO -r \"$(inj 50)\" uncore_cbox_0/0x8f34/cpu=2 uncore_cbox_0/0x8f34/cpu=0 > /tmp/after;
	$(inj 234)" uncore_cbox_0/0x8f34/cpu=0 uncore_cbox_0/0x8f34/cpu=2 2>&1)
echo "$out" | sed 's/^/# /'
sed 's/^/# after resume: /' /tmp/after
check "echo mem > /sys/power/state returned 0" "0" "$(cat /tmp/s3rc)"
check "the guest went through S3 and back" "1 1" \
	"$(dmesg | grep -c 'Preparing to enter system sleep state S3') $(dmesg | grep -c 'Waking up from system sleep state S3')"
check "both packages' models lost their registers" "1" "$(dmesg | grep -c 'skl_uncore_sim: model reset (resume)')"
check "package 0's event counts on across S3: 1000 + 50 + 234" "1284" \
	"$(echo "$out" | sed -n 's/^count \([0-9]*\) .*/\1/p' | sed -n 1p)"
check "package 1's event: its 1000, folded when perf took it off at CPU offline, nothing invented" "1000" \
	"$(echo "$out" | sed -n 's/^count \([0-9]*\) .*/\1/p' | sed -n 2p)"
check "events opened after resume count at once on both packages: 50 50" "50 50" \
	"$(echo $(sed -n 's/^count \([0-9]*\) .*/\1/p' /tmp/after))"
check "no 'changed by someone else' and no lost events reported" "0 0" \
	"$(dmesg | grep -c 'changed by someone else') $(dmesg | grep -c 'live with no CPU online')"
rmmod skl_uncore_sim
check_unloads_clean 1
ktap_end
