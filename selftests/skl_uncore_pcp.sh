#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Issue 29: Performance Co-Pilot collects the uncore PMUs (scripts/test-pcp boots this on
# Debian's stock kernel and the emulated silicon, every rate 0). /add/root.tar is a trixie root
# with pcp from the archive; /add/skl holds the files of the project's .deb (tree/) and the
# skl_uncore.ko DKMS built from it. The PCP programs run in that root (chroot), the device's
# backdoor (skl-inject, skl-silicon) outside it.
#
#   skl_uncore_pcp.sh ours     skl_uncore: every metric, exact counts, pmproxy, pmlogger and
#                              pmrep :skl-uncore, the configured rates, multiplexing, reload,
#                              bad input
#   skl_uncore_pcp.sh intel    Linux's intel_uncore under the same configuration: what PCP
#                              is offered and collects
#   skl_uncore_pcp.sh MODE cost    up to what collecting costs (make bench)
. /selftests/lib.sh
mode=${1:?usage: skl_uncore_pcp.sh ours|intel [cost]}
part=${2:-all}
R=/add/root
P=perfevent.hwcounters
DEV=/sys/bus/event_source/devices
ktap_header

mkdir -p $R && tar -xf /add/root.tar -C $R && rm /add/root.tar
mount -t proc proc $R/proc
mount -t sysfs sysfs $R/sys
mount --bind /dev $R/dev
mount -t tmpfs tmpfs $R/run
mount -t tmpfs tmpfs $R/tmp
ip link set lo up 2>/dev/null || ifconfig lo 127.0.0.1 up
cp -a /add/skl/tree/. $R/
krel=$(uname -r)
# inroot CMD: CMD in the trixie root, as root, with a clean environment.
inroot() { chroot $R /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 sh -c "$*"; }

if [ "$mode" = ours ]; then
	mkdir -p $R/lib/modules/$krel/updates/dkms
	cp /add/skl/skl_uncore.ko $R/lib/modules/$krel/updates/dkms/
	inroot "depmod $krel && modprobe skl_uncore"
	check "modprobe skl_uncore (DKMS's module, the package's modprobe.d) in the trixie root" "0" "$?"
else
	insmod /lib/skl/intel-uncore.ko
	check "insmod intel-uncore.ko (Debian's)" "0" "$?"
fi

# --- PCP as an operator sets it up: pmcd, then skl-uncore-pcp enable --------------------------
CONF=$R/etc/pcp/perfevent/perfevent.conf
cp $CONF /tmp/perfevent.conf.pcp
t0=$(uptime_ms)
inroot "/etc/init.d/pmcd start" > /tmp/pmcd.log 2>&1
check "pmcd starts (/etc/init.d/pmcd start)" "0" "$?"
inroot "skl-uncore-pcp enable" > /tmp/enable.log 2>&1
check "skl-uncore-pcp enable: the [dynamic] lines in perfevent.conf, the perfevent PMDA installed" "0" "$?"
sed 's/^/# /' /tmp/enable.log | tail -n 5
echo "# PCP up in $(( ($(uptime_ms) - t0) / 1000 )) s"
check "perfevent.conf: one [dynamic] section, the package's lines in it once" "1 1 40" \
	"$(grep -c '^\[dynamic\]' $R/etc/pcp/perfevent/perfevent.conf) $(grep -c '^# skl-uncore begin' $R/etc/pcp/perfevent/perfevent.conf) $(grep -c '^uncore_' $R/etc/pcp/perfevent/perfevent.conf)"
