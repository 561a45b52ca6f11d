// SPDX-License-Identifier: GPL-2.0

//! Uncore PMU registers of 6th-generation Intel Core processors (manual 334060-001, chapter 2).
//!
//! Names follow the manual. Each register's address is on its type (`GlobalCtrl::ADDR`); the
//! per-box registers' come from the unit tables in [`super::units`] (`PerfEvtSel::addr`).

// The whole register map is here, as the manual has it, including what only the simulator or
// the IMC discovery reads.
#![allow(dead_code)]

use super::units::Unit;

mod reg_name;
mod uncore_msr;
// The kernel layer's (the host crate only tests it).
#[allow(unused_imports)]
pub(crate) use reg_name::RegName;
pub(crate) use uncore_msr::UncoreMsr;

bitfield! {
    /// `MSR_UNC_PERF_GLOBAL_CTRL` (Table 2-2; moved from 0x391 on 5th generation, Table 1-1).
    pub(crate) struct GlobalCtrl @ 0xE01 {
        /// Forward uncore PMI requests to core 0.
        0:0 PMI_SEL_CORE0: bool => pmi_sel_core0, set_pmi_sel_core0;
        /// Forward uncore PMI requests to core 1.
        1:1 PMI_SEL_CORE1: bool => pmi_sel_core1, set_pmi_sel_core1;
        /// Forward uncore PMI requests to core 2.
        2:2 PMI_SEL_CORE2: bool => pmi_sel_core2, set_pmi_sel_core2;
        /// Forward uncore PMI requests to core 3.
        3:3 PMI_SEL_CORE3: bool => pmi_sel_core3, set_pmi_sel_core3;
        /// Globally enable all uncore counters.
        29:29 EN: bool => en, set_en;
        /// Wake sleeping cores for a PMI.
        30:30 WAKE_ON_PMI: bool => wake_on_pmi, set_wake_on_pmi;
        /// Freeze all counters on PMI.
        31:31 FRZ_ON_PMI: bool => frz_on_pmi, set_frz_on_pmi;
    }
}

impl GlobalCtrl {
    /// What the driver writes: `EN` alone.
    ///
    /// Linux writes 0x2000001F, which also sets the four PMI slice selects and bit 4 (reserved
    /// in Table 2-2). The driver never asks for a PMI (it polls), so no slice select is needed.
    pub(crate) const DRIVER_VALUE: Self = {
        let mut v = Self::zeroed();
        v.set_en(true);
        v
    };
}

bitfield! {
    /// `MSR_UNC_PERF_GLOBAL_STATUS` (Table 2-3). The manual prints `CBO_CTR_OVF` at bit 31
    /// inside a reserved 63:4 range; bit 3 is the evident intent.
    pub(crate) struct GlobalStatus @ 0xE02 {
        /// The fixed counter overflowed.
        0:0 FIXED_CTR_OVF: bool => fixed_ctr_ovf, set_fixed_ctr_ovf;
        /// An ARB counter overflowed.
        1:1 ARB_CTR_OVF: bool => arb_ctr_ovf, set_arb_ctr_ovf;
        /// A CBo counter overflowed.
        3:3 CBO_CTR_OVF: bool => cbo_ctr_ovf, set_cbo_ctr_ovf;
    }
}

bitfield! {
    /// `MSR_UNC_PERF_FIXED_CTRL` (Table 2-4).
    pub(crate) struct FixedCtrl @ 0x394 {
        /// Forward overflows as a PMI.
        20:20 OVF_EN: bool => ovf_en, set_ovf_en;
        /// Locally enable the fixed counter.
        22:22 CNT_EN: bool => cnt_en, set_cnt_en;
    }
}

impl FixedCtrl {
    /// What the driver writes to start the fixed counter: `CNT_EN` alone (no PMI).
    pub(crate) const DRIVER_VALUE: Self = {
        let mut v = Self::zeroed();
        v.set_cnt_en(true);
        v
    };
}

