// SPDX-License-Identifier: GPL-2.0

//! The MSRs the driver may write: the uncore PMU's registers of the tables, and no other.
//!
//! A WRMSR to an arbitrary address can corrupt kernel memory or take the machine down (EFER,
//! the SYSCALL entry point, the PAT, a microcode trigger). [`UncoreMsr`] can only name a
//! register of chapter 2 (Tables 2-2 to 2-8): those configure counting logic and hold counts,
//! nothing else, so the kernel layer writes one without asking its caller for a promise.

use super::{
    GlobalCtrl, GlobalStatus, PerfCtr, PerfEvtSel, MSR_UNC_PERF_FIXED_CTR, MSR_UNC_PERF_FIXED_CTRL,
};
use crate::uncore::units::{Unit, ARB, CBOX, MAX_CBOX};

/// An uncore PMU register address.
///
/// # Invariants
///
/// The address is `MSR_UNC_PERF_GLOBAL_CTRL`, `MSR_UNC_PERF_GLOBAL_STATUS`,
/// `MSR_UNC_PERF_FIXED_CTRL`, `MSR_UNC_PERF_FIXED_CTR`, or a `PERFEVTSEL`/`PERFCTR` of a CBo
/// (0 to [`MAX_CBOX`] - 1) or of the ARB, as the unit tables place them. Writing any of them
/// changes what the uncore counts (and, with an `OVF_EN` bit, may raise a PMI, which perf's
/// NMI handler tolerates); none maps, pages, enables or redirects anything.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct UncoreMsr(u32);

/// The units with generic counters, and how many boxes of each the tables place.
const GENERIC_UNITS: [(&Unit, u32); 2] = [(&CBOX, MAX_CBOX), (&ARB, 1)];

impl UncoreMsr {
    /// `addr`, if it is an uncore PMU register (see the type's invariants).
    pub(crate) fn new(addr: u32) -> Option<Self> {
        let shared = [
            GlobalCtrl::ADDR,
            GlobalStatus::ADDR,
            MSR_UNC_PERF_FIXED_CTRL,
            MSR_UNC_PERF_FIXED_CTR,
        ];
        let per_box = GENERIC_UNITS.iter().any(|&(unit, boxes)| {
            (0..boxes).any(|b| {
                (0..unit.nr_generic).any(|i| {
                    addr == PerfEvtSel::addr(unit, b, i) || addr == PerfCtr::addr(unit, b, i)
                })
            })
        });
        // INVARIANT: one of the addresses listed there.
        (shared.contains(&addr) || per_box).then_some(Self(addr))
    }

    /// The address.
    pub(crate) fn addr(self) -> u32 {
        self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::uncore::regs::MSR_UNC_CBO_CONFIG;

    #[test]
    fn every_register_the_tables_place_is_writable() {
        for (unit, boxes) in GENERIC_UNITS {
            for b in 0..boxes {
                for i in 0..unit.nr_generic {
                    for addr in [PerfEvtSel::addr(unit, b, i), PerfCtr::addr(unit, b, i)] {
                        assert_eq!(UncoreMsr::new(addr).map(UncoreMsr::addr), Some(addr));
                    }
                }
            }
        }
        for addr in [
            0xE01, 0xE02, 0x394, 0x395, 0x700, 0x707, 0x702, 0x709, 0x3B2, 0x3B1, 0xF70, 0xF79,
        ] {
            assert!(UncoreMsr::new(addr).is_some(), "{addr:#x}");
        }
    }

    #[test]
    fn nothing_else_is() {
        // TSC, APIC base, MISC_ENABLE, PAT, EFER, LSTAR; the read-only CBo config; the 4-bit
        // registers beside a CBo's counters and a fifth counter no part has; the 8th CBo's
        // unmoved address; the 5th generation's global control; a third ARB counter.
        for addr in [
            0x10,
            0x1B,
            0x1A0,
            0x277,
            0xC000_0080,
            0xC000_0082,
            MSR_UNC_CBO_CONFIG,
            0x704,
            0x705,
            0x70A,
            0x770,
            0x391,
            0x3B4,
        ] {
            assert_eq!(UncoreMsr::new(addr), None, "{addr:#x}");
        }
    }
}