if [ "$mode" = ours ]; then
	# --- skl-uncore-pcp's edits of pcp's file: idempotent, reversible, whole on failure ----------
	# pcp.conf naming a scratch PCP_SYSCONF_DIR ($1, in the root) and a PMDA not installed.
	scratch() {
		mkdir -p "$R$1/perfevent" "$R$1/pmdas/perfevent"
		sed "s|^PCP_SYSCONF_DIR=.*|PCP_SYSCONF_DIR=$1|; s|^PCP_PMDAS_DIR=.*|PCP_PMDAS_DIR=$1/pmdas|; s|^PCP_PMCDCONF_PATH=.*|PCP_PMCDCONF_PATH=$1/pmcd.conf|" \
			$R/etc/pcp.conf > "$R$1/pcp.conf"
		printf '#!/bin/sh\nexit 0\n' > "$R$1/pmdas/perfevent/Install" && chmod +x "$R$1/pmdas/perfevent/Install"
	}
	# temps DIR: files an edit left beside perfevent.conf.
	temps() {
		t=0
		for f in "$R$1"/perfevent.conf.*; do [ ! -e "$f" ] || t=$((t + 1)); done
		echo $t
	}
	cp $CONF /tmp/enabled
	inroot "skl-uncore-pcp enable" > /tmp/enable2.log 2>&1
	check "skl-uncore-pcp enable twice: exit 0, perfevent.conf byte-identical (one block)" "0 same 1" \
		"$? $(cmp -s /tmp/enabled $CONF && echo same) $(grep -c '^# skl-uncore begin' $CONF)"
	L=$R/usr/share/skl-uncore/pcp/perfevent-dynamic.conf
	mv $L $L.away
	inroot "skl-uncore-pcp enable" > /tmp/nolines.log 2>&1
	rc=$?
	mv $L.away $L
	sed 's/^/# /' /tmp/nolines.log
	check "enable, the package's lines file missing: fails with one line, perfevent.conf byte-identical, no file left" \
		"1 1 same 0" "$([ $rc -ne 0 ] && echo 1) $(grep -c . /tmp/nolines.log) $(cmp -s /tmp/enabled $CONF && echo same) $(temps /etc/pcp/perfevent)"
	# A full file system: the new file cannot be written beside pcp's.
	scratch /tmp/full
	mount -t tmpfs -o size=64k tmpfs $R/tmp/full/perfevent
	cp /tmp/perfevent.conf.pcp $R/tmp/full/perfevent/perfevent.conf
	dd if=/dev/zero of=$R/tmp/full/perfevent/fill bs=4k 2>/dev/null
	inroot "PCP_CONF=/tmp/full/pcp.conf skl-uncore-pcp enable" > /tmp/full.log 2>&1
	rc=$?
	sed 's/^/# /' /tmp/full.log
	check "enable on a full file system: fails with one line, perfevent.conf byte-identical, no file left" \
		"1 1 same 0" "$([ $rc -ne 0 ] && echo 1) $(grep -c . /tmp/full.log) $(cmp -s /tmp/perfevent.conf.pcp $R/tmp/full/perfevent/perfevent.conf && echo same) $(temps /tmp/full/perfevent)"
	umount $R/tmp/full/perfevent
	# pcp's file without a [dynamic] line: enable adds one, disable takes it out with the block.
	scratch /tmp/nodyn
	grep -v '^\[dynamic\]' /tmp/perfevent.conf.pcp > $R/tmp/nodyn/perfevent/perfevent.conf
	cp $R/tmp/nodyn/perfevent/perfevent.conf /tmp/nodyn.conf
	inroot "PCP_CONF=/tmp/nodyn/pcp.conf skl-uncore-pcp enable && PCP_CONF=/tmp/nodyn/pcp.conf skl-uncore-pcp enable" > /tmp/nodyn.log 2>&1
	e="$? $(grep -c '^\[dynamic\]' $R/tmp/nodyn/perfevent/perfevent.conf) $(grep -c '^# skl-uncore begin' $R/tmp/nodyn/perfevent/perfevent.conf)"
	inroot "PCP_CONF=/tmp/nodyn/pcp.conf skl-uncore-pcp disable" >> /tmp/nodyn.log 2>&1
	check "a perfevent.conf without [dynamic]: enable twice (one [dynamic], one block), disable gives it back byte for byte" \
		"0 1 1 0 same" "$e $? $(cmp -s /tmp/nodyn.conf $R/tmp/nodyn/perfevent/perfevent.conf && echo same)"
fi

