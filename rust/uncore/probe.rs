// SPDX-License-Identifier: GPL-2.0

//! The load-time write probe of one package: does the uncore answer, and how many counters
//! does a CBo have.
//!
//! The caller runs [`probe_package`] in one call on one CPU of the package, with interrupts
//! off (`platform::on_package_cpu` in the kernel layer: a CPU that went offline refuses the
//! call before it starts, and the next CPU of the package takes it). Every write and the
//! read-back that judges it land on the same package's registers, nothing on that CPU runs in
//! between, and every value read is put back before the call returns: a CPU going offline can
//! neither split the probe nor be taken for a missing register, and another tool's value is
//! left where it was. A package with no CPU online at load is probed at its first event.

use super::cbo_counters::{probe_counters, CboCounters, Found, ProbeMsr};
use super::regs::{PerfEvtSel, UncoreMsr};
use super::units::ARB;

/// What one package answered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct PackageProbe {
    /// The uncore PMU's MSRs behave as registers ([`uncore_answers`]).
    pub(crate) answers: bool,
    /// Counters per CBo, if asked (there is a CBo PMU) and the uncore answers.
    pub(crate) counters: Option<Found>,
}

/// Probes the package `msr` reaches: whether its uncore answers, then, if `cbo` and it does,
/// its counters per CBo.
pub(crate) fn probe_package(msr: &mut impl ProbeMsr, cbo: bool) -> PackageProbe {
    let answers = uncore_answers(msr);
    PackageProbe {
        answers,
        counters: (answers && cbo).then(|| probe_counters(msr)),
    }
}

/// What the write probe found on every package.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct WriteProbe {
    /// At least one package was probed, and the uncore of every package probed answers.
    pub(crate) answers: bool,
    /// Counters per CBo: the fewest of the packages probed.
    pub(crate) counters: CboCounters,
    /// Bit P: package P was probed (an online CPU took the call).
    probed: u64,
}

impl WriteProbe {
    /// Whether package `pkg` was probed. One with no CPU online then is probed at its first
    /// event (the engine's `probe_late`); packages past 63, which no client part has, are
    /// taken for probed.
    pub(crate) fn probed(&self, pkg: u32) -> bool {
        pkg >= u64::BITS || self.probed & (1 << pkg) != 0
    }
}

/// Probes packages `0..packages`: `on_package(pkg)` runs [`probe_package`] on a CPU of `pkg`,
/// or gives `None` if none of its CPUs is online (then it is probed when its first event
/// comes: [`WriteProbe::probed`]).
pub(crate) fn probe_all(
    packages: u32,
    mut on_package: impl FnMut(u32) -> Option<PackageProbe>,
) -> WriteProbe {
    let mut all = WriteProbe {
        answers: false,
        counters: CboCounters::new(),
        probed: 0,
    };
    let mut answered = true;
    for pkg in 0..packages {
        let Some(p) = on_package(pkg) else {
            continue;
        };
        all.answers = true;
        all.probed |= 1u64.checked_shl(pkg).unwrap_or(0);
        answered &= p.answers;
        if let Some(found) = p.counters {
            all.counters.add(pkg, found);
        }
    }
    all.answers &= answered;
    all
}

/// Whether the uncore PMU is there: emulators that read unknown MSRs as 0 also drop writes to
/// them (QEMU's TCG does), so a zero `MSR_UNC_CBO_CONFIG` proves nothing. ARB `PERFEVTSEL0`
/// must keep a value written to it (`EN` clear: nothing counts), and gets the value read back.
/// A non-zero value there means another tool is using it: the register is real, and it is
/// left alone.
pub(crate) fn uncore_answers(msr: &mut impl ProbeMsr) -> bool {
    let addr = PerfEvtSel::addr(&ARB, 0, 0);
    let Some(sel) = UncoreMsr::new(addr) else {
        return false;
    };
    match msr.rdmsr(addr) {
        Err(_) => false,
        Ok(v) if v != 0 => true,
        Ok(old) => {
            // UNC_ARB_TRK_REQUESTS.ALL, not enabled.
            let probe = PerfEvtSel::zeroed()
                .with(PerfEvtSel::EVT_SEL, 0x81)
                .with(PerfEvtSel::UMASK, 0x01)
                .into_raw();
            if msr.wrmsr(sel, probe).is_err() {
                return false;
            }
            let kept = msr.rdmsr(addr) == Ok(probe);
            let _ = msr.wrmsr(sel, old);
            kept
        }
    }
}
