// SPDX-License-Identifier: GPL-2.0

//! How many generic counters a CBo has: probed at load, since parts differ from the manual and
//! from each other.
//!
//! Table 2-1 lists two `PERFEVTSEL`/`PERFCTR` pairs per CBo, section 2.4.2 says four. The
//! i7-6700K has four (VirtualBox's MSR probe of the part: `PERFEVTSEL0..3` at +0..+3 with one
//! #GP mask, 44-bit `PERFCTR0..3` at +6..+9). An i7-8665U (Whiskey Lake) faulted on a write to
//! `PERFEVTSEL3` of CBo 0 (Intel PCM issue 337). Linux assumes four and takes the fault; likwid
//! and PCM use two. The driver uses what the part has: it asks counters 2 and 3 of CBo 0, in
//! order, on one CPU of every package, and stops at the first that does not answer.

use super::regs::{PerfCtr, PerfEvtSel, RegName, UncoreMsr};
use super::units::CBOX;

/// A refused MSR access (a #GP taken by `rdmsr_safe`/`wrmsr_safe`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Refused;

/// MSR access on one CPU of the package being probed.
pub(crate) trait ProbeMsr {
    /// RDMSR.
    fn rdmsr(&mut self, msr: u32) -> Result<u64, Refused>;
    /// WRMSR.
    fn wrmsr(&mut self, msr: UncoreMsr, val: u64) -> Result<(), Refused>;
}

/// How the first missing counter showed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Missing {
    /// Its `PERFCTR` faulted when read.
    ReadFaults(u32),
    /// Its `PERFEVTSEL` faulted when written.
    WriteFaults(u32),
    /// Its `PERFEVTSEL` read back something other than what was written: no register there
    /// (an emulator that drops writes).
    Drops(u32),
}

/// The generic counters per CBo on every package probed, and why not more.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct CboCounters {
    /// Counters per CBo: the fewest any package has.
    pub(crate) n: u32,
    /// The first counter missing on the package with the fewest, and that package.
    pub(crate) missing: Option<(Missing, u32)>,
    /// Packages probed.
    pub(crate) packages: u32,
}

/// What the probe writes to a `PERFEVTSEL` holding 0: `UNC_CBO_CACHE_LOOKUP.ANY_MESI` with
/// `EN` clear, so nothing counts. 0 is put back.
const PROBE_VALUE: u64 = 0x8f34;

impl CboCounters {
    /// Before any package is probed: as many as the tables place.
    pub(crate) const fn new() -> Self {
        Self {
            n: CBOX.nr_generic,
            missing: None,
            packages: 0,
        }
    }

    /// Probes package `package` through `msr` (a CPU of it) and keeps the fewest counters.
    pub(crate) fn probe(&mut self, package: u32, msr: &mut impl ProbeMsr) {
        self.packages += 1;
        for idx in CBOX.nr_generic_listed..self.n {
            if let Err(why) = counter_answers(msr, idx) {
                self.n = idx;
                self.missing = Some((why, package));
                return;
            }
        }
    }
}

/// Whether generic counter `idx` of CBo 0 is there: its `PERFCTR` reads, and its `PERFEVTSEL`
/// keeps a value written with `EN` clear, or already holds one (another tool's: a real
/// register, left alone).
fn counter_answers(msr: &mut impl ProbeMsr, idx: u32) -> Result<(), Missing> {
    let ctr = PerfCtr::addr(&CBOX, 0, idx);
    let sel = PerfEvtSel::addr(&CBOX, 0, idx);
    msr.rdmsr(ctr).map_err(|_| Missing::ReadFaults(ctr))?;
    // Every `PERFEVTSEL` the unit table places is an uncore register.
    let writable = UncoreMsr::new(sel).ok_or(Missing::WriteFaults(sel))?;
    match msr.rdmsr(sel) {
        Err(_) => Err(Missing::ReadFaults(sel)),
        Ok(0) => {
            msr.wrmsr(writable, PROBE_VALUE)
                .map_err(|_| Missing::WriteFaults(sel))?;
            let kept = msr.rdmsr(sel) == Ok(PROBE_VALUE);
            let _ = msr.wrmsr(writable, 0);
            kept.then_some(()).ok_or(Missing::Drops(sel))
        }
        Ok(_) => Ok(()),
    }
}

