// SPDX-License-Identifier: GPL-2.0

//! The simulator's own MSR map, typed in from the manual rather than derived from the driver's
//! unit tables: a wrong address in `units.rs` then shows up as a fault in the model (and a test
//! failure here) instead of being mirrored by it.

/// What an MSR address names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Reg {
    /// `MSR_UNC_PERF_GLOBAL_CTRL`.
    GlobalCtrl,
    /// `MSR_UNC_PERF_GLOBAL_STATUS`.
    GlobalStatus,
    /// `MSR_UNC_PERF_FIXED_CTRL`.
    FixedCtrl,
    /// `MSR_UNC_PERF_FIXED_CTR`.
    FixedCtr,
    /// `MSR_UNC_CBO_CONFIG`.
    CboConfig,
    /// `MSR_UNC_CBO_<box>_PERFEVTSEL<n>`.
    CboEvtSel(u32, u32),
    /// `MSR_UNC_CBO_<box>_PERFCTR<n>`.
    CboCtr(u32, u32),
    /// `MSR_UNC_ARB_PERFEVTSEL<n>`.
    ArbEvtSel(u32),
    /// `MSR_UNC_ARB_PERFCTR<n>`.
    ArbCtr(u32),
}

use Reg::*;

/// Every uncore PMU MSR. Table 2-1 lists the globals, the ARB and CBo 0..3, two PERFEVTSEL and
/// two PERFCTR per CBo; §2.4.2 says four, and the i7-6700K has four (PERFEVTSEL at +0..+3,
/// PERFCTR at +6..+9): the map holds four, a part may lack the last two
/// ([`super::SimUncore::set_cbo_counters`]). CBo 4..6 continue the 0x10 stride; CBo 7 sits at
/// 0xF70 (Linux's "8th CBOX has different MSR space"): parts with more than four CBos are
/// newer than the manual.
pub(crate) const MSR_MAP: [(u32, Reg); 73] = [
    (0xE01, GlobalCtrl),
    (0xE02, GlobalStatus),
    (0x394, FixedCtrl),
    (0x395, FixedCtr),
    (0x396, CboConfig),
    (0x3B0, ArbCtr(0)),
    (0x3B1, ArbCtr(1)),
    (0x3B2, ArbEvtSel(0)),
    (0x3B3, ArbEvtSel(1)),
    (0x700, CboEvtSel(0, 0)),
    (0x701, CboEvtSel(0, 1)),
    (0x702, CboEvtSel(0, 2)),
    (0x703, CboEvtSel(0, 3)),
    (0x706, CboCtr(0, 0)),
    (0x707, CboCtr(0, 1)),
    (0x708, CboCtr(0, 2)),
    (0x709, CboCtr(0, 3)),
    (0x710, CboEvtSel(1, 0)),
    (0x711, CboEvtSel(1, 1)),
    (0x712, CboEvtSel(1, 2)),
    (0x713, CboEvtSel(1, 3)),
    (0x716, CboCtr(1, 0)),
    (0x717, CboCtr(1, 1)),
    (0x718, CboCtr(1, 2)),
    (0x719, CboCtr(1, 3)),
    (0x720, CboEvtSel(2, 0)),
    (0x721, CboEvtSel(2, 1)),
    (0x722, CboEvtSel(2, 2)),
    (0x723, CboEvtSel(2, 3)),
    (0x726, CboCtr(2, 0)),
    (0x727, CboCtr(2, 1)),
    (0x728, CboCtr(2, 2)),
    (0x729, CboCtr(2, 3)),
    (0x730, CboEvtSel(3, 0)),
    (0x731, CboEvtSel(3, 1)),
    (0x732, CboEvtSel(3, 2)),
    (0x733, CboEvtSel(3, 3)),
    (0x736, CboCtr(3, 0)),
    (0x737, CboCtr(3, 1)),
    (0x738, CboCtr(3, 2)),
    (0x739, CboCtr(3, 3)),
    (0x740, CboEvtSel(4, 0)),
    (0x741, CboEvtSel(4, 1)),
    (0x742, CboEvtSel(4, 2)),
    (0x743, CboEvtSel(4, 3)),
    (0x746, CboCtr(4, 0)),
    (0x747, CboCtr(4, 1)),
    (0x748, CboCtr(4, 2)),
    (0x749, CboCtr(4, 3)),
    (0x750, CboEvtSel(5, 0)),
    (0x751, CboEvtSel(5, 1)),
    (0x752, CboEvtSel(5, 2)),
    (0x753, CboEvtSel(5, 3)),
    (0x756, CboCtr(5, 0)),
    (0x757, CboCtr(5, 1)),
    (0x758, CboCtr(5, 2)),
    (0x759, CboCtr(5, 3)),
    (0x760, CboEvtSel(6, 0)),
    (0x761, CboEvtSel(6, 1)),
    (0x762, CboEvtSel(6, 2)),
    (0x763, CboEvtSel(6, 3)),
    (0x766, CboCtr(6, 0)),
    (0x767, CboCtr(6, 1)),
    (0x768, CboCtr(6, 2)),
    (0x769, CboCtr(6, 3)),
    (0xF70, CboEvtSel(7, 0)),
    (0xF71, CboEvtSel(7, 1)),
    (0xF72, CboEvtSel(7, 2)),
    (0xF73, CboEvtSel(7, 3)),
    (0xF76, CboCtr(7, 0)),
    (0xF77, CboCtr(7, 1)),
    (0xF78, CboCtr(7, 2)),
    (0xF79, CboCtr(7, 3)),
];

