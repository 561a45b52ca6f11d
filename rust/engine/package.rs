// SPDX-License-Identifier: GPL-2.0

//! One package: the boxes of every PMU on it, the registers they share
//! (`MSR_UNC_PERF_GLOBAL_CTRL`, the fixed counter) and the package's timer.
//!
//! # Invariants
//!
//! - The poller's live count is the sum of the boxes' live events, so the timer runs while
//!   any event of the package counts (see [`Poller`]).
//! - Lock order: a box's lock, then the poller's. The timer's work only try-locks boxes, so
//!   cancelling it under a box lock cannot deadlock.

use kernel::{
    cpu::CpuId,
    prelude::*,
    static_lock_class,
    sync::{
        atomic::{ordering, Atomic},
        Arc,
    },
    time::Delta,
};

use super::{log, Hw};
use crate::kabi::{
    lock::RawSpinLock,
    perf::EventRef,
    platform,
    poller::{PackageWork, Poller},
};
use crate::uncore::{
    pmubox::{Changed, PmuBox, Regs},
    regs::{FixedCtrl, GlobalCtrl, MSR_UNC_PERF_FIXED_CTRL, MSR_UNC_PERF_GLOBAL_CTRL},
    units::Unit,
};

/// The watchdog's period: registers changed behind our back are found within it.
const TICK: Delta = Delta::from_millis(1000);
/// Retry delay of a tick that found a box busy.
const RETRY: Delta = Delta::from_micros(200);

/// One PMU's box on one package.
#[pin_data]
pub(crate) struct BoxState {
    #[pin]
    inner: RawSpinLock<PmuBox<EventRef>>,
    /// Ticks between wrap polls: the unit's poll interval, in whole ticks.
    poll_ticks: u64,
}

impl BoxState {
    pub(super) fn new(unit: &'static Unit, box_idx: u32) -> Result<Arc<Self>> {
        Arc::pin_init(
            pin_init!(Self {
                inner <- RawSpinLock::new(
                    PmuBox::new(unit, box_idx),
                    c"skl_uncore_box",
                    static_lock_class!()
                ),
                poll_ticks: (unit.poll_ms / 1000).max(1),
            }),
            GFP_KERNEL,
        )
    }
}

/// A package, with the timer that polls it.
pub(crate) type Package = Poller<PkgState>;

/// One package's state.
pub(crate) struct PkgState {
    id: u32,
    hw: Arc<dyn Hw>,
    /// `MSR_UNC_PERF_GLOBAL_CTRL.EN` written since load (or since the last resume).
    global_en: Atomic<i32>,
    /// Live events on the fixed counter (uncore_clock and uncore_cbox_0 clockticks).
    fixed_users: Atomic<i32>,
    boxes: KVec<Arc<BoxState>>,
    /// Completed timer runs.
    ticks: Atomic<u64>,
}

/// [`Regs`] over a package's hardware, from a CPU of that package.
pub(super) struct PkgRegs<'a>(&'a PkgState);

impl Regs for PkgRegs<'_> {
    fn rdmsr(&mut self, msr: u32) -> Option<u64> {
        self.0.hw.rdmsr(msr).ok()
    }

    fn wrmsr(&mut self, msr: u32, val: u64) {
        let _ = self.0.hw.wrmsr(msr, val);
    }

    fn imc_read(&mut self, offset: u32) -> Option<u32> {
        self.0.hw.imc_read(offset).ok()
    }

    fn global_enable(&mut self, check: bool) -> bool {
        let p = self.0;
        let en = GlobalCtrl::DRIVER_VALUE.into_raw();
        let cleared = if check {
            !matches!(p.hw.rdmsr(MSR_UNC_PERF_GLOBAL_CTRL), Ok(v) if v & en == en)
        } else {
            p.global_en.load(ordering::Relaxed) == 0
        };
        if cleared {
            let _ = p.hw.wrmsr(MSR_UNC_PERF_GLOBAL_CTRL, en);
        }
        // Set before by us, and found clear: someone else cleared it.
        p.global_en.xchg(1, ordering::Relaxed) != 0 && cleared && check
    }

    fn fixed_get(&mut self) {
        if self.0.fixed_users.fetch_add(1, ordering::Full) == 0 {
            self.wrmsr(MSR_UNC_PERF_FIXED_CTRL, fixed_on());
        }
    }

    fn fixed_put(&mut self) {
        if self.0.fixed_users.fetch_sub(1, ordering::Full) == 1 {
            self.wrmsr(MSR_UNC_PERF_FIXED_CTRL, 0);
            // A user that arrived meanwhile (another PMU) may have enabled it before our
            // write: make its enable stick.
            if self.0.fixed_users.load(ordering::Acquire) > 0 {
                self.wrmsr(MSR_UNC_PERF_FIXED_CTRL, fixed_on());
            }
        }
    }
}

fn fixed_on() -> u64 {
    FixedCtrl::DRIVER_VALUE.into_raw()
}

