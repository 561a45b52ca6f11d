# SPDX-License-Identifier: GPL-2.0
# Sourced by skl_uncore_pcp.sh (ours): the upgrade path and bad input with PCP collecting.
# An rmmod under load is refused and leaves everything counting; skl-uncore-pcp reload
# --if-built (what the package's postinst runs on an upgrade) brings the metrics back without
# restarting pmcd, the gap measured in a pmlogger archive; a closed PMU yields no value (not a
# 0); a late modprobe is collected at once (the package's modprobe.d rule restarts the PMDA);
# bad event strings get an error.

# Quiet device again: exact counts.
for u in "imc 1" "imc 2" "clock 0" "arb 0" "cbox 0"; do skl-silicon rate $u 0; done
pmcd_pid=$(inroot "pgrep -x pmcd")
pmda_pid=$(inroot "pgrep -x pmdaperfevent")
pmus() { ls $DEV | grep '^uncore_' | tr '\n' ' '; }
pmus0=$(pmus)
type0=$(cat $DEV/uncore_imc/type)

# --- rmmod under load ----------------------------------------------------------------------
inroot "modprobe -r skl_uncore" > /tmp/rmmod.log 2>&1
rc=$?
sed 's/^/# /' /tmp/rmmod.log
check "modprobe -r while the PMDA holds events: refused with one line (module in use)" "1 1" \
	"$([ $rc -ne 0 ] && echo 1) $(grep -c 'in use' /tmp/rmmod.log)"
rmmod skl_uncore 2> /tmp/rmmod2.log
rc=$?
sed 's/^/# /' /tmp/rmmod2.log
# busybox rmmod asks without waiting (O_NONBLOCK): a held module is EAGAIN (EWOULDBLOCK).
check "rmmod under load: refused, one line" "1 1" \
	"$([ $rc -ne 0 ] && echo 1) $(grep -ci 'in use\|busy\|temporarily unavailable' /tmp/rmmod2.log)"
check "nothing half-unloaded: the module live, every PMU registered, same perf type" \
	"live $pmus0 $type0" "$(cat /sys/module/skl_uncore/initstate) $(pmus) $(cat $DEV/uncore_imc/type)"
values /tmp/v3
inject_all held
values /tmp/v4
check "after the refused unloads: each counter advanced by exactly the injection" \
	"$(tr '\n' ';' < /tmp/held.want)" "$(delta /tmp/v3 /tmp/v4 | tr '\n' ';')"

# --- the upgrade: skl-uncore-pcp reload --if-built, pmlogger recording across it ----------------
inroot "pmlogger -c /tmp/log.conf -t 1 -T 24sec -l /tmp/pmlogger2.log /tmp/arch2 > /dev/null 2>&1 &"
sleep 6
t0=$(uptime_ms)
# The package's own postinst, as dpkg runs it on an upgrade from 0.1.0 (with dpkg's variables;
# DKMS's part stands in: its module is in place), which runs skl-uncore-pcp reload --if-built.
mkdir -p $R/usr/lib/dkms
printf '#!/bin/sh\n# DKMS stand-in: the module is built and installed.\nexit 0\n' > $R/usr/lib/dkms/common.postinst
chmod +x $R/usr/lib/dkms/common.postinst
cp /add/skl/control/postinst $R/tmp/postinst
# Every 0.5 s, the PMDA's processes: state, where in the kernel (said if the reload is slow).
rm -f /tmp/watch.stop
(while [ ! -f /tmp/watch.stop ]; do
	for c in /proc/[0-9]*/comm; do
		[ "$(cat $c 2>/dev/null)" = pmdaperfevent ] || continue
		d=${c%/comm}
		for t in $d/task/*; do
			echo "$(uptime_ms) pid ${d#/proc/} tid ${t##*/} $(awk '/^State:/ { print $2 }' $t/status) $(cat $t/wchan) $(head -n 4 $t/stack | awk '{ printf "%s ", $2 }')"
		done
	done
	sleep 0.5
done) > /tmp/watch.log 2>/dev/null &
inroot "DPKG_MAINTSCRIPT_PACKAGE=skl-uncore-dkms DPKG_MAINTSCRIPT_NAME=postinst sh /tmp/postinst configure 0.1.0" > /tmp/reload.log 2>&1
rc=$?
t1=$(uptime_ms)
touch /tmp/watch.stop
sed 's/^/# /' /tmp/reload.log
[ $((t1 - t0)) -lt 10000 ] || awk '{ k = $0; sub(/^[0-9]+ /, "", k); if (!(k in seen)) print "# watch: " $0; seen[k] = 1 }' /tmp/watch.log
check "the package's postinst of an upgrade: exit 0, the module reloaded (skl-uncore-pcp reload --if-built)" "0 1" \
	"$rc $(grep -c '^skl-uncore-pcp: skl_uncore reloaded$' /tmp/reload.log)"
