# SPDX-License-Identifier: GPL-2.0
# Sourced by skl_uncore_pcp.sh (ours), the configured rates set (every CBo counter 2e6/s): what
# multiplexing does to the events PCP opens one by one. Two more cbox_0 lines make six events
# on the C-Box's four counters; perf rotates them and the perfevent PMDA reports each count
# scaled by time_enabled / time_running. At a steady rate that estimate is the rate (bound
# 5 %, as the archive checks above), though the counters counted only four events' worth:
# the sum of the six estimates exceeds what four counters can count. Then the shipped
# configuration again.

mux_extra="unc_cbo_cache_lookup.read_mesi unc_cbo_cache_lookup.write_mesi"
cp $CONF /tmp/conf.mux
awk -v extra="$mux_extra" '{ print } $0 == "uncore_cbox_0.unc_cbo_xsnp_response.hitm_xcore" {
	n = split(extra, e, " "); for (i = 1; i <= n; i++) print "uncore_cbox_0." e[i] }' /tmp/conf.mux > $CONF
inroot "skl-uncore-pcp restart-pmda" > /dev/null 2>&1
mux_metrics=$( (grep '^uncore_cbox_0\.' /tmp/collected; for e in $mux_extra; do echo "uncore_cbox_0.$e"; done) |
	sed "s/^/$P./; s/$/.value/" | tr '\n' ' ')
check "six cbox_0 events configured, each collected" "6" \
	"$(inroot "pmprobe $mux_metrics" 2>/dev/null | grep -c ' [1-9][0-9]*$')"
cat > $R/tmp/mux.conf <<EOF
log mandatory on 1 sec { $mux_metrics }
EOF
inroot "pmlogger -c /tmp/mux.conf -t 1 -T 8sec -l /tmp/mux.log /tmp/mux"
inroot "pmrep -a /tmp/mux -o csv -l , -P 0 $mux_metrics" > /tmp/mux.csv 2>&1
# Each event's per-second estimates: median (checked), lowest and highest (said).
mux_sum=0
for m in $mux_metrics; do
	e=${m#"$P".uncore_cbox_0.}
	e=${e%.value}
	v=$(col "$e" /tmp/mux.csv)
	echo "# multiplexed $e: per second $(awk -F, -v want="$e" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i ~ want) c = i; next }
		c && $c != "" { if (lo == "" || $c < lo) lo = $c; if ($c > hi) hi = $c } END { printf "%s to %s", lo, hi }' /tmp/mux.csv), median $v"
	near "multiplexed (6 events, 4 counters): cbox_0 $e, the PMDA's scaled estimate" "$v" 2000000 5
	mux_sum=$(awk -v s="$mux_sum" -v v="${v:-0}" 'BEGIN { printf "%.0f", s + v }')
done
check "multiplexed: the six estimates sum to more than four counters count (8e6/s): $mux_sum/s" "yes" \
	"$(awk -v s="$mux_sum" 'BEGIN { print (s > 8000000 * 1.2 ? "yes" : "no") }')"
cp /tmp/conf.mux $CONF
inroot "skl-uncore-pcp restart-pmda" > /dev/null 2>&1