# Every metric of the uncore PMUs the PMDA offers, and those that hold a value.
inroot "pminfo $P" 2>/dev/null | grep "^$P\.uncore_.*\.value$" | sed "s/^$P\.//; s/\.value$//" | sort > /tmp/offered
inroot "pmprobe $P" 2>/dev/null | grep "^$P\.uncore_.*\.value [1-9]" | sed "s/^$P\.//; s/\.value .*//" | sort > /tmp/collected
grep -v '^#' $R/usr/share/skl-uncore/pcp/perfevent-dynamic.conf | grep . | sort > /tmp/configured
echo "# $mode: PCP offers $(grep -c . /tmp/offered) uncore events, collects $(grep -c . /tmp/collected):"
for u in uncore_imc uncore_clock uncore_arb uncore_cbox_0 uncore_cbox_1 uncore_cbox_2 uncore_cbox_3; do
	echo "#   $u: offered $(grep -c "^$u\." /tmp/offered) collected $(grep "^$u\." /tmp/collected | sed "s/^$u\.//" | tr '\n' ' ')"
done
if [ "$mode" = intel ]; then
	# The issue's measurement, made again: no events/ for the ARB; UCLK only as cbox_0's.
	check "intel_uncore: PCP is offered no ARB event, no uncore_clock PMU" "0 0" \
		"$(grep -c '^uncore_arb\.' /tmp/offered) $(grep -c '^uncore_clock\.' /tmp/offered)"
	check "intel_uncore: PCP collects the IMC's counters only of the configured events" \
		"$(grep '^uncore_imc\.' /tmp/collected | tr '\n' ' ')" "$(tr '\n' ' ' < /tmp/collected)"
