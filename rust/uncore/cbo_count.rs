// SPDX-License-Identifier: GPL-2.0

//! How many CBo PMUs to register: `MSR_UNC_CBO_CONFIG.NO_CBO_BANKS` read against the package's
//! core count, and the one log line that says why.

use super::regs::CboConfig;

impl CboConfig {
    /// The number of CBo PMUs to register for a package of `cores` cores.
    ///
    /// With `b` = `NO_CBO_BANKS` (bits 3:0; the reserved bits are ignored) and `c` = `cores`
    /// (0, an unknown count, is taken as 1), in this order:
    /// 1. `b` is 0 or 1: no CBo. An emulator that reads unknown MSRs as 0 must not underflow
    ///    into 15 CBos; the ARB, clock and IMC do not depend on this register.
    /// 2. `b == c`: `b` CBos, not `b - 1`. Later Coffee and Comet Lake parts report the CBo
    ///    count itself (a 10-core Comet Lake reads 10). This is the only case where the two
    ///    readings disagree before clamping: the manual's would leave one core without its LLC
    ///    slice, which client parts do not have (`b == c + 1` gives `c` either way).
    /// 3. Otherwise `b - 1` CBos, as the manual says (§2.4.1: "subtract one"; a quad-core
    ///    Skylake reads 5).
    ///
    /// The result is then clamped to `c` (every core has one slice: more CBos than cores means
    /// the register is not what we think it is) and to [`super::units::MAX_CBOX`] (no MSR
    /// addresses are known beyond the 8th CBo). It never fails: the worst case is no CBo PMU.
    pub(crate) const fn cbox_count(self, cores: u32) -> CboCount {
        let banks = self.get(Self::NO_CBO_BANKS) as u32;
        let c = if cores == 0 { 1 } else { cores };
        let (basis, found) = match banks {
            0 | 1 => (CboBasis::NoneReported, 0),
            b if b == c => (CboBasis::EqualsCores, b),
            b => (CboBasis::ManualMinusOne, b - 1),
        };
        let max = super::units::MAX_CBOX;
        let (clamp, n) = if found > c && c <= max {
            (CboClamp::ToCores, c)
        } else if found > max {
            (CboClamp::ToMax, max)
        } else {
            (CboClamp::None, found)
        };
        CboCount {
            n,
            raw: self.into_raw(),
            cores,
            basis,
            found,
            clamp,
        }
    }
}

/// How [`CboConfig::cbox_count`] read `NO_CBO_BANKS`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum CboBasis {
    /// 0 or 1: no CBo.
    NoneReported,
    /// Equal to the core count: the count itself.
    EqualsCores,
    /// The manual's `NO_CBO_BANKS - 1`.
    ManualMinusOne,
}

/// Which bound [`CboConfig::cbox_count`] applied.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum CboClamp {
    /// None.
    None,
    /// The package's core count.
    ToCores,
    /// [`super::units::MAX_CBOX`].
    ToMax,
}

/// The CBo count and how it was decided: one line in the log.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct CboCount {
    /// CBo PMUs to register.
    pub(crate) n: u32,
    /// `MSR_UNC_CBO_CONFIG` as read.
    pub(crate) raw: u64,
    /// Cores per package, as given.
    pub(crate) cores: u32,
    /// How `NO_CBO_BANKS` was read.
    pub(crate) basis: CboBasis,
    /// The count before clamping.
    pub(crate) found: u32,
    /// The bound applied.
    pub(crate) clamp: CboClamp,
}

