// SPDX-License-Identifier: GPL-2.0

//! Uncore PMU registers of 6th-generation Intel Core processors (manual 334060-001, chapter 2).
//!
//! Names follow the manual. Addresses of the per-box registers are derived from the unit tables
//! in [`super::units`].

// The whole register map is here, as the manual has it, including what only the simulator or
// the IMC discovery reads.
#![allow(dead_code)]

/// `MSR_UNC_PERF_GLOBAL_CTRL` address (Table 1-1: moved from 0x391 on 5th generation).
pub(crate) const MSR_UNC_PERF_GLOBAL_CTRL: u32 = 0xE01;
/// `MSR_UNC_PERF_GLOBAL_STATUS` address.
pub(crate) const MSR_UNC_PERF_GLOBAL_STATUS: u32 = 0xE02;
/// `MSR_UNC_PERF_FIXED_CTRL` address.
pub(crate) const MSR_UNC_PERF_FIXED_CTRL: u32 = 0x394;
/// `MSR_UNC_PERF_FIXED_CTR` address.
pub(crate) const MSR_UNC_PERF_FIXED_CTR: u32 = 0x395;
/// `MSR_UNC_CBO_CONFIG` address.
pub(crate) const MSR_UNC_CBO_CONFIG: u32 = 0x396;

bitfield! {
    /// `MSR_UNC_PERF_GLOBAL_CTRL` (Table 2-2).
    pub(crate) struct GlobalCtrl {
        /// Forward uncore PMI requests to cores 0-3 (one bit per core).
        PMI_SEL_CORE: 3:0,
        /// Globally enable all uncore counters.
        EN: 29:29,
        /// Wake sleeping cores for a PMI.
        WAKE_ON_PMI: 30:30,
        /// Freeze all counters on PMI.
        FRZ_ON_PMI: 31:31,
    }
}

impl GlobalCtrl {
    /// What the driver writes: `EN` alone.
    ///
    /// Linux writes 0x2000001F, which also sets the four PMI slice selects and bit 4 (reserved
    /// in Table 2-2). The driver never asks for a PMI (it polls), so no slice select is needed.
    pub(crate) const DRIVER_VALUE: Self = Self::zeroed().with(Self::EN, 1);
}

bitfield! {
    /// `MSR_UNC_PERF_GLOBAL_STATUS` (Table 2-3). The manual prints `CBO_CTR_OVF` at bit 31
    /// inside a reserved 63:4 range; bit 3 is the evident intent.
    pub(crate) struct GlobalStatus {
        /// The fixed counter overflowed.
        FIXED_CTR_OVF: 0:0,
        /// An ARB counter overflowed.
        ARB_CTR_OVF: 1:1,
        /// A CBo counter overflowed.
        CBO_CTR_OVF: 3:3,
    }
}

bitfield! {
    /// `MSR_UNC_PERF_FIXED_CTRL` (Table 2-4).
    pub(crate) struct FixedCtrl {
        /// Forward overflows as a PMI.
        OVF_EN: 20:20,
        /// Locally enable the fixed counter.
        CNT_EN: 22:22,
    }
}

bitfield! {
    /// `MSR_UNC_CBO_CONFIG` (Table 2-6), read only.
    pub(crate) struct CboConfig {
        /// Number of C-Box units plus one ("read this register and subtract one", 2.4.1).
        NO_CBO_BANKS: 3:0,
    }
}

impl CboConfig {
    /// The CBo PMUs to register for a package of `cores` cores, or why not.
    ///
    /// The register counts C-Boxes "including processor cores and processor graphics" and
    /// the manual says to subtract one. More CBos than cores means the register is not what we
    /// think it is. Beyond [`super::units::MAX_CBOX`] no MSR addresses are known: the count is
    /// capped there (10-core Comet Lake).
    pub(crate) fn cbox_count(self, cores: u32) -> Result<u32, CboCountError> {
        let n = self
            .nr_cbox()
            .ok_or(CboCountError::NoCbo(self.into_raw()))?;
        if n > cores.max(1) {
            return Err(CboCountError::TooMany { cbos: n, cores });
        }
        Ok(n.min(super::units::MAX_CBOX))
    }