fi
if [ "$mode" = ours ]; then
	check "skl_uncore: PCP collects every configured event of the part (24: IMC 5, UCLK, ARB 2, 4 CBo x 4)" \
		"24 $(grep -E '^uncore_(imc|clock|arb|cbox_[0-3])\.' /tmp/configured | tr '\n' ' ')" \
		"$(grep -c . /tmp/collected) $(tr '\n' ' ' < /tmp/collected)"
	# PCP's parser (6.3.8): every value is hex and a term without a format/ file drops the
	# whole PMU. Every events/ file of ours names only terms of its PMU's format/, as 0x.
	bad=0
	for f in $DEV/uncore_*/events/*; do
		case $f in *.scale | *.unit) continue ;; esac
		for kv in $(tr ',' ' ' < "$f"); do
			pmu=${f%/events/*}
			[ -f "$pmu/format/${kv%%=*}" ] || { bad=$((bad + 1)); echo "# $f: no format/${kv%%=*}"; }
			case ${kv#*=} in 0x*) ;; *) bad=$((bad + 1)); echo "# $f: ${kv#*=} is not hex" ;; esac
		done
	done
	check "every events/ term is in format/ and written in hex (PCP keeps every PMU)" "0" "$bad"
fi

# --- exact counts: pmcd (pmprobe) and pmproxy's /metrics, against injections ----------------
inroot "/etc/init.d/pmproxy start" > /tmp/pmproxy.log 2>&1
# get NAMES: pmproxy's /metrics answer for the comma-separated NAMES, by python3's HTTP client
# in the root; an HTTP or socket error is one "# /metrics: ..." line and an empty answer.
# No "Connection: close" (busybox wget and urllib send it): pmproxy 6.3.8 then closes the
# connection after the first chunk of its chunked answer, a part of it that varies with timing
# (measured: 4,211 of 29,306 bytes for names=pmcd). Prometheus keeps its connections alive.
get() {
	inroot "python3 -c '
import sys, http.client
try:
    c = http.client.HTTPConnection(\"127.0.0.1\", 44322, timeout=30)
    c.request(\"GET\", \"/metrics?names=$1\")
    r = c.getresponse()
    b = r.read().decode()
    if r.status != 200:
        raise Exception(\"HTTP %d: %s\" % (r.status, b[:200]))
    sys.stdout.write(b)
except Exception as e:
    print(\"# /metrics: %s\" % e)
'"
}
# pmcd.numagents: a number (pmproxy leaves strings such as pmcd.version out of /metrics).
n=0
until get pmcd.numagents | grep -q '^pmcd_numagents' || [ $n -ge 60 ]; do sleep 1; n=$((n + 1)); done
check "pmproxy serves /metrics on 127.0.0.1:44322 (/etc/init.d/pmproxy start)" "yes" "$([ $n -lt 60 ] && echo yes)"
[ $n -lt 60 ] || sed 's/^/# /' /tmp/pmproxy.log
names=$(sed "s/^/$P./; s/$/.value/" /tmp/collected | tr '\n' ',' | sed 's/,$//')
# values FILE: "event value" of each collected event, from pmcd; scrape FILE: from /metrics.
values() { inroot "pmprobe -v $(echo "$names" | tr ',' ' ')" | sed "s/^$P\.//; s/\.value [0-9]* / /" | sort > "$1"; }
# One request for every name. An answer short of a counter is said, with the end of
# pmproxy's log, and asked again (at most 10 times, 1 s apart): between the injections the
# counts are at rest, so a later answer is as exact as the first.
scrape() {
	a=1
	while :; do
		get "$names" > "$1.raw"
		grep -v '^#' "$1.raw" | sed -n 's/^perfevent_hwcounters_\(uncore_[^{ ]*\)_value[{ ].* \([0-9.e+]*\)$/\1 \2/p' | sort > "$1"
		[ "$(grep -c . "$1")" -lt "$(grep -c . /tmp/collected)" ] || break
		echo "# /metrics: answer $a holds $(grep -c . "$1") of $(grep -c . /tmp/collected) counters ($(wc -c < "$1.raw") bytes)"
		grep '^# /metrics: ' "$1.raw"
		[ $a -lt 10 ] || { tail -n 20 $R/var/log/pcp/pmproxy/pmproxy.log 2>/dev/null | sed 's/^/# pmproxy.log: /'; break; }
		a=$((a + 1))
		sleep 1
	done
}
# The injection of each event: UNIT BOX EVENT UMASK.
inj_of() {
	box=$(echo "$1" | sed -n 's/^uncore_cbox_\([0-9]*\)\..*/\1/p')
	case $1 in
	uncore_imc.data_reads) echo imc 0 1 0 ;; uncore_imc.data_writes) echo imc 0 2 0 ;;
	uncore_imc.gt_requests) echo imc 0 3 0 ;; uncore_imc.ia_requests) echo imc 0 4 0 ;;
	uncore_imc.io_requests) echo imc 0 5 0 ;; uncore_clock.clockticks) echo clock 0 0xff 0 ;;
	uncore_arb.unc_arb_trk_requests.all) echo arb 0 0x81 0x01 ;;
	uncore_arb.unc_arb_trk_occupancy.all) echo arb 0 0x80 0x01 ;;
	*.unc_cbo_cache_lookup.any_m) echo cbox "$box" 0x34 0x81 ;;
	*.unc_cbo_cache_lookup.any_es) echo cbox "$box" 0x34 0x86 ;;
	*.unc_cbo_cache_lookup.any_i) echo cbox "$box" 0x34 0x88 ;;
	*.unc_cbo_xsnp_response.hitm_xcore) echo cbox "$box" 0x22 0x48 ;;
	esac
}
# inject_all TAG: each collected event gets 100000 + 1000 x its line number (distinct counts:
# a count landing on another metric shows); the expected deltas in /tmp/TAG.want (and with
# the names /metrics gives them in /tmp/TAG.want_).
inject_all() {
	i=0
	: > /tmp/$1.want
	while read -r e; do
		i=$((i + 1))
		c=$((100000 + 1000 * i))
		# shellcheck disable=SC2046
		skl-inject $(inj_of "$e") $c > /dev/null 2>&1 || echo "# skl-inject $e ($(inj_of "$e")) failed"
		echo "$e $c" >> /tmp/$1.want
	done < /tmp/collected
	tr . _ < /tmp/$1.want | sort > /tmp/$1.want_
}
# delta A B: "event B-A" of each event of files A and B.
delta() { awk 'NR == FNR { a[$1] = $2; next } $1 in a { printf "%s %.0f\n", $1, $2 - a[$1] }' "$1" "$2"; }
scrape /tmp/s1
values /tmp/v1
inject_all exact
values /tmp/v2
scrape /tmp/s2
check "pmcd: each counter advanced by exactly what the device counted ($(grep -c . /tmp/collected) events)" \
	"$(cat /tmp/exact.want | tr '\n' ';')" "$(delta /tmp/v1 /tmp/v2 | tr '\n' ';')"
