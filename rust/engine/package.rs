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
    sync::{
        atomic::{ordering, Atomic},
        Arc,
    },
    time::Delta,
};

use super::{log, Hw};
use crate::kabi::{
    perf::{EventRef, ReadEvent},
    platform,
    poller::{Ending, PackageWork, Poller},
    raw_spinlock::{new_raw_spinlock_irqsave, RawSpinLockIrqSave},
};
use crate::uncore::{
    cbo_counters::PackageLine,
    event::Target,
    pmubox::{
        sleep::{after_s2idle, Wake},
        Cx, Fault, Note, PmuBox, Regs,
    },
    probe::PackageProbe,
    regs::MSR_UNC_PERF_GLOBAL_CTRL,
    tally::{Handle, Tallies},
    timer::{self, Found, Next},
    units::Unit,
};

mod regs;
pub(super) use regs::PkgRegs;
use regs::{shared_fault_bit, test_and_set, FIXED_WRITE, GLOBAL_READ, GLOBAL_WRITE};

/// One PMU's box on one package.
#[pin_data]
pub(crate) struct BoxState {
    #[pin]
    inner: RawSpinLockIrqSave<PmuBox<EventRef>>,
    /// What reads reach without the lock.
    tallies: Tallies,
}

impl BoxState {
    pub(super) fn new(unit: &'static Unit, box_idx: u32, nr_generic: u32) -> Result<Arc<Self>> {
        Arc::pin_init(
            pin_init!(Self {
                inner <- new_raw_spinlock_irqsave!(
                    PmuBox::new(unit, box_idx, nr_generic),
                    "skl_uncore_box"
                ),
                tallies: Tallies::new(unit.max_rate),
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
    /// Shared registers found faulting ([`GLOBAL_WRITE`], ...): never tried again.
    faulted: Atomic<u32>,
    /// Faults of the shared registers already logged (bits of [`shared_fault_bit`]): the
    /// boxes of every PMU find them, the log says each once.
    said: Atomic<u32>,
    /// The write probe has run here (1): at load, or, if no CPU of the package was online
    /// then, before its first event ([`PkgState::take_late_probe`]).
    probed: Atomic<i32>,
    boxes: KVec<Arc<BoxState>>,
}

impl Handle for EventRef {
    fn key(self) -> usize {
        EventRef::key(self)
    }
}

/// The [`Cx`] of a box call: folded counts go to perf's events.
pub(super) type BoxCx<'a, 'b> = Cx<'a, PkgRegs<'b>, fn(EventRef, u64)>;

/// Delivers folded counts to perf's events.
fn sink(ev: EventRef, delta: u64) {
    // SAFETY: A `PmuBox` holds an event only between perf's `add` and `del` (its invariant),
    // its folds deliver only to events it holds, and every box call runs under the box's
    // lock, which `del` takes too: the event is alive.
    unsafe { ev.get() }.add_count(delta);
}

/// Creates package `id`'s state and its stopped timer; `probed` if the load's probe reached it.
pub(super) fn new_package(
    id: u32,
    hw: Arc<dyn Hw>,
    boxes: KVec<Arc<BoxState>>,
    probed: bool,
) -> Result<Arc<Package>> {
    let state = PkgState {
        id,
        hw,
        global_en: Atomic::new(0),
        fixed_users: Atomic::new(0),
        faulted: Atomic::new(0),
        said: Atomic::new(0),
        probed: Atomic::new(i32::from(probed)),
        boxes,
    };
    Poller::new(state, Delta::from_nanos(timer::TICK.after_ns as i64))
}

impl PkgState {
    /// The logical package id.
    pub(super) fn id(&self) -> u32 {
        self.id
    }

    /// Logs `n`: a fault once per register (here, and in the box for its own registers), a
    /// change at most once a second.
    pub(super) fn say(&self, n: Note) {
        if !n.is_fault() {
            log::note(self.id, n);
        } else if !shared_fault_bit(n).is_some_and(|b| test_and_set(&self.said, b)) {
            log::fault(self.id, n);
        }
    }

    /// Whether an event on `target` can count in box `slot`: `false` once a register it needs
    /// faulted (then `event_init` refuses it with `EIO`).
    pub(super) fn can_count(&self, slot: usize, target: Target) -> bool {
        let shared = match target {
            Target::FreeRunning(_) => 0,
            Target::Fixed => GLOBAL_WRITE | FIXED_WRITE,
            Target::Generic(_) => GLOBAL_WRITE,
        };
        self.faulted.load(ordering::Relaxed) & shared == 0
            && self.boxes[slot].inner.lock().can_count(target)
    }

    /// Whether a group of events on `targets` fits box `slot`'s counters (none that faulted).
    pub(super) fn group_fits(&self, slot: usize, targets: &[Target]) -> bool {
        self.boxes[slot].inner.lock().group_fits(targets)
    }

    /// Whether the write probe has run on this package (then what it found is in force).
    pub(super) fn probed(&self) -> bool {
        self.probed.load(ordering::Acquire) != 0
    }

    /// What the write probe found here after load, before the package's first event: an
    /// uncore that does not answer takes no MSR event (`EIO`, as a global enable that faulted),
    /// and counters past those its CBos have are never given out (every CBo PMU was made
    /// with the counters the load found on the other packages: `cbo_counters`). Logged.
    pub(super) fn take_late_probe(&self, p: PackageProbe, cbo_counters: u32) {
        if !p.answers {
            test_and_set(&self.faulted, GLOBAL_WRITE);
            pr_info!(
                "package {}: the uncore PMU MSRs do not keep a written value: \
                 its MSR events are refused\n",
                self.id
            );
        }
        if let Some(found) = p.counters {
            pr_info!("{}\n", log::Why(PackageLine(self.id, found)));
            if found.n < cbo_counters {
                for b in self.boxes.iter() {
                    b.inner.lock().lacks_counters_from(found.n);
                }
            }
        }
        self.probed.store(1, ordering::Release);
    }

    /// After a sleep that reset the package while none of its CPUs was online: nothing of it
    /// is live, and the global enable it had is gone.
    pub(super) fn forget_registers(&self) {
        PkgRegs(self).global_lost();
    }

    /// Clears our record of the global enable; whether it was set.
    pub(super) fn take_global_enable(&self) -> bool {
        self.global_en.xchg(0, ordering::Relaxed) != 0
    }
}

/// Package operations that also drive its timer.
pub(super) trait PackageExt {
    /// Runs `f` on box `slot` under its lock, from a CPU of this package, then keeps the
    /// timer in step with the live events and logs what `f` found.
    fn with_box<R>(
        &self,
        slot: usize,
        f: impl FnOnce(&mut PmuBox<EventRef>, &mut BoxCx<'_, '_>) -> (R, Option<Note>),
    ) -> R;
    /// A read(2), from any context and any CPU of the package, without the box's lock: one
    /// counter access.
    fn read(&self, slot: usize, ev: &ReadEvent);
    /// Before sleep, on a CPU of the package: every box's counting periods end, folded.
    fn suspend(&self);
    /// Before S3, for a package no CPU of which is online: drops its departed records
    /// without a register access. The live events left (none, unless perf left one).
    fn suspend_unreachable(&self) -> u32;
    /// After S3 (boot CPU, interrupts off): the registers are at power-on values; program
    /// every live event again.
    fn resume(&self);
    /// After suspend-to-idle, on a CPU of the package: the registers may be kept or reset;
    /// every live event is checked, and counts on.
    fn wake_s2idle(&self);
    /// At unload, on a CPU of the package: stops what departed events left counting.
    fn drop_departed(&self);
}

impl PackageExt for Arc<Package> {
    fn with_box<R>(
        &self,
        slot: usize,
        f: impl FnOnce(&mut PmuBox<EventRef>, &mut BoxCx<'_, '_>) -> (R, Option<Note>),
    ) -> R {
        let state = &self.boxes[slot];
        let mut b = state.inner.lock();
        let before = b.live();
        let due_before = b.departed_due();
        let mut out: fn(EventRef, u64) = sink;
        let mut regs = PkgRegs(self);
        let mut cx = Cx {
            tallies: &state.tallies,
            regs: &mut regs,
            out: &mut out,
        };
        let (r, note) = f(&mut b, &mut cx);
        let after = b.live();
        let delta = i64::from(after.msr + after.imc) - i64::from(before.msr + before.imc);
        let due_after = b.departed_due();
        let within = timer::within(before, after, due_before, due_after, platform::boot_ns());
        if delta != 0 || within.is_some() {
            self.track(delta, within);
        }
        drop(b);
        if let Some(n) = note {
            self.say(n);
        }
        r
    }

    fn read(&self, slot: usize, ev: &ReadEvent) {
        if let Some(d) = self.boxes[slot]
            .tallies
            .read(ev.handle(), &mut PkgRegs(self))
        {
            ev.add_count(d);
        }
    }

    fn suspend(&self) {
        for slot in 0..self.boxes.len() {
            self.with_box(slot, |b, cx| ((), b.suspend(cx)));
        }
    }

    fn drop_departed(&self) {
        for slot in 0..self.boxes.len() {
            self.with_box(slot, |b, cx| {
                b.drop_all_departed(cx);
                ((), None)
            });
        }
    }

    fn suspend_unreachable(&self) -> u32 {
        (0..self.boxes.len())
            .map(|slot| self.with_box(slot, |b, cx| (b.suspend_unreachable(cx), None)))
            .sum()
    }

    fn resume(&self) {
        // Each box programs its live events again, the fixed counter's enable included.
        PkgRegs(self).global_lost();
        for slot in 0..self.boxes.len() {
            self.with_box(slot, |b, cx| ((), b.resume(cx, Wake::Lost)));
        }
    }

    fn wake_s2idle(&self) {
        let msr_live = self.boxes.iter().any(|b| b.inner.lock().live().msr > 0);
        let fixed_live = self.fixed_users.load(ordering::Relaxed) > 0;
        let wake = after_s2idle(&mut PkgRegs(self), msr_live, fixed_live);
        for slot in 0..self.boxes.len() {
            self.with_box(slot, |b, cx| ((), b.resume(cx, wake)));
        }
    }
}

/// Timer runs since load, for the simulator's statistics (wakeups per second).
static TICKS: Atomic<u64> = Atomic::new(0);

/// Until when (ns) the simulator holds every package timer off: a late poll, on demand.
#[cfg(skl_sim)]
static HELD_UNTIL: Atomic<u64> = Atomic::new(0);

/// Whether the first timer run after the hold wakes the system from suspend-to-idle.
#[cfg(skl_sim)]
static WAKE_AFTER: Atomic<bool> = Atomic::new(false);

/// The simulator's `fault late MS` (and `idle MS`, with `wake`): package timers do nothing for
/// `ms` milliseconds (then wake the system).
#[cfg(skl_sim)]
pub(crate) fn hold_timers(ms: u64, wake: bool) {
    let until = platform::boot_ns().saturating_add(ms.saturating_mul(1_000_000));
    WAKE_AFTER.store(wake, ordering::Relaxed);
    HELD_UNTIL.store(until, ordering::Relaxed);
}

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

    /// Every [`timer::TICK`] while events are live (every [`timer::IMC_TICK`] while IMC
    /// events are): checks the shared controls and every live event's control register, polls
    /// the counters whose wrap is near and stops those departed events left counting for a
    /// move that is overdue.
    fn run(&self, ending: &Ending<'_>) -> Option<Next> {
        TICKS.add(1, ordering::Relaxed);
        let now = platform::boot_ns();
        #[cfg(skl_sim)]
        {
            let held = HELD_UNTIL.load(ordering::Relaxed).saturating_sub(now);
            if held > 0 {
                return Some(Next::at(held));
            }
            if WAKE_AFTER.xchg(false, ordering::Relaxed) {
                platform::system_wakeup();
            }
        }
        let mut regs = PkgRegs(self);
        let mut out: fn(EventRef, u64) = sink;
        let mut note = None;
        let mut found = Found::default();
        let mut any_msr = false;
        for b in self.boxes.iter() {
            let Some(mut inner) = b.inner.try_lock() else {
                // Busy (perhaps cancelling us): this box again shortly.
                found.busy = true;
                continue;
            };
            let mut cx = Cx {
                tallies: &b.tallies,
                regs: &mut regs,
                out: &mut out,
            };
            if inner.any_departed() {
                let ended = ending.end(|| inner.expire_departed(&mut cx, false));
                // Not now (the count is being changed): soon.
                found.busy |= !ended;
            }
            if let Some(due) = inner.departed_due() {
                found.departed_due = Some(found.departed_due.map_or(due, |d| d.min(due)));
            }
            let live = inner.live();
            // Asleep (suspend-to-idle, before the wake's hook): the wake judges the sleep by
            // the registers as they are, the global enable included.
            if live.msr > 0 && !inner.asleep() {
                any_msr = true;
                note = note.or(inner.check(&mut cx));
            }
            found.any_imc |= live.imc > 0;
            if inner.poll_due(now) {
                note = note.or(inner.poll(&mut cx));
            }
        }
        if any_msr {
            match regs.global_enable(true) {
                Ok(true) => note = note.or(Some(Note::Changed(MSR_UNC_PERF_GLOBAL_CTRL))),
                // Cleared by someone else, and refused to us since: said once.
                Err(Fault(a)) => self.say(Note::Faulted(a)),
                Ok(false) => {}
            }
        }
        if self.faulted.load(ordering::Relaxed) & GLOBAL_READ != 0 {
            self.say(Note::Unwatched(MSR_UNC_PERF_GLOBAL_CTRL));
        }
        if let Some(n) = note {
            self.say(n);
        }
        Some(timer::after_run(now, found))
    }
}