[ $rc = 0 ] || dmesg | tail -n 8 | sed 's/^/# dmesg: /'
reload_ms=$((t1 - t0))
# pmlogger validates its metrics when pmcd reports the agent gone and back; if it looks while
# the PMDA is down it exits ("configured metrics have changed"), by design: the pmlogger
# service's pmlogger_check starts it again. This test does the same at once (arch3).
# It looks at its next fetch: watch it for 3 s.
survived=yes t3= w=0
while [ $w -lt 3 ]; do
	if ! inroot "pgrep -x pmlogger" > /dev/null; then
		survived=no t3=$(( $(date +%s) % 86400 ))
		inroot "pmlogger -c /tmp/log.conf -t 1 -T 8sec -l /tmp/pmlogger3.log /tmp/arch3 > /dev/null 2>&1 &"
		break
	fi
	sleep 1
	w=$((w + 1))
done
echo "# reload (PMDA stopped, modprobe -r, modprobe, PMDA started by pmcd): $reload_ms ms"
echo "# perf type of uncore_imc: $type0 before, $(cat $DEV/uncore_imc/type) after"
check "pmcd kept running (same pid), the PMDA is a new process" "$pmcd_pid new" \
	"$(inroot "pgrep -x pmcd") $(p=$(inroot "pgrep -x pmdaperfevent"); [ -n "$p" ] && [ "$p" != "$pmda_pid" ] && echo new)"
inroot "pmprobe $P" 2>/dev/null | grep "^$P\.uncore_.*\.value [1-9]" | sed "s/^$P\.//; s/\.value .*//" | sort > /tmp/collected2
check "after the reload PCP collects the same events" "$(tr '\n' ' ' < /tmp/collected)" "$(tr '\n' ' ' < /tmp/collected2)"
values /tmp/v5
inject_all reloaded
values /tmp/v6
check "after the reload: each counter advanced by exactly the injection" \
	"$(tr '\n' ';' < /tmp/reloaded.want)" "$(delta /tmp/v5 /tmp/v6 | tr '\n' ';')"
echo "# pmlogger across the reload: survived $survived"
grep -i 'exiting\|changed' $R/tmp/pmlogger2.log | sed 's/^/# pmlogger: /'
n=0
while inroot "pgrep -x pmlogger" > /dev/null && [ $n -lt 40 ]; do sleep 1; n=$((n + 1)); done
# The seconds (of the day) of the samples with a value, from both archives.
for a in arch2 arch3; do
	[ -f $R/tmp/$a.index ] && inroot "pmrep -a /tmp/$a -o csv -P 0 -r $P.uncore_imc.data_reads.value"
done 2>/dev/null | awk -F, '$NF != "" && $1 ~ / [0-9][0-9]:/ { split(substr($1, 12, 8), t, ":"); print t[1] * 3600 + t[2] * 60 + t[3] }' |
	sort -n -u > /tmp/gap.t
echo "# seconds with a value: $(tr '\n' ' ' < /tmp/gap.t)"
gap=$(awk 'NR > 1 && $1 - p > m { m = $1 - p } { p = $1 } END { print m - 1 }' /tmp/gap.t)
n_vals=$(grep -c . /tmp/gap.t)
# Bound: the reload's own time rounded up, the seconds until the test saw pmlogger gone (w),
# and, when it had exited, the seconds its restart took to a first sample (measured: arch3's first sample - its start), plus 2 s of
# sampling phase.
restart_s=0
if [ -n "$t3" ]; then
	f3=$(inroot "pmrep -a /tmp/arch3 -o csv -P 0 -r $P.uncore_imc.data_reads.value" 2>/dev/null |
		awk -F, '$NF != "" && $1 ~ / [0-9][0-9]:/ { split(substr($1, 12, 8), t, ":"); print t[1] * 3600 + t[2] * 60 + t[3]; exit }')
	restart_s=$(( ${f3:-$t3} - t3 ))
	echo "# pmlogger restarted: its first sample ${restart_s} s after its start"
fi
bound=$(( (reload_ms + 999) / 1000 + w + restart_s + 2 ))
check "archive: samples on both sides of the reload, the gap at most $bound s (reload ${reload_ms} ms): gap ${gap} s" \
	"yes yes" "$([ "$n_vals" -ge 8 ] && echo yes) $([ "$gap" -ge 1 ] && [ "$gap" -le $bound ] && echo yes)"