check "pmproxy /metrics, two scrapes: each counter advanced by exactly the injection" \
	"$(cat /tmp/exact.want_ | tr '\n' ';')" "$(delta /tmp/s1 /tmp/s2 | tr '\n' ';')"
nh=0 nt=0
while read -r e; do
	m=perfevent_hwcounters_$(echo "$e" | tr . _)_value
	grep -q "^# HELP $m ." /tmp/s2.raw && nh=$((nh + 1))
	grep -q "^# TYPE $m counter$" /tmp/s2.raw && nt=$((nt + 1))
done < /tmp/collected
c=$(grep -c . /tmp/collected)
check "/metrics: every collected event has help text and the counter type" "$c $c" "$nh $nt"

# --- what collecting costs the host: pmlogger fetching every collected metric each second ---
# Per second over 10 s: the driver's register reads (the device's own count), function-call
# IPIs and local timer interrupts (all CPUs), pmcd's and the PMDA's CPU time, the bytes of one
# /metrics scrape of these metrics.
irq() { awk -v k="$1:" '$1 == k { s = 0; for (i = 2; i <= NF && $i ~ /^[0-9]+$/; i++) s += $i; print s }' /proc/interrupts; }
ticks() { for p in $(inroot "pgrep -x $1"); do awk '{ print $14 + $15 }' /proc/$p/stat; done | awk '{ s += $1 } END { print s + 0 }'; }
cat > $R/tmp/log.conf <<EOF
log mandatory on 1 sec {
	$(sed "s/^/$P./; s/$/.value/" /tmp/collected | tr '\n' ' ')
}
EOF
skl-silicon stats-reset
c0="$(irq CAL) $(irq LOC) $(ticks pmcd) $(ticks pmdaperfevent) $(uptime_ms)"
inroot "pmlogger -c /tmp/log.conf -t 1 -T 10sec -l /tmp/cost.log /tmp/cost"
c1="$(irq CAL) $(irq LOC) $(ticks pmcd) $(ticks pmdaperfevent) $(uptime_ms)"
regs=$(skl-silicon stats | awk '{ s += $4 } END { print s + 0 }')
bytes=$(cat /tmp/s2.raw 2>/dev/null | wc -c)
echo "$c0 $c1 $regs $bytes $(grep -c . /tmp/collected)" | awk -v m="$mode" '{
	s = ($10 - $5) / 1000; hz = 100
	printf "# cost %s: events %d, over %.1f s: register reads/s %.0f, IPIs/s %.1f, timer interrupts/s %.1f, pmcd ms/s %.1f, PMDA ms/s %.1f, /metrics bytes %d\n",
		m, $13, s, $11 / s, ($6 - $1) / s, ($7 - $2) / s, ($8 - $3) * 1000 / hz / s, ($9 - $4) * 1000 / hz / s, $12 }'
check "cost measured over pmlogger's 10 s" "yes" "$([ -f $R/tmp/cost.index ] && echo yes)"

if [ "$mode" = intel ] || [ "$part" = cost ]; then
	echo "1..$ktap_n"
	exit 0
fi

# --- the configured rates: pmlogger's archive replayed by pmrep :skl-uncore ------------------
# Rates (per second): DRAM reads 1 Mi lines (64 MiB/s), writes 512 Ki (32 MiB/s), UCLK 800 MHz,
# every ARB counter 1e6 (occupancy 1e6 / 8e8 = 0.00125 per cycle), every CBo counter 2e6 (a
# miss ratio of 1/3). Bounds 5 %, as the silicon suite's: the device counts in QEMU's virtual
# time, the archive's timestamps are the guest's.
skl-silicon rate imc 1 1048576 && skl-silicon rate imc 2 524288 && skl-silicon rate clock 0 800000000 &&
	skl-silicon rate arb 0 1000000 && skl-silicon rate cbox 0 2000000
