// SPDX-License-Identifier: GPL-2.0

//! The registers a package's boxes share, as [`Regs`] sees them: the global enable and the
//! fixed counter's enable (a use count: the last user out disables it), with what faulted
//! remembered so that a faulting write is never tried again.

use kernel::sync::atomic::{ordering, Atomic};

use super::PkgState;
use crate::kabi::platform;
use crate::uncore::{
    pmubox::{Fault, Note, Regs},
    regs::{
        FixedCtrl, GlobalCtrl, MSR_UNC_PERF_FIXED_CTR, MSR_UNC_PERF_FIXED_CTRL,
        MSR_UNC_PERF_GLOBAL_CTRL,
    },
};

/// [`Regs`] over a package's hardware, from a CPU of that package.
pub(in crate::engine) struct PkgRegs<'a>(pub(super) &'a PkgState);

impl Regs for PkgRegs<'_> {
    fn rdmsr(&mut self, msr: u32) -> Option<u64> {
        self.0.hw.rdmsr(msr).ok()
    }

    fn wrmsr(&mut self, msr: u32, val: u64) -> Result<(), Fault> {
        self.0.hw.wrmsr(msr, val).map_err(|_| Fault(msr))
    }

    fn imc_read(&mut self, offset: u32) -> Option<u32> {
        self.0.hw.imc_read(offset).ok()
    }

    fn now_ns(&mut self) -> u64 {
        platform::boot_ns()
    }

    fn global_enable(&mut self, check: bool) -> Result<bool, Fault> {
        let p = self.0;
        if p.faulted.load(ordering::Relaxed) & GLOBAL_WRITE != 0 {
            return Err(Fault(MSR_UNC_PERF_GLOBAL_CTRL));
        }
        let en = GlobalCtrl::DRIVER_VALUE.into_raw();
        let cleared = if check {
            match p.hw.rdmsr(MSR_UNC_PERF_GLOBAL_CTRL) {
                Ok(v) => v & en != en,
                // Tells nothing: not written on a guess, and said once (by the timer).
                Err(_) => {
                    test_and_set(&p.faulted, GLOBAL_READ);
                    false
                }
            }
        } else {
            p.global_en.load(ordering::Relaxed) == 0
        };
        if cleared && p.hw.wrmsr(MSR_UNC_PERF_GLOBAL_CTRL, en).is_err() {
            test_and_set(&p.faulted, GLOBAL_WRITE);
            return Err(Fault(MSR_UNC_PERF_GLOBAL_CTRL));
        }
        // Set before by us, and found clear: someone else cleared it.
        Ok(p.global_en.xchg(1, ordering::Relaxed) != 0 && cleared && check)
    }

    fn global_lost(&mut self) {
        self.0.global_en.store(0, ordering::Relaxed);
    }

    fn fixed_get(&mut self) -> Result<(), Fault> {
        let p = self.0;
        if p.faulted.load(ordering::Relaxed) & FIXED_WRITE != 0 {
            return Err(Fault(MSR_UNC_PERF_FIXED_CTRL));
        }
        if p.fixed_users.fetch_add(1, ordering::Full) == 0
            && self.wrmsr(MSR_UNC_PERF_FIXED_CTRL, fixed_on()).is_err()
        {
            test_and_set(&p.faulted, FIXED_WRITE);
            p.fixed_users.fetch_sub(1, ordering::Full);
            return Err(Fault(MSR_UNC_PERF_FIXED_CTRL));
        }
        Ok(())
    }

    fn fixed_put(&mut self) {
        if self.0.fixed_users.fetch_sub(1, ordering::Full) == 1 {
            let _ = self.wrmsr(MSR_UNC_PERF_FIXED_CTRL, 0);
            // A user that arrived meanwhile (another PMU) may have enabled it before our
            // write: make its enable stick.
            if self.0.fixed_users.load(ordering::Acquire) > 0 {
                let _ = self.wrmsr(MSR_UNC_PERF_FIXED_CTRL, fixed_on());
            }
        }
    }

    fn fixed_lost(&mut self) {
        self.0.fixed_users.fetch_sub(1, ordering::Full);
    }
}

/// [`PkgState::faulted`]: the global enable's write faulted.
pub(super) const GLOBAL_WRITE: u32 = 1 << 0;
/// [`PkgState::faulted`]: the global enable's read faulted (the watchdog cannot see it).
pub(super) const GLOBAL_READ: u32 = 1 << 1;
/// [`PkgState::faulted`]: the fixed counter's enable faulted.
pub(super) const FIXED_WRITE: u32 = 1 << 2;

/// Sets `bit` in `a`; whether it was set already.
pub(super) fn test_and_set(a: &Atomic<u32>, bit: u32) -> bool {
    let mut old = a.load(ordering::Relaxed);
    while old & bit == 0 {
        match a.cmpxchg(old, old | bit, ordering::Relaxed) {
            Ok(_) => return false,
            Err(v) => old = v,
        }
    }
    true
}

/// A fault of a register the boxes share, as a bit of [`PkgState::said`]; `None` for a box's
/// own registers (each box reports those once).
pub(super) fn shared_fault_bit(n: Note) -> Option<u32> {
    let reg = match n.addr() {
        MSR_UNC_PERF_GLOBAL_CTRL => 0,
        MSR_UNC_PERF_FIXED_CTRL => 1,
        MSR_UNC_PERF_FIXED_CTR => 2,
        _ => return None,
    };
    let kind = match n {
        Note::Changed(_) => return None,
        Note::Faulted(_) => 0,
        Note::Unreadable(_) => 1,
        Note::Unwatched(_) => 2,
    };
    Some(1 << (kind * 3 + reg))
}

fn fixed_on() -> u64 {
    FixedCtrl::DRIVER_VALUE.into_raw()
}