bitfield! {
    /// `MSR_UNC_PERF_FIXED_CTR` (Table 2-5): UCLK cycles.
    pub(crate) struct FixedCtr @ 0x395 {
        /// The count.
        47:0 CTR_VAL: u64 => ctr_val, set_ctr_val?;
    }
}

bitfield! {
    /// `MSR_UNC_CBO_CONFIG` (Table 2-6), read only.
    pub(crate) struct CboConfig @ 0x396 {
        /// Number of C-Box units plus one ("read this register and subtract one", 2.4.1).
        3:0 NO_CBO_BANKS: u8 => no_cbo_banks, set_no_cbo_banks?;
    }
}

/// `MSR_UNC_PERF_GLOBAL_CTRL` address.
pub(crate) const MSR_UNC_PERF_GLOBAL_CTRL: u32 = GlobalCtrl::ADDR;
/// `MSR_UNC_PERF_GLOBAL_STATUS` address.
pub(crate) const MSR_UNC_PERF_GLOBAL_STATUS: u32 = GlobalStatus::ADDR;
/// `MSR_UNC_PERF_FIXED_CTRL` address.
pub(crate) const MSR_UNC_PERF_FIXED_CTRL: u32 = FixedCtrl::ADDR;
/// `MSR_UNC_PERF_FIXED_CTR` address.
pub(crate) const MSR_UNC_PERF_FIXED_CTR: u32 = FixedCtr::ADDR;
/// `MSR_UNC_CBO_CONFIG` address.
pub(crate) const MSR_UNC_CBO_CONFIG: u32 = CboConfig::ADDR;

bitfield! {
    /// `MSR_UNC_CBO_n_PERFEVTSELm` and `MSR_UNC_ARB_PERFEVTSELm` (Table 2-7).
    pub(crate) struct PerfEvtSel {
        /// Event select.
        7:0 EVT_SEL: u8 => evt_sel, set_evt_sel;
        /// Unit mask: sub-events of `EVT_SEL`.
        15:8 UMASK: u8 => umask, set_umask;
        /// Count edges (occurrences) instead of cycles.
        18:18 E: bool => e, set_e;
        /// Forward overflows as a PMI.
        20:20 OVF_EN: bool => ovf_en, set_ovf_en;
        /// Locally enable the counter.
        22:22 EN: bool => en, set_en;
        /// Invert the threshold comparison.
        23:23 INV: bool => inv, set_inv;
        /// Threshold (perf's `cmask`); 0 disables the comparison.
        28:24 THR: u8 => thr, set_thr?;
    }
}

bitfield! {
    /// `MSR_UNC_CBO_n_PERFCTRm` and `MSR_UNC_ARB_PERFCTRm` (Table 2-8).
    pub(crate) struct PerfCtr {
        /// The count.
        43:0 CTR_VAL: u64 => ctr_val, set_ctr_val?;
    }
}

// The per-box registers have one address per unit, box and counter. The unit tables hold the
// bases, strides and the 8th CBo's quirk once; these functions make them reachable from the
// types, so code says `PerfEvtSel::addr(&CBOX, b, i)` and no second table can drift.
impl PerfEvtSel {
    /// Address of `unit`'s `PERFEVTSEL<idx>` in box `box_idx`.
    pub(crate) const fn addr(unit: &Unit, box_idx: u32, idx: u32) -> u32 {
        unit.evtsel(box_idx, idx)
    }
}

impl PerfCtr {
    /// Address of `unit`'s `PERFCTR<idx>` in box `box_idx`.
    pub(crate) const fn addr(unit: &Unit, box_idx: u32, idx: u32) -> u32 {
        unit.ctr(box_idx, idx)
    }
}

/// Width of the CBo and ARB `PERFCTR` counters (Table 2-8).
pub(crate) const PERFCTR_WIDTH: u32 = PerfCtr::CTR_VAL.width();
/// Width of `MSR_UNC_PERF_FIXED_CTR` (Table 2-5).
pub(crate) const FIXED_CTR_WIDTH: u32 = FixedCtr::CTR_VAL.width();
/// Width of the IMC free-running counters (Table 1-2).
pub(crate) const IMC_CTR_WIDTH: u32 = 32;