check "device rates set (skl-silicon rate)" "0" "$?"
inroot "pmlogger -c /tmp/log.conf -t 1 -T 8sec -l /tmp/pmlogger.log /tmp/arch"
check "pmlogger wrote an archive of 8 s" "0 yes" "$? $([ -f $R/tmp/arch.meta ] && echo yes)"
inroot "pmrep -a /tmp/arch :skl-uncore" > /tmp/rep.txt 2>&1
sed 's/^/# /' /tmp/rep.txt | head -n 6
inroot "pmrep -a /tmp/arch -o csv -l , -P 6 :skl-uncore" > /tmp/rep.csv 2>&1
inroot "pmrep -a /tmp/arch -o csv -l , -P 6 skl_uncore.llc.cbox_0.miss_ratio skl_uncore.llc.cbox_1.miss_ratio \
	skl_uncore.llc.cbox_2.miss_ratio skl_uncore.llc.cbox_3.miss_ratio skl_uncore.llc.cbox_4.miss_ratio" > /tmp/rep2.csv 2>&1
# col NAME [FILE]: the median of the column whose header matches NAME over the archive's rows.
col() {
	awk -F, -v want="$1" 'NR == 1 { for (i = 1; i <= NF; i++) { h = $i; gsub(/"/, "", h); if (h ~ want) c = i } next }
		c && $c != "" { print $c }' "${2:-/tmp/rep.csv}" | sort -n | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }'
}
# near NAME VALUE EXPECTED PCT
near() {
	if awk -v v="$2" -v e="$3" -v p="$4" 'BEGIN { d = v - e; if (d < 0) d = -d; exit !(v != "" && d <= e * p / 100) }'; then
		ok "$1 ($2, expected $3 +-$4%)"
	else
		not_ok "$1" "got '$2', expected $3 +-$4%"
	fi
}
check "pmrep :skl-uncore replays the archive (rows)" "yes" "$([ "$(grep -c . /tmp/rep.csv)" -ge 5 ] && echo yes)"
near "archive: DRAM read MiB/s" "$(col 'read_mibps')" 64 5
near "archive: DRAM write MiB/s" "$(col 'write_mibps')" 32 5
near "archive: DRAM total MiB/s" "$(col 'total_mibps')" 96 5
near "archive: UCLK GHz" "$(col 'uclk.ghz')" 0.8 5
near "archive: ARB average occupancy" "$(col 'occupancy_avg')" 0.00125 5
near "archive: ARB requests/s" "$(col 'requests_per_s')" 1000000 5
near "archive: LLC miss ratio, all slices" "$(col 'llc.miss_ratio')" 0.333333 5
near "archive: LLC lookups/s, all slices (4 x 3 counters)" "$(col 'llc.lookups_per_s')" 24000000 5
near "archive: HITM snoops/s, all slices" "$(col 'snoop_hitm_per_s')" 8000000 5
for n in 0 1 2 3; do near "archive: LLC slice $n miss ratio" "$(col "cbox_$n.miss_ratio" /tmp/rep2.csv)" 0.333333 5; done
check "archive: no value for slice 4, which the part lacks" "" "$(col "cbox_4.miss_ratio" /tmp/rep2.csv)"
echo "# pmrep columns: $(head -n1 /tmp/rep.csv)"

. /selftests/skl_uncore_pcp_mux.sh
. /selftests/skl_uncore_pcp_reload.sh
inroot "skl-uncore-pcp disable" > /tmp/disable.log 2>&1
check "skl-uncore-pcp disable: exit 0, pcp's perfevent.conf back byte for byte" "0 same" \
	"$? $(cmp -s /tmp/perfevent.conf.pcp $CONF && echo same)"
echo "1..$ktap_n"