    /// Number of CBo PMUs this register reports, or `None` when it reads as no CBo at all
    /// (0 or 1: a hypervisor that returns 0 for unknown MSRs must not underflow into 15).
    pub(crate) const fn nr_cbox(self) -> Option<u32> {
        match self.get(Self::NO_CBO_BANKS) {
            0 | 1 => None,
            n => Some(n as u32 - 1),
        }
    }
}

/// Why `MSR_UNC_CBO_CONFIG` gives no usable CBo count.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum CboCountError {
    /// It reads 0 or 1 (the raw value): no uncore, or an emulator that returns 0.
    NoCbo(u64),
    /// It reports more CBos than the package has cores.
    TooMany { cbos: u32, cores: u32 },
}

bitfield! {
    /// `MSR_UNC_CBO_n_PERFEVTSELm` and `MSR_UNC_ARB_PERFEVTSELm` (Table 2-7).
    pub(crate) struct PerfEvtSel {
        /// Event select.
        EVT_SEL: 7:0,
        /// Unit mask: sub-events of `EVT_SEL`.
        UMASK: 15:8,
        /// Count edges (occurrences) instead of cycles.
        E: 18:18,
        /// Forward overflows as a PMI.
        OVF_EN: 20:20,
        /// Locally enable the counter.
        EN: 22:22,
        /// Invert the threshold comparison.
        INV: 23:23,
        /// Threshold (perf's `cmask`); 0 disables the comparison.
        THR: 28:24,
    }
}

/// Width of the CBo and ARB `PERFCTR` counters (Table 2-8).
pub(crate) const PERFCTR_WIDTH: u32 = 44;
/// Width of `MSR_UNC_PERF_FIXED_CTR` (Table 2-5).
pub(crate) const FIXED_CTR_WIDTH: u32 = 48;
/// Width of the IMC free-running counters (Table 1-2).
pub(crate) const IMC_CTR_WIDTH: u32 = 32;

/// PCI configuration offset of `MCHBAR` in the host bridge 0:0.0 (low dword; high at +4).
pub(crate) const PCI_MCHBAR_LO: u16 = 0x48;
/// High dword of `MCHBAR`.
pub(crate) const PCI_MCHBAR_HI: u16 = 0x4C;

bitfield! {
    /// `MCHBAR` in the host bridge's configuration space.
    pub(crate) struct Mchbar {
        /// MCHBAR decoding enabled.
        MCHBAREN: 0:0,
        /// Base address bits 38:15 (the manual's mask 0x0007FFFFF8000).
        BASE: 38:15,
    }
}

impl Mchbar {
    /// Physical base address of the MCHBAR window, if decoding is enabled.
    pub(crate) const fn base(self) -> Option<u64> {
        if !self.is_set(Self::MCHBAREN) {
            return None;
        }
        match self.into_raw() & Self::BASE.mask() {
            0 => None,
            base => Some(base),
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

    #[test]
    fn cbo_config_never_underflows() {
        assert_eq!(CboConfig::from_raw(0).nr_cbox(), None);
        assert_eq!(CboConfig::from_raw(1).nr_cbox(), None);
        assert_eq!(CboConfig::from_raw(5).nr_cbox(), Some(4));
        assert_eq!(CboConfig::from_raw(0xf5).nr_cbox(), Some(4));
    }

    #[test]
    fn cbox_count_checks() {
        assert_eq!(CboConfig::from_raw(5).cbox_count(4), Ok(4));
        assert_eq!(
            CboConfig::from_raw(0).cbox_count(4),
            Err(CboCountError::NoCbo(0))
        );
        assert_eq!(
            CboConfig::from_raw(9).cbox_count(4),
            Err(CboCountError::TooMany { cbos: 8, cores: 4 })
        );
        assert_eq!(CboConfig::from_raw(11).cbox_count(10), Ok(8));
    }

    #[test]
    fn mchbar_decoding() {
        assert_eq!(Mchbar::from_raw(0xfed1_0001).base(), Some(0xfed1_0000));
        assert_eq!(Mchbar::from_raw(0xfed1_0000).base(), None);
        assert_eq!(Mchbar::from_raw(0x1).base(), None);
        // Bits above 38 and below 15 are not address bits.
        assert_eq!(
            Mchbar::from_raw(0xff80_0000_fed1_7ff1).base(),
            Some(0x80_fed1_0000 & 0x7F_FFFF_8000)
        );
    }
}