/// The register at `msr`, if any.
pub(crate) fn lookup(msr: u32) -> Option<Reg> {
    MSR_MAP.iter().find(|(a, _)| *a == msr).map(|&(_, r)| r)
}

/// The address of `reg` (0 for a register not in the map, which [`MSR_MAP`]'s tests exclude).
pub(crate) fn address(reg: Reg) -> u32 {
    MSR_MAP
        .iter()
        .find(|(_, r)| *r == reg)
        .map_or(0, |&(a, _)| a)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::uncore::regs::{
        MSR_UNC_CBO_CONFIG, MSR_UNC_PERF_FIXED_CTR, MSR_UNC_PERF_FIXED_CTRL,
        MSR_UNC_PERF_GLOBAL_CTRL, MSR_UNC_PERF_GLOBAL_STATUS,
    };
    use crate::uncore::units::{ARB, CBOX, MAX_CBOX};

    #[test]
    fn addresses_and_registers_are_unique() {
        for (i, (a, r)) in MSR_MAP.iter().enumerate() {
            for (b, s) in &MSR_MAP[i + 1..] {
                assert_ne!(a, b, "{r:?} and {s:?} share {a:#x}");
                assert_ne!(r, s);
            }
            assert_eq!(lookup(*a), Some(*r));
            assert_eq!(address(*r), *a);
        }
        assert_eq!(lookup(0x702), Some(CboEvtSel(0, 2)));
        assert_eq!(lookup(0x709), Some(CboCtr(0, 3)));
        assert_eq!(lookup(0xF79), Some(CboCtr(7, 3)));
        for absent in [0x704, 0x705, 0x70A, 0x770, 0x776, 0x3B4] {
            assert_eq!(lookup(absent), None, "{absent:#x}");
        }
    }

    /// The driver's unit tables name exactly the registers of the map: every CBo and ARB
    /// counter of `units.rs` lands on the map's register of that box and counter, and the
    /// map has no box or counter the driver does not drive.
    #[test]
    fn driver_unit_tables_agree_with_the_map() {
        assert_eq!(CBOX.nr_generic, 4);
        assert_eq!(ARB.nr_generic, 2);
        let mut named = 0;
        for b in 0..MAX_CBOX {
            for i in 0..CBOX.nr_generic {
                assert_eq!(
                    lookup(CBOX.evtsel(b, i)),
                    Some(CboEvtSel(b, i)),
                    "cbo {b} {i}"
                );
                assert_eq!(lookup(CBOX.ctr(b, i)), Some(CboCtr(b, i)), "cbo {b} {i}");
                named += 2;
            }
        }
        for i in 0..ARB.nr_generic {
            assert_eq!(lookup(ARB.evtsel(0, i)), Some(ArbEvtSel(i)));
            assert_eq!(lookup(ARB.ctr(0, i)), Some(ArbCtr(i)));
            named += 2;
        }
        for (msr, reg) in [
            (MSR_UNC_PERF_GLOBAL_CTRL, GlobalCtrl),
            (MSR_UNC_PERF_GLOBAL_STATUS, GlobalStatus),
            (MSR_UNC_PERF_FIXED_CTRL, FixedCtrl),
            (MSR_UNC_PERF_FIXED_CTR, FixedCtr),
            (MSR_UNC_CBO_CONFIG, CboConfig),
        ] {
            assert_eq!(lookup(msr), Some(reg));
            named += 1;
        }
        // Uniqueness (above) plus equal counts: the driver names every register of the map.
        assert_eq!(named, MSR_MAP.len());
    }
}