/// PCI configuration offset of `MCHBAR` in the host bridge 0:0.0 (low dword; high at +4).
pub(crate) const PCI_MCHBAR_LO: u16 = 0x48;
/// High dword of `MCHBAR`.
pub(crate) const PCI_MCHBAR_HI: u16 = 0x4C;

bitfield! {
    /// `MCHBAR` in the host bridge's configuration space (offsets [`PCI_MCHBAR_LO`] and
    /// [`PCI_MCHBAR_HI`]).
    pub(crate) struct Mchbar {
        /// MCHBAR decoding enabled.
        0:0 MCHBAREN: bool => mchbaren, set_mchbaren;
        /// Base address bits 38:15 (the manual's mask 0x0007FFFFF8000).
        38:15 BASE: u32 => base, set_base?;
    }
}

impl Mchbar {
    /// Physical address of the MCHBAR window, if decoding is enabled.
    pub(crate) const fn address(self) -> Option<u64> {
        if !self.mchbaren() {
            return None;
        }
        match self.base() {
            0 => None,
            base => Some((base as u64) << Self::BASE.lo()),
        }
    }
}

/// Bytes of MCHBAR the driver maps: the IMC counters end at 0x5058; Linux maps 0x6000.
pub(crate) const IMC_MAP_SIZE: usize = 0x6000;

/// An IMC free-running counter in the MCHBAR window (Table 3-3).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ImcCounter {
    /// Name in the manual.
    pub(crate) name: &'static str,
    /// Offset from MCHBAR.
    pub(crate) offset: u32,
}

/// The five IMC counters, indexed by perf event code - 1 (Linux's encoding: 1 = data_reads).
pub(crate) const IMC_COUNTERS: [ImcCounter; 5] = [
    ImcCounter {
        name: "DRAM_DATA_READS",
        offset: 0x5050,
    },
    ImcCounter {
        name: "DRAM_DATA_WRITES",
        offset: 0x5054,
    },
    ImcCounter {
        name: "DRAM_GT_REQUESTS",
        offset: 0x5040,
    },
    ImcCounter {
        name: "DRAM_IA_REQUESTS",
        offset: 0x5044,
    },
    ImcCounter {
        name: "DRAM_IO_REQUESTS",
        offset: 0x5048,
    },
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn global_ctrl_value_has_no_reserved_bit() {
        assert_eq!(GlobalCtrl::DRIVER_VALUE.into_raw(), 0x2000_0000);
        assert_eq!(GlobalCtrl::DRIVER_VALUE.reserved_bits(), 0);
        // Linux's value sets reserved bit 4.
        assert_eq!(GlobalCtrl::from_raw(0x2000_001F).reserved_bits(), 0x10);
    }

    #[test]
    fn perfevtsel_layout() {
        assert_eq!(PerfEvtSel::DEFINED, 0x1FD4_FFFF);
        let sel = PerfEvtSel::zeroed()
            .with(PerfEvtSel::EVT_SEL, 0x34)
            .with(PerfEvtSel::UMASK, 0x8f)
            .with(PerfEvtSel::EN, 1);
        assert_eq!(sel.into_raw(), 0x40_8f34);
    }
}

/// Every layout against the manual's tables, bit by bit.
#[cfg(test)]
mod layout_tests {
    use super::*;
    use crate::uncore::bitfield::{Field, FieldTooWide};
    use crate::uncore::units::{ARB, CBOX};
    use proptest::prelude::*;

    /// `field` is `hi:lo`.
    #[track_caller]
    fn at(field: Field, hi: u32, lo: u32) {
        assert_eq!((field.hi(), field.lo()), (hi, lo));
    }

