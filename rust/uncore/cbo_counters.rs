// SPDX-License-Identifier: GPL-2.0

//! How many generic counters a CBo has: probed at load, since parts differ from the manual and
//! from each other.
//!
//! Table 2-1 lists two `PERFEVTSEL`/`PERFCTR` pairs per CBo, section 2.4.2 says four. The
//! i7-6700K has four (VirtualBox's MSR probe of the part: `PERFEVTSEL0..3` at +0..+3 with one
//! #GP mask, 44-bit `PERFCTR0..3` at +6..+9). An i7-8665U (Whiskey Lake) faulted on a write of
//! `EN` to `PERFEVTSEL3` of CBo 0 (`WRMSR 0x703 <- 0x400000`, Intel PCM issue 337): the only
//! evidence of a missing counter is a #GP, and the write that took it had `EN` set. Linux
//! assumes four and takes the fault; likwid and PCM use two. The driver uses what the part has:
//! it makes the write it will make (an event with `EN` set) to counters 2 and 3 of CBo 0, in
//! order, on one CPU of every package, and stops at the first that does not take it.
//!
//! Each package's probe is one call on one of its CPUs with interrupts off (see
//! [`super::probe`]): nothing else runs on that CPU between a read and the write that puts the
//! value back.

use super::regs::{PerfCtr, PerfEvtSel, RegName, UncoreMsr};
use super::units::CBOX;

/// A refused MSR access (a #GP taken by `rdmsr_safe`/`wrmsr_safe`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Refused;

/// MSR access on the CPU the probe runs on, with interrupts off.
pub(crate) trait ProbeMsr {
    /// RDMSR.
    fn rdmsr(&mut self, msr: u32) -> Result<u64, Refused>;
    /// WRMSR.
    fn wrmsr(&mut self, msr: UncoreMsr, val: u64) -> Result<(), Refused>;
}

/// How the first missing counter showed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Missing {
    /// This register (the `PERFEVTSEL`: no register there; or the `PERFCTR`: nothing to
    /// read the count from) faulted when read.
    ReadFaults(u32),
    /// The `PERFEVTSEL` faulted when written, with `EN` set and with it clear: read only.
    WriteFaults(u32),
    /// The `PERFEVTSEL` takes an event with `EN` clear and faults when `EN` is set: the
    /// register is there, the counter is not (PCM issue 337's fault was of such a write).
    EnRefused(u32),
    /// The `PERFEVTSEL` read back something other than what was written: no register there
    /// (an emulator that drops writes), or one that drops `EN`.
    Drops(u32),
}

/// What one package answered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Found {
    /// Generic counters per CBo.
    pub(crate) n: u32,
    /// The first counter missing, if fewer than the tables place.
    pub(crate) missing: Option<Missing>,
}

/// Packages whose answers are kept for the log; more are counted in the fewest only. Client
/// parts have one package; the emulated silicon has up to 8.
const MAX_PACKAGES_LOGGED: usize = 8;

/// The generic counters per CBo on every package probed, and why not more.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct CboCounters {
    /// Counters per CBo: the fewest any package has.
    pub(crate) n: u32,
    /// The first counter missing on the package with the fewest, and that package.
    pub(crate) missing: Option<(Missing, u32)>,
    /// Packages probed.
    pub(crate) packages: u32,
    /// Each package's answer, by package number (the first [`MAX_PACKAGES_LOGGED`]).
    found: [Option<Found>; MAX_PACKAGES_LOGGED],
}

/// The event the probe programs with `EN` set: `UNC_CBO_CACHE_LOOKUP.ANY_MESI`, as `perf stat
/// -e uncore_cbox_0/event=0x34,umask=0x8f/` programs it.
const PROBE_VALUE: u64 = PerfEvtSel::zeroed()
    .with(PerfEvtSel::EVT_SEL, 0x34)
    .with(PerfEvtSel::UMASK, 0x8f)
    .with(PerfEvtSel::EN, 1)
    .into_raw();

impl CboCounters {
    /// Before any package is probed: as many as the tables place.
    pub(crate) const fn new() -> Self {
        Self {
            n: CBOX.nr_generic,
            missing: None,
            packages: 0,
            found: [None; MAX_PACKAGES_LOGGED],
        }
    }

    /// Adds package `package`'s answer and keeps the fewest counters (the first package to
    /// have them is the one named).
    pub(crate) fn add(&mut self, package: u32, found: Found) {
        self.packages += 1;
        if let Some(slot) = self.found.get_mut(package as usize) {
            *slot = Some(found);
        }
        if found.n < self.n {
            self.n = found.n;
            self.missing = found.missing.map(|m| (m, package));
        }
    }

    /// Whether the packages answered differently: then each has its own line
    /// ([`Self::per_package`]).
    pub(crate) fn differ(&self) -> bool {
        let mut kept = self.found.iter().flatten();
        let first = kept.next();
        kept.any(|f| Some(f) != first)
    }