impl super::Describe for CboCounters {
    fn describe(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "{} counters per CBo: ", self.n)?;
        let Some((why, package)) = self.missing else {
            let (first, last) = (CBOX.nr_generic_listed, CBOX.nr_generic - 1);
            return write!(
                f,
                "MSR_UNC_CBO_0_PERFEVTSEL{first} and PERFEVTSEL{last} keep a written value"
            );
        };
        let (addr, what) = match why {
            Missing::ReadFaults(a) => (a, "faults when read"),
            Missing::WriteFaults(a) => (a, "faults when written"),
            Missing::Drops(a) => (a, "does not keep a written value"),
        };
        write!(f, "{} ({addr:#x}) {what}", RegName(addr))?;
        if self.packages > 1 {
            write!(f, " on package {package}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    /// A package's MSRs: present ones hold a value; `drops` are present but ignore writes.
    #[derive(Default)]
    struct Msrs {
        regs: HashMap<u32, u64>,
        drops: Vec<u32>,
        log: Vec<(char, u32, u64)>,
    }

    impl Msrs {
        /// CBo 0 with `n` counters.
        fn with(n: u32) -> Self {
            let mut m = Self::default();
            for i in 0..n {
                m.regs.insert(0x700 + i, 0);
                m.regs.insert(0x706 + i, 0x1234);
            }
            m
        }
    }

    impl ProbeMsr for Msrs {
        fn rdmsr(&mut self, msr: u32) -> Result<u64, Refused> {
            let v = self.regs.get(&msr).copied().ok_or(Refused)?;
            self.log.push(('r', msr, v));
            Ok(v)
        }
        fn wrmsr(&mut self, msr: UncoreMsr, val: u64) -> Result<(), Refused> {
            let a = msr.addr();
            let r = self.regs.get_mut(&a).ok_or(Refused)?;
            self.log.push(('w', a, val));
            if !self.drops.contains(&a) {
                *r = val;
            }
            Ok(())
        }
    }

    fn line(c: CboCounters) -> String {
        struct L(CboCounters);
        impl std::fmt::Display for L {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                crate::uncore::Describe::describe(&self.0, f)
            }
        }
        L(c).to_string()
    }

    fn probe(m: &mut Msrs) -> CboCounters {
        let mut c = CboCounters::new();
        c.probe(0, m);
        c
    }

    #[test]
    fn four_counters_write_read_back_restore() {
        let mut m = Msrs::with(4);
        let c = probe(&mut m);
        assert_eq!((c.n, c.missing), (4, None));
        assert_eq!(
            line(c),
            "4 counters per CBo: MSR_UNC_CBO_0_PERFEVTSEL2 and PERFEVTSEL3 keep a written value"
        );
        // Exactly: the counter read, the control read, written, read back, zeroed; never
        // counters 0 and 1, never EN.
        let want = |i: u32| {
            [
                ('r', 0x706 + i, 0x1234),
                ('r', 0x700 + i, 0),
                ('w', 0x700 + i, 0x8f34),
                ('r', 0x700 + i, 0x8f34),
                ('w', 0x700 + i, 0),
            ]
        };
        assert_eq!(m.log, [want(2), want(3)].concat());
        assert_eq!(m.regs[&0x702], 0);
        assert_eq!(m.regs[&0x703], 0);
        assert_eq!(PROBE_VALUE & (1 << 22), 0);
    }

    #[test]
    fn two_counters_when_the_third_faults() {
        let mut m = Msrs::with(2);
        let c = probe(&mut m);
        assert_eq!((c.n, c.missing), (2, Some((Missing::ReadFaults(0x708), 0))));
        assert_eq!(
            line(c),
            "2 counters per CBo: MSR_UNC_CBO_0_PERFCTR2 (0x708) faults when read"
        );
        // The counter reads but the control register is read-only (faults when written).
        let mut m = Msrs::with(2);
        m.regs.insert(0x708, 0);
        m.regs.insert(0x702, 0);
        m.regs.insert(0x703, 0);
        m.regs.insert(0x709, 0);
        let mut ro = RoSel(m);
        let mut c = CboCounters::new();
        c.probe(0, &mut ro);
        assert_eq!(
            line(c),
            "2 counters per CBo: MSR_UNC_CBO_0_PERFEVTSEL2 (0x702) faults when written"
        );
    }

    /// `PERFEVTSEL`s of counters 2 and up fault when written.
    struct RoSel(Msrs);

    impl ProbeMsr for RoSel {
        fn rdmsr(&mut self, msr: u32) -> Result<u64, Refused> {
            self.0.rdmsr(msr)
        }
        fn wrmsr(&mut self, msr: UncoreMsr, val: u64) -> Result<(), Refused> {
            if msr.addr() >= 0x702 {
                return Err(Refused);
            }
            self.0.wrmsr(msr, val)
        }
    }

    #[test]
    fn three_counters_and_dropped_writes() {
        let mut m = Msrs::with(4);
        m.drops.push(0x703);
        let c = probe(&mut m);
        assert_eq!(c.n, 3);
        assert_eq!(
            line(c),
            "3 counters per CBo: MSR_UNC_CBO_0_PERFEVTSEL3 (0x703) does not keep a written value"
        );
        // Counter 3 of a part without counter 2 is never asked.
        let mut m = Msrs::with(4);
        m.regs.remove(&0x708);
        let c = probe(&mut m);
        assert_eq!(c.n, 2);
        assert!(m.log.iter().all(|&(_, a, _)| a != 0x703 && a != 0x709));
    }

    #[test]
    fn another_tools_value_is_left_alone() {
        let mut m = Msrs::with(4);
        m.regs.insert(0x702, 0x43_8f34);
        let c = probe(&mut m);
        assert_eq!(c.n, 4);
        assert_eq!(m.regs[&0x702], 0x43_8f34);
        assert!(m.log.iter().all(|&(k, a, _)| !(k == 'w' && a == 0x702)));
    }

    #[test]
    fn the_fewest_of_all_packages() {
        let mut c = CboCounters::new();
        c.probe(0, &mut Msrs::with(4));
        let mut m = Msrs::with(2);
        c.probe(1, &mut m);
        c.probe(2, &mut Msrs::with(4));
        assert_eq!((c.n, c.packages), (2, 3));
        assert_eq!(
            line(c),
            "2 counters per CBo: MSR_UNC_CBO_0_PERFCTR2 (0x708) faults when read on package 1"
        );
        // A later package with the same count keeps the first one named.
        c.probe(3, &mut Msrs::with(2));
        assert_eq!(c.missing, Some((Missing::ReadFaults(0x708), 1)));
        // Nothing probed: the tables' four.
        assert_eq!(CboCounters::new().n, 4);
    }
}