    #[test]
    fn table_2_2_global_ctrl() {
        assert_eq!(GlobalCtrl::ADDR, 0xE01);
        at(GlobalCtrl::PMI_SEL_CORE0, 0, 0);
        at(GlobalCtrl::PMI_SEL_CORE1, 1, 1);
        at(GlobalCtrl::PMI_SEL_CORE2, 2, 2);
        at(GlobalCtrl::PMI_SEL_CORE3, 3, 3);
        at(GlobalCtrl::EN, 29, 29);
        at(GlobalCtrl::WAKE_ON_PMI, 30, 30);
        at(GlobalCtrl::FRZ_ON_PMI, 31, 31);
        // Reserved: 63:32 and 28:4.
        assert_eq!(GlobalCtrl::DEFINED, 0xE000_000F);
        assert!(GlobalCtrl::DRIVER_VALUE.en());
        assert_eq!(GlobalCtrl::DRIVER_VALUE.into_raw(), 0x2000_0000);
    }

    #[test]
    fn table_2_3_global_status() {
        assert_eq!(GlobalStatus::ADDR, 0xE02);
        at(GlobalStatus::FIXED_CTR_OVF, 0, 0);
        at(GlobalStatus::ARB_CTR_OVF, 1, 1);
        // Printed at 31, inside "Reserved 63:4": bit 3 (spec README).
        at(GlobalStatus::CBO_CTR_OVF, 3, 3);
        assert_eq!(GlobalStatus::DEFINED, 0b1011);
        assert!(GlobalStatus::from_raw(8).cbo_ctr_ovf());
    }

    #[test]
    fn table_2_4_and_2_5_fixed_counter() {
        assert_eq!(FixedCtrl::ADDR, 0x394);
        at(FixedCtrl::OVF_EN, 20, 20);
        at(FixedCtrl::CNT_EN, 22, 22);
        assert_eq!(FixedCtrl::DEFINED, 0x50_0000);
        assert_eq!(FixedCtrl::DRIVER_VALUE.into_raw(), 0x40_0000);
        assert_eq!(FixedCtr::ADDR, 0x395);
        at(FixedCtr::CTR_VAL, 47, 0);
        assert_eq!(FIXED_CTR_WIDTH, 48);
    }

    #[test]
    fn table_2_6_cbo_config() {
        assert_eq!(CboConfig::ADDR, 0x396);
        at(CboConfig::NO_CBO_BANKS, 3, 0);
        assert_eq!(CboConfig::DEFINED, 0xf);
        assert_eq!(CboConfig::from_raw(0xf5).no_cbo_banks(), 5);
    }

    #[test]
    fn table_2_7_perfevtsel() {
        at(PerfEvtSel::EVT_SEL, 7, 0);
        at(PerfEvtSel::UMASK, 15, 8);
        at(PerfEvtSel::E, 18, 18);
        at(PerfEvtSel::OVF_EN, 20, 20);
        at(PerfEvtSel::EN, 22, 22);
        at(PerfEvtSel::INV, 23, 23);
        at(PerfEvtSel::THR, 28, 24);
        // Reserved: 63:29, 21, 19, 17:16.
        assert_eq!(PerfEvtSel::DEFINED, 0x1FD4_FFFF);
        let mut sel = PerfEvtSel::zeroed();
        sel.set_evt_sel(0x34);
        sel.set_umask(0x8f);
        sel.set_e(true);
        sel.set_inv(true);
        sel.set_en(true);
        assert_eq!(sel.set_thr(0x1f), Ok(()));
        assert_eq!(sel.into_raw(), 0x1fc4_8f34);
        assert_eq!(
            (sel.evt_sel(), sel.umask(), sel.thr(), sel.e(), sel.inv()),
            (0x34, 0x8f, 0x1f, true, true)
        );
        assert!(!sel.ovf_en());
    }

    #[test]
    fn table_2_8_perfctr() {
        at(PerfCtr::CTR_VAL, 43, 0);
        assert_eq!(PERFCTR_WIDTH, 44);
    }