    /// Each package's answer, by package number, with its line ([`PackageLine`]).
    pub(crate) fn per_package(&self) -> impl Iterator<Item = PackageLine> + '_ {
        (0u32..)
            .zip(self.found.iter())
            .filter_map(|(pkg, f)| f.map(|f| PackageLine(pkg, f)))
    }
}

/// Probes counters 2 and 3 of CBo 0 in order, through `msr` (the CPU the probe runs on), and
/// stops at the first missing.
pub(crate) fn probe_counters(msr: &mut impl ProbeMsr) -> Found {
    for idx in CBOX.nr_generic_listed..CBOX.nr_generic {
        if let Err(why) = counter_answers(msr, idx) {
            return Found {
                n: idx,
                missing: Some(why),
            };
        }
    }
    Found {
        n: CBOX.nr_generic,
        missing: None,
    }
}

/// Whether generic counter `idx` of CBo 0 is there: its `PERFEVTSEL` and `PERFCTR` read, and
/// the `PERFEVTSEL` takes and keeps an event with `EN` set. Both are put back as they were
/// read: a value another tool left there stays, and so does its count, which the probe's
/// event may have moved. A `PERFEVTSEL` that already has `EN` set (another tool counting
/// there) has taken that write: it is not touched. `GLOBAL_CTRL` is not touched either:
/// clearing its `EN` would stop every other tool's counters.
fn counter_answers(msr: &mut impl ProbeMsr, idx: u32) -> Result<(), Missing> {
    let sel_addr = PerfEvtSel::addr(&CBOX, 0, idx);
    let ctr_addr = PerfCtr::addr(&CBOX, 0, idx);
    // Every `PERFEVTSEL` and `PERFCTR` the unit table places is an uncore register.
    let (Some(sel), Some(ctr)) = (UncoreMsr::new(sel_addr), UncoreMsr::new(ctr_addr)) else {
        return Err(Missing::WriteFaults(sel_addr));
    };
    let old_sel = msr
        .rdmsr(sel_addr)
        .map_err(|_| Missing::ReadFaults(sel_addr))?;
    let old_ctr = msr
        .rdmsr(ctr_addr)
        .map_err(|_| Missing::ReadFaults(ctr_addr))?;
    if PerfEvtSel::from_raw(old_sel).is_set(PerfEvtSel::EN) {
        return Ok(());
    }
    if msr.wrmsr(sel, PROBE_VALUE).is_err() {
        // Nothing was written. Which write does the register refuse: any, or EN only?
        let without_en = PerfEvtSel::from_raw(PROBE_VALUE)
            .with(PerfEvtSel::EN, 0)
            .into_raw();
        if msr.wrmsr(sel, without_en).is_err() {
            return Err(Missing::WriteFaults(sel_addr));
        }
        let _ = msr.wrmsr(sel, old_sel);
        return Err(Missing::EnRefused(sel_addr));
    }
    let kept = msr.rdmsr(sel_addr) == Ok(PROBE_VALUE);
    let _ = msr.wrmsr(sel, old_sel);
    let _ = msr.wrmsr(ctr, old_ctr);
    kept.then_some(()).ok_or(Missing::Drops(sel_addr))
}

/// Why a package has the counters it has (the part of the line after "N counters per CBo: ").
fn describe_found(found: Found, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
    write!(f, "{} counters per CBo: ", found.n)?;
    let Some(why) = found.missing else {
        let (first, last) = (CBOX.nr_generic_listed, CBOX.nr_generic - 1);
        return write!(
            f,
            "MSR_UNC_CBO_0_PERFEVTSEL{first} and PERFEVTSEL{last} take an event with EN set"
        );
    };
    let (addr, what) = match why {
        Missing::ReadFaults(a) => (a, "faults when read"),
        Missing::WriteFaults(a) => (a, "faults when written"),
        Missing::EnRefused(a) => (a, "faults when written with EN set"),
        Missing::Drops(a) => (a, "does not keep an event with EN set"),
    };
    write!(f, "{} ({addr:#x}) {what}", RegName(addr))
}

impl super::Describe for CboCounters {
    fn describe(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let missing = self.missing.map(|(m, _)| m);
        describe_found(Found { n: self.n, missing }, f)?;
        match self.missing {
            Some((_, package)) if self.packages > 1 => write!(f, " on package {package}"),
            _ => Ok(()),
        }
    }
}

/// One package's line, logged when packages differ: "package P: N counters per CBo: ...".
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct PackageLine(pub(crate) u32, pub(crate) Found);

impl super::Describe for PackageLine {
    fn describe(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "package {}: ", self.0)?;
        describe_found(self.1, f)
    }
}

#[cfg(test)]
#[path = "cbo_counters_tests.rs"]
mod tests;