/// Where a box delivers folded counts.
pub(super) type Sink = fn(EventRef, u64);

/// Delivers folded counts to perf's events.
fn sink(ev: EventRef, delta: u64) {
    // SAFETY: A `PmuBox` holds an event only between perf's `add` and `del` (its invariant),
    // and every box call runs under the box's lock, which `del` takes too: the event is alive.
    unsafe { ev.get() }.add_count(delta);
}

/// Creates package `id`'s state and its stopped timer.
pub(super) fn new_package(
    id: u32,
    hw: Arc<dyn Hw>,
    boxes: KVec<Arc<BoxState>>,
) -> Result<Arc<Package>> {
    let state = PkgState {
        id,
        hw,
        global_en: Atomic::new(0),
        fixed_users: Atomic::new(0),
        boxes,
        ticks: Atomic::new(0),
    };
    Poller::new(state, TICK)
}

impl PkgState {
    /// The logical package id.
    pub(super) fn id(&self) -> u32 {
        self.id
    }

    /// Clears our record of the global enable; whether it was set.
    pub(super) fn take_global_enable(&self) -> bool {
        self.global_en.xchg(0, ordering::Relaxed) != 0
    }
}

/// Package operations that also drive its timer.
pub(super) trait PackageExt {
    /// Runs `f` on box `slot` under its lock, from a CPU of this package, then keeps the
    /// timer in step with the live events and logs a register found changed.
    fn with_box<R>(
        &self,
        slot: usize,
        f: impl FnOnce(&mut PmuBox<EventRef>, &mut PkgRegs<'_>, &mut Sink) -> (R, Option<Changed>),
    ) -> R;
    /// Before sleep (boot CPU, interrupts off): fold every box's counts.
    fn suspend(&self);
    /// After sleep: the registers are at power-on values; program every live event again.
    fn resume(&self);
}

impl PackageExt for Arc<Package> {
    fn with_box<R>(
        &self,
        slot: usize,
        f: impl FnOnce(&mut PmuBox<EventRef>, &mut PkgRegs<'_>, &mut Sink) -> (R, Option<Changed>),
    ) -> R {
        let mut b = self.boxes[slot].inner.lock();
        let before = b.live();
        let (r, changed) = f(&mut b, &mut PkgRegs(self), &mut (sink as Sink));
        let after = b.live();
        let delta = i64::from(after.msr + after.imc) - i64::from(before.msr + before.imc);
        if delta != 0 {
            self.track(delta);
        }
        drop(b);
        if let Some(c) = changed {
            log::changed(self.id, c);
        }
        r
    }

    fn suspend(&self) {
        for slot in 0..self.boxes.len() {
            self.with_box(slot, |b, r, out| ((), b.suspend(r, out)));
        }
    }

    fn resume(&self) {
        // Each box programs its live events again, the fixed counter's enable included.
        self.global_en.store(0, ordering::Relaxed);
        for slot in 0..self.boxes.len() {
            self.with_box(slot, |b, r, _| {
                b.resume(r);
                ((), None)
            });
        }
    }
}

/// Timer runs since load, for the simulator's statistics (wakeups per second).
static TICKS: Atomic<u64> = Atomic::new(0);

/// Package timer runs since the module loaded.
#[cfg(skl_sim)]
pub(crate) fn timer_runs() -> u64 {
    TICKS.load(ordering::Relaxed)
}

impl PackageWork for PkgState {
    fn at_home(&self) -> bool {
        platform::current_package() == self.id
    }

    fn home_cpu(&self) -> Option<CpuId> {
        platform::online_cpu_in_package(self.id)
    }

    /// Once a second while events are live: checks the shared controls and every live
    /// event's control register, and polls the counters whose wrap time is near.
    fn run(&self) -> Option<Delta> {
        TICKS.add(1, ordering::Relaxed);
        let tick = self.ticks.load(ordering::Relaxed) + 1;
        let mut regs = PkgRegs(self);
        let mut out: Sink = sink;
        let mut changed = None;
        let mut any_msr = false;
        let mut busy = false;
        for b in self.boxes.iter() {
            let Some(mut inner) = b.inner.try_lock() else {
                // Busy (perhaps cancelling us): this box again shortly.
                busy = true;
                continue;
            };
            if inner.live().msr > 0 {
                any_msr = true;
                changed = changed.or(inner.check(&mut regs, &mut out));
            }
            if tick % b.poll_ticks == 0 {
                changed = changed.or(inner.poll(&mut regs, &mut out));
            }
        }
        if any_msr && regs.global_enable(true) {
            changed = changed.or(Some(Changed(MSR_UNC_PERF_GLOBAL_CTRL)));
        }
        if let Some(c) = changed {
            log::changed(self.id, c);
        }
        if busy {
            return Some(RETRY);
        }
        self.ticks.store(tick, ordering::Relaxed);
        Some(TICK)
    }
}