impl super::Describe for CboCount {
    fn describe(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let banks = CboConfig::from_raw(self.raw).get(CboConfig::NO_CBO_BANKS);
        write!(
            f,
            "MSR_UNC_CBO_CONFIG {:#x} (NO_CBO_BANKS {banks}), {} core{}: {} CBo PMU{} (",
            self.raw,
            self.cores,
            if self.cores == 1 { "" } else { "s" },
            self.n,
            if self.n == 1 { "" } else { "s" }
        )?;
        match self.basis {
            CboBasis::NoneReported => write!(f, "0 or 1 reports none")?,
            CboBasis::EqualsCores => write!(f, "equal to the core count: the count itself")?,
            CboBasis::ManualMinusOne => write!(f, "NO_CBO_BANKS - 1 = {}", self.found)?,
        }
        match self.clamp {
            CboClamp::None => {}
            CboClamp::ToCores => write!(f, ", clamped to the core count")?,
            CboClamp::ToMax => write!(
                f,
                ", clamped to {}, the most with known MSR addresses",
                self.n
            )?,
        }
        write!(f, ")")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Expected CBo count for raw `NO_CBO_BANKS` 0..15 (rows) and 1..10 cores (columns),
    /// worked out by hand from the rule: 0 or 1 is none; equal to the cores is the count;
    /// else minus one; then at most the cores and at most 8.
    const EXPECTED: [[u32; 10]; 16] = [
        // cores 1  2  3  4  5  6  7  8  9  10
        [0, 0, 0, 0, 0, 0, 0, 0, 0, 0], // 0
        [0, 0, 0, 0, 0, 0, 0, 0, 0, 0], // 1
        [1, 2, 1, 1, 1, 1, 1, 1, 1, 1], // 2
        [1, 2, 3, 2, 2, 2, 2, 2, 2, 2], // 3
        [1, 2, 3, 4, 3, 3, 3, 3, 3, 3], // 4
        [1, 2, 3, 4, 5, 4, 4, 4, 4, 4], // 5
        [1, 2, 3, 4, 5, 6, 5, 5, 5, 5], // 6
        [1, 2, 3, 4, 5, 6, 7, 6, 6, 6], // 7
        [1, 2, 3, 4, 5, 6, 7, 8, 7, 7], // 8
        [1, 2, 3, 4, 5, 6, 7, 8, 8, 8], // 9
        [1, 2, 3, 4, 5, 6, 7, 8, 8, 8], // 10
        [1, 2, 3, 4, 5, 6, 7, 8, 8, 8], // 11
        [1, 2, 3, 4, 5, 6, 7, 8, 8, 8], // 12
        [1, 2, 3, 4, 5, 6, 7, 8, 8, 8], // 13
        [1, 2, 3, 4, 5, 6, 7, 8, 8, 8], // 14
        [1, 2, 3, 4, 5, 6, 7, 8, 8, 8], // 15
    ];

    #[test]
    fn cbox_count_every_raw_value_and_core_count() {
        for raw in 0..16u64 {
            for cores in 1..=10u32 {
                let want = EXPECTED[raw as usize][cores as usize - 1];
                // Reserved bits 63:4 change nothing.
                for r in [raw, raw | 0xabc0, raw | (1 << 63)] {
                    let got = CboConfig::from_raw(r).cbox_count(cores);
                    assert_eq!(got.n, want, "raw {r:#x} cores {cores}");
                    assert_eq!((got.raw, got.cores), (r, cores));
                }
            }
        }
    }

    #[test]
    fn cbox_count_says_why() {
        let why = |raw: u64, cores: u32| {
            let c = CboConfig::from_raw(raw).cbox_count(cores);
            (c.basis, c.found, c.clamp)
        };
        assert_eq!(why(0, 4), (CboBasis::NoneReported, 0, CboClamp::None));
        assert_eq!(why(1, 1), (CboBasis::NoneReported, 0, CboClamp::None));
        assert_eq!(why(5, 4), (CboBasis::ManualMinusOne, 4, CboClamp::None));
        assert_eq!(why(3, 4), (CboBasis::ManualMinusOne, 2, CboClamp::None));
        assert_eq!(why(4, 4), (CboBasis::EqualsCores, 4, CboClamp::None));
        assert_eq!(why(2, 1), (CboBasis::ManualMinusOne, 1, CboClamp::None));
        assert_eq!(why(7, 4), (CboBasis::ManualMinusOne, 6, CboClamp::ToCores));
        assert_eq!(why(10, 10), (CboBasis::EqualsCores, 10, CboClamp::ToMax));
        assert_eq!(why(15, 10), (CboBasis::ManualMinusOne, 14, CboClamp::ToMax));
        assert_eq!(
            why(15, 8),
            (CboBasis::ManualMinusOne, 14, CboClamp::ToCores)
        );
        // An unknown core count (0) counts as one core.
        assert_eq!(CboConfig::from_raw(5).cbox_count(0).n, 1);
        assert_eq!(CboConfig::from_raw(1).cbox_count(0).n, 0);
    }

    #[test]
    fn cbox_count_log_lines() {
        struct Line(CboCount);
        impl std::fmt::Display for Line {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                crate::uncore::Describe::describe(&self.0, f)
            }
        }
        let line =
            |raw: u64, cores: u32| Line(CboConfig::from_raw(raw).cbox_count(cores)).to_string();
        assert_eq!(
            line(0, 4),
            "MSR_UNC_CBO_CONFIG 0x0 (NO_CBO_BANKS 0), 4 cores: 0 CBo PMUs (0 or 1 reports none)"
        );
        assert_eq!(
            line(5, 4),
            "MSR_UNC_CBO_CONFIG 0x5 (NO_CBO_BANKS 5), 4 cores: 4 CBo PMUs (NO_CBO_BANKS - 1 = 4)"
        );
        assert_eq!(
            line(1, 1),
            "MSR_UNC_CBO_CONFIG 0x1 (NO_CBO_BANKS 1), 1 core: 0 CBo PMUs (0 or 1 reports none)"
        );
        assert_eq!(
            line(2, 4),
            "MSR_UNC_CBO_CONFIG 0x2 (NO_CBO_BANKS 2), 4 cores: 1 CBo PMU (NO_CBO_BANKS - 1 = 1)"
        );
        assert_eq!(
            line(6, 6),
            "MSR_UNC_CBO_CONFIG 0x6 (NO_CBO_BANKS 6), 6 cores: 6 CBo PMUs (equal to the core \
             count: the count itself)"
        );
        assert_eq!(
            line(9, 4),
            "MSR_UNC_CBO_CONFIG 0x9 (NO_CBO_BANKS 9), 4 cores: 4 CBo PMUs (NO_CBO_BANKS - 1 = 8, \
             clamped to the core count)"
        );
        assert_eq!(
            line(0x1f, 10),
            "MSR_UNC_CBO_CONFIG 0x1f (NO_CBO_BANKS 15), 10 cores: 8 CBo PMUs (NO_CBO_BANKS - 1 = \
             14, clamped to 8, the most with known MSR addresses)"
        );
    }
}