# --- pmcd restarting the PMDA by itself in the middle of a reload -----------------------------
# With PMCD_RESTART_AGENTS (trixie's default) pmcd restarts an agent it sees exit, at once or
# up to 60 s later. A stand-in for the root's modprobe makes that happen, every time, just
# before the reload's first unload: it has pmcd start the PMDA and waits until its events are
# open, then runs the real modprobe.
mkdir -p $R/tmp/kmod && ln -sf /usr/bin/kmod $R/tmp/kmod/modprobe
mv $R/usr/sbin/modprobe $R/usr/sbin/modprobe.away
cat > $R/usr/sbin/modprobe <<'EOF'
#!/bin/sh
if [ "$1" = -r ] && [ ! -e /tmp/pmcd-restarted ]; then
	touch /tmp/pmcd-restarted
	/usr/lib/pcp/bin/pmsignal -a -s HUP pmcd
	n=0
	while [ "$(cat /sys/module/skl_uncore/refcnt)" = 0 ] && [ $n -lt 100 ]; do sleep 0.1; n=$((n + 1)); done
fi
exec /tmp/kmod/modprobe "$@"
EOF
chmod +x $R/usr/sbin/modprobe
rm -f $R/tmp/pmcd-restarted
pmda_pid=$(inroot "pgrep -x pmdaperfevent")
t0=$(uptime_ms)
inroot "skl-uncore-pcp reload" > /tmp/race.log 2>&1
rc=$?
t1=$(uptime_ms)
mv $R/usr/sbin/modprobe.away $R/usr/sbin/modprobe
sed 's/^/# /' /tmp/race.log
echo "# reload with pmcd's own restart in it: $((t1 - t0)) ms"
check "reload while pmcd starts the PMDA again by itself: exit 0, reloaded, the PMDA a new process" "yes 0 1 new" \
	"$([ -e $R/tmp/pmcd-restarted ] && echo yes) $rc $(grep -c '^skl-uncore-pcp: skl_uncore reloaded$' /tmp/race.log) $(p=$(inroot "pgrep -x pmdaperfevent"); [ -n "$p" ] && [ "$p" != "$pmda_pid" ] && echo new)"
values /tmp/v11
inject_all race
values /tmp/v12
check "after it: each counter advanced by exactly the injection" \
	"$(tr '\n' ';' < /tmp/race.want)" "$(delta /tmp/v11 /tmp/v12 | tr '\n' ';')"

# --- a reload while another perf client holds the module: refused, PCP collecting again ------
perf stat -a -e uncore_imc/data_reads/ -- sleep 60 > /dev/null 2>&1 &
perf_pid=$!
n=0
until [ "$(cat /sys/module/skl_uncore/refcnt)" != 0 ] && [ -n "$(inroot "pgrep -x pmdaperfevent")" ] || [ $n -ge 20 ]; do
	sleep 0.5
	n=$((n + 1))
done
type1=$(cat $DEV/uncore_imc/type)
inroot "skl-uncore-pcp reload" > /tmp/held.log 2>&1
rc=$?
sed 's/^/# /' /tmp/held.log
check "reload while perf stat holds an IMC event: exit 1, the reason in one line, the module as it was, the PMDA running" \
	"1 1 live $type1 yes" \
	"$rc $(grep -c 'in use by another perf client' /tmp/held.log) $(cat /sys/module/skl_uncore/initstate) $(cat $DEV/uncore_imc/type) $([ -n "$(inroot "pgrep -x pmdaperfevent")" ] && echo yes)"
kill -INT $perf_pid 2> /dev/null
wait $perf_pid 2> /dev/null
values /tmp/v9
inject_all heldperf
values /tmp/v10
check "after the refused reload: each counter advanced by exactly the injection" \
	"$(tr '\n' ';' < /tmp/heldperf.want)" "$(delta /tmp/v9 /tmp/v10 | tr '\n' ';')"

# --- a closed PMU: the module gone, the PMDA started without it --------------------------------
inroot "kill \$(pgrep -x pmdaperfevent)"
sleep 1
inroot "modprobe -r skl_uncore"
check "with the PMDA stopped the module unloads" "0 no" "$? $([ -d /sys/module/skl_uncore ] && echo yes || echo no)"
inroot "skl-uncore-pcp reload --if-built" > /tmp/ifbuilt.log 2>&1
check "reload --if-built with the module not loaded: exit 0, one line, nothing loaded" "0 1 no" \
	"$? $(grep -c . /tmp/ifbuilt.log) $([ -d /sys/module/skl_uncore ] && echo yes || echo no)"