    /// Table 2-1, reached from the register types.
    #[test]
    fn per_box_addresses() {
        assert_eq!(PerfEvtSel::addr(&CBOX, 0, 0), 0x700);
        assert_eq!(PerfEvtSel::addr(&CBOX, 3, 1), 0x731);
        assert_eq!(PerfCtr::addr(&CBOX, 3, 1), 0x737);
        assert_eq!(PerfEvtSel::addr(&CBOX, 7, 0), 0xF70);
        assert_eq!(PerfCtr::addr(&CBOX, 7, 1), 0xF77);
        assert_eq!(PerfEvtSel::addr(&ARB, 0, 1), 0x3B3);
        assert_eq!(PerfCtr::addr(&ARB, 0, 0), 0x3B0);
    }

    #[test]
    fn narrow_setters_refuse_wide_values() {
        let mut sel = PerfEvtSel::from_raw(0x8f34);
        assert_eq!(
            sel.set_thr(0x20),
            Err(FieldTooWide {
                field: "THR",
                value: 0x20,
                width: 5
            })
        );
        // Nothing leaked into INV (bit 23) or above THR.
        assert_eq!(sel.into_raw(), 0x8f34);
        let mut cfg = CboConfig::zeroed();
        assert!(cfg.set_no_cbo_banks(0x10).is_err());
        assert_eq!(cfg.set_no_cbo_banks(0xf), Ok(()));
        let mut bar = Mchbar::zeroed();
        assert!(bar.set_base(1 << 24).is_err());
        assert_eq!(bar.into_raw(), 0);
        assert!(FixedCtr::zeroed().set_ctr_val(1 << 48).is_err());
        assert!(PerfCtr::zeroed().set_ctr_val(1 << 44).is_err());
        assert_eq!(PerfCtr::zeroed().set_ctr_val((1 << 44) - 1), Ok(()));
    }

    #[test]
    fn mchbar_decoding() {
        at(Mchbar::MCHBAREN, 0, 0);
        at(Mchbar::BASE, 38, 15);
        assert_eq!(Mchbar::from_raw(0xfed1_0001).address(), Some(0xfed1_0000));
        assert_eq!(Mchbar::from_raw(0xfed1_0000).address(), None);
        assert_eq!(Mchbar::from_raw(0x1).address(), None);
        // Bits above 38 and below 15 are not address bits.
        assert_eq!(
            Mchbar::from_raw(0xff80_0000_fed1_7ff1).address(),
            Some(0x80_fed1_0000 & 0x7F_FFFF_8000)
        );
    }

    proptest! {
        /// THR takes exactly 0..=31; a refused value changes nothing, an accepted one changes
        /// THR alone.
        #[test]
        fn thr_setter(raw in any::<u64>(), thr in any::<u8>()) {
            let mut sel = PerfEvtSel::from_raw(raw);
            match sel.set_thr(thr) {
                Ok(()) => {
                    prop_assert!(thr < 32);
                    prop_assert_eq!(sel.thr(), thr);
                    let not_thr = !PerfEvtSel::THR.mask();
                    prop_assert_eq!(sel.into_raw() & not_thr, raw & not_thr);
                }
                Err(e) => {
                    prop_assert!(thr >= 32);
                    prop_assert_eq!(e.value, u64::from(thr));
                    prop_assert_eq!(sel.into_raw(), raw);
                }
            }
        }

        /// The typed getters read what the raw value holds.
        #[test]
        fn getters_match_raw(raw in any::<u64>()) {
            let sel = PerfEvtSel::from_raw(raw);
            prop_assert_eq!(u64::from(sel.evt_sel()), raw & 0xff);
            prop_assert_eq!(u64::from(sel.umask()), (raw >> 8) & 0xff);
            prop_assert_eq!(u64::from(sel.thr()), (raw >> 24) & 0x1f);
            prop_assert_eq!(sel.e(), raw & (1 << 18) != 0);
            prop_assert_eq!(sel.en(), raw & (1 << 22) != 0);
            prop_assert_eq!(sel.inv(), raw & (1 << 23) != 0);
        }
    }
}
