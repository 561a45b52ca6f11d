#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The emulated silicon's fault profiles alone (no driver), booted with
#   --silicon-opt faults=evtsel3:en+0x706:read+0x712:write+0x713:absent
# on the default part (i7-6700K: four counters per CBo). Each mode against this file's own
# expectations (qemu/README.md, "Fault profiles"): en refuses a write with EN (bit 22) and takes
# any other; read refuses RDMSR only; write refuses WRMSR only; absent refuses both. Later
# entries win (0x713 is absent, not en). The tally counts every #GP on its MSR; the test clears
# it at the end, since every fault here is on purpose.
. /selftests/lib.sh
ktap_header

# One access each: prints the value or "ok", or the errno's name (EIO for a #GP).
rd() { msr 0 "$1"; }
wr() { msr 0 "$1" "$2" >/dev/null && echo ok || echo EIO; }

check "the device runs the fault profile" "0x0 ok" "$(rd 0x700) $(wr 0x700 0x408f34)"
msr 0 0x700 0
# en: PERFEVTSEL3 of every CBo (CBo 0 and CBo 4 tried).
check "en: 0x703 takes 0x8f34 (EN clear) and reads it back" "ok 0x8f34" "$(wr 0x703 0x8f34) $(rd 0x703)"
check "en: 0x703 refuses 0x408f34 (EN set), keeps 0x8f34" "EIO 0x8f34" "$(wr 0x703 0x408f34) $(rd 0x703)"
check "en: PCM's 0x400000 to 0x703 faults (PCM issue 337)" "EIO" "$(wr 0x703 0x400000)"
check "en: CBo 4's PERFEVTSEL3 0x743 as well" "ok EIO" "$(wr 0x743 0x8f34) $(wr 0x743 0x408f34)"
check "en: PERFEVTSEL2 0x702 is untouched (takes EN)" "ok 0x408f34" "$(wr 0x702 0x408f34) $(rd 0x702)"
msr 0 0x702 0; msr 0 0x703 0; msr 0 0x743 0
# read: CBo 0 PERFCTR0.
check "read: RDMSR 0x706 faults, WRMSR 0x706 is taken" "EIO ok" "$(rd 0x706) $(wr 0x706 1234)"
check "read: the write reached the counter (backdoor peek)" "0x4d2" "$(skl-silicon peek cbox 0 0)"
msr 0 0x706 0
# write: CBo 1 PERFEVTSEL2.
check "write: RDMSR 0x712 reads 0, WRMSR 0x712 faults even with 0" "0x0 EIO EIO" \
	"$(rd 0x712) $(wr 0x712 0) $(wr 0x712 0x8f34)"
# absent: CBo 1 PERFEVTSEL3 (overrides evtsel3:en).
check "absent: RDMSR and WRMSR 0x713 fault" "EIO EIO EIO" "$(rd 0x713) $(wr 0x713 0) $(wr 0x713 0x408f34)"
# The tally, counted from the accesses above.
check "the fault tally: every #GP above on its MSR, nothing else" \
	"msr 0x703 gp 2 violations 0 msr 0x706 gp 1 violations 0 msr 0x712 gp 2 violations 0 msr 0x713 gp 3 violations 0 msr 0x743 gp 1 violations 0" \
	"$(echo $(skl-silicon faults))"
skl-silicon faults-reset
check "faults-reset clears the tally" "" "$(skl-silicon faults)"
ktap_end