sed 's/^/# /' /tmp/ifbuilt.log
inroot "skl-uncore-pcp restart-pmda" > /dev/null 2>&1
r=$(inroot "pmprobe -v $P.uncore_imc.data_reads.value" 2>&1)
echo "# closed PMU: $r"
check "closed PMU: no value (an error), never a 0" "yes" \
	"$(echo "$r" | awk '{ print ($2 < 0 ? "yes" : "no (" $0 ")") }')"
# A load when the PMDA's restart fails: the load stands and the failure is said (the
# modprobe.d rule's `|| true`); udev's modprobe intel_uncore, whose rule hides skl_uncore's
# errors, does not then try intel_uncore beside it.
mkdir -p $R/lib/modules/$krel/kernel/arch/x86/events/intel
cp /lib/skl/intel-uncore.ko $R/lib/modules/$krel/kernel/arch/x86/events/intel/
mv $R/usr/sbin/skl-uncore-pcp $R/tmp/skl-uncore-pcp.real
printf '#!/bin/sh\necho "skl-uncore-pcp: stand-in: the PMDA did not restart" >&2\nexit 1\n' \
	> $R/usr/sbin/skl-uncore-pcp
chmod +x $R/usr/sbin/skl-uncore-pcp
inroot "depmod $krel && modprobe intel_uncore" > /tmp/udev.log 2>&1
rc=$?
sed 's/^/# /' /tmp/udev.log
check "modprobe intel_uncore, the PMDA's restart failing: exit 0, skl_uncore in, intel_uncore not" \
	"0 live no" \
	"$rc $(cat /sys/module/skl_uncore/initstate 2>/dev/null) $([ -d /sys/module/intel_uncore ] && echo yes || echo no)"
inroot "modprobe -r skl_uncore && modprobe skl_uncore" > /tmp/failpmda.log 2>&1
rc=$?
sed 's/^/# /' /tmp/failpmda.log
check "modprobe skl_uncore, the PMDA's restart failing: exit 0, the failure said once, skl_uncore in" \
	"0 1 live" "$rc $(grep -c 'stand-in' /tmp/failpmda.log) $(cat /sys/module/skl_uncore/initstate 2>/dev/null)"
mv $R/tmp/skl-uncore-pcp.real $R/usr/sbin/skl-uncore-pcp
inroot "modprobe -r skl_uncore"
check "the PMDA not restarted holds no event: the module unloads" "0 no" \
	"$? $([ -d /sys/module/skl_uncore ] && echo yes || echo no)"
# A late load, PCP running: the package's modprobe.d rule restarts the PMDA, nobody else.
pmda_pid=$(inroot "pgrep -x pmdaperfevent")
inroot "modprobe skl_uncore" > /tmp/late.log 2>&1
rc=$?
sed 's/^/# /' /tmp/late.log
check "modprobe skl_uncore with the PMDA running: exit 0, silent, the PMDA a new process (modprobe.d's rule)" "0 0 new" \
	"$rc $(grep -c . /tmp/late.log) $(p=$(inroot "pgrep -x pmdaperfevent"); [ -n "$p" ] && [ "$p" != "$pmda_pid" ] && echo new)"
values /tmp/v7
inject_all back
values /tmp/v8
check "after the late load: each counter advanced by exactly the injection" \
	"$(tr '\n' ';' < /tmp/back.want)" "$(delta /tmp/v7 /tmp/v8 | tr '\n' ';')"
pmda_pid=$(inroot "pgrep -x pmdaperfevent")
inroot "modprobe skl_uncore"
check "modprobe skl_uncore again (loaded): exit 0, the PMDA left alone" "0 $pmda_pid" "$? $(inroot "pgrep -x pmdaperfevent")"

# --- bad event strings --------------------------------------------------------------------------
perf stat -a -e uncore_imc/event=0x1,umask=0x1/ -- true > /tmp/bad1.txt 2>&1
rc=$?
check "uncore_imc/event=0x1,umask=0x1/ (umask is no IMC term): refused, the term named" "1 yes" \
	"$([ $rc -ne 0 ] && echo 1) $(grep -q "umask" /tmp/bad1.txt && echo yes)"
perf stat -a -x, -e uncore_imc/config=0x101/ -- true > /tmp/bad2.txt 2>&1
rc=$?
sed 's/^/# /' /tmp/bad2.txt | head -n 3
check "uncore_imc/config=0x101/ (bit 8 outside format/): perf refuses it before the kernel, no count" "1" \
	"$([ $rc -ne 0 ] || grep -q 'not supported\|<not' /tmp/bad2.txt && echo 1)"
