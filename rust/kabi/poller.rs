// SPDX-License-Identifier: GPL-2.0

//! A timer that works on one package's registers while something there is live: a pinned
//! hard-irq hrtimer on a CPU of that package, which goes home by itself when CPU hotplug moved
//! it to another package (the kernel moves the timers of a dying CPU to any online CPU).
//!
//! Going home takes an IPI (a [`CallSingleData`]: `smp_call_function_single_async`, legal from
//! hard irq) to an online CPU of the package, where the timer is started again.
//!
//! # Invariants
//!
//! - The timer is armed iff `arm.armed` (`live > 0` and not stopped), except that a callback
//!   already running when `live` drops to zero ends itself (whether `track` or the callback's
//!   own [`Ending`] dropped it), and that the timer is off while an IPI takes it home.
//! - A callback waits for no lock but its own CPU's hrtimer base lock, when it starts the timer
//!   again (`hrtimer_cancel()` never holds that lock while it waits): so `track` may cancel it
//!   while its caller holds any lock the callback's work try-locks.
//! - Neither the timer nor the IPI owns a reference to the poller, so neither can drop the
//!   last one (in hard irq, freeing the package and whatever its work owns: an MMIO mapping's
//!   `iounmap` may sleep). The poller's owner keeps it alive; [`Poller::stop`], which its
//!   drop runs too, cancels the timer (waiting for a running callback), forbids re-arming,
//!   then sleeps until `homing` is clear. `homing` is set before an IPI is sent and cleared by
//!   its handler's last access to the poller, a release store (or at once by the callback,
//!   when the send failed): the csd is idle by then (`kernel/smp.c` unlocks an async csd
//!   before its function runs). What the handler runs after the store is its return, in
//!   module text, which outlives it: `free_module` waits for an RCU grace period, and the
//!   handler runs with interrupts off, which that grace period waits for.

use core::{cell::Cell, ffi::c_void, marker::PhantomPinned, ops::Deref};

use kernel::{
    cpu::CpuId,
    prelude::*,
    sync::{
        atomic::{self, ordering, Atomic},
        Arc,
    },
    task::might_sleep,
    time::{
        delay::fsleep,
        hrtimer::{
            HasHrTimer, HrTimer, HrTimerCallback, HrTimerCallbackContext, HrTimerRestart,
            RelativePinnedHardMode,
        },
        Delta, Instant, Monotonic,
    },
};

use super::hrtimer_ext::HasHrTimerExt as _;
use super::{
    raw_spinlock::{new_raw_spinlock_irqsave, RawSpinLockIrqSave},
    smp::{CallSingleData, CallSingleDataCallback, HasCallSingleData},
};
use crate::uncore::timer::{self, Next};

/// Delay of the first run of a timer that came home: a run was missed on the way.
const SOON: Delta = Delta::from_millis(1);

/// Timers taken home by an IPI since load (every poller), for the tests' statistics.
static HOMINGS: Atomic<u64> = Atomic::new(0);
/// IPIs sent to take a timer home since load; minus [`HOMINGS`]: those in flight.
static HOMINGS_SENT: Atomic<u64> = Atomic::new(0);

/// How many times a poller went home after CPU hotplug moved it away.
#[cfg(skl_sim)]
pub(crate) fn homings() -> u64 {
    HOMINGS.load(ordering::Relaxed)
}

/// IPIs taking a timer home that were sent and have not finished.
#[cfg(skl_sim)]
pub(crate) fn homings_in_flight() -> u64 {
    let done = HOMINGS.load(ordering::Acquire);
    HOMINGS_SENT.load(ordering::Acquire).saturating_sub(done)
}

/// Test hook (simulator only): once something was live, a poller's count never drops below
/// one, as if perf had left an event behind: its timer is still armed at unload.
#[cfg(skl_sim)]
static LEAK_LIVE: Atomic<bool> = Atomic::new(false);

/// The simulator's test hooks: the IPI taking a timer home completes late (RCU grace periods
/// pass meanwhile, so only `homing` tells the unload to wait), and [`LEAK_LIVE`]. Dropped
/// after every poller, it waits for a late IPI's work item.
#[cfg(skl_sim)]
pub(crate) struct TestHooks {
    _late: super::late_call::Hold,
}

#[cfg(skl_sim)]
impl TestHooks {
    /// Sets the hooks for the module's lifetime (one at a time: `EBUSY`).
    pub(crate) fn new(ipi_delay_ms: u32, leak_live: bool) -> Result<Self> {
        let late = super::late_call::Hold::new(ipi_delay_ms)?;
        LEAK_LIVE.store(leak_live, ordering::Relaxed);
        Ok(Self { _late: late })
    }
}

/// The work a [`Poller`] does.
pub(crate) trait PackageWork: Send + Sync + 'static {
    /// Whether the calling CPU is one of the package's.
    fn at_home(&self) -> bool;
    /// An online CPU of the package, if any.
    fn home_cpu(&self) -> Option<CpuId>;
    /// One run on a CPU of the package (hard irq): when to run again, or `None` to stop.
    /// Things the run finds over leave the live count through `ending`.
    fn run(&self, ending: &Ending<'_>) -> Option<Next>;
}

/// The callback's way to take things off the live count: things the work ends by itself
/// (a departed event's counter, stopped when the event never came back).
pub(crate) struct Ending<'a> {
    arm: &'a RawSpinLockIrqSave<Arm>,
    live: &'a Atomic<u32>,
    /// The count dropped to zero here: the timer is disarmed, and `track` may start it again
    /// at once, so the callback must not start it.
    disarmed: Cell<bool>,
}

impl Ending<'_> {
    /// Runs `f`, which ends things and says how many, and takes them off the live count; or,
    /// if `track` holds the count (perhaps cancelling this callback), runs nothing and returns
    /// `false`: the work tries again on a later run. The timer stops after this run if the
    /// count drops to zero.
    pub(crate) fn end(&self, f: impl FnOnce() -> u32) -> bool {
        let Some(mut arm) = self.arm.try_lock() else {
            return false;
        };
        let live = arm.live.saturating_sub(f());
        arm.set_live(live);
        self.live.store(arm.live, ordering::Relaxed);
        if arm.live == 0 && arm.armed {
            arm.armed = false;
            self.disarmed.set(true);
        }
        true
    }
}

/// `ns` nanoseconds, as far as a [`Delta`] goes.
fn delta(ns: u64) -> Delta {
    Delta::from_nanos(ns.min(i64::MAX as u64) as i64)
}

/// What `track`, `rehome` and `stop` agree on, under `Poller::arm`.
struct Arm {
    /// Live things.
    live: u32,
    /// The timer should be running: `live > 0` and not stopped.
    armed: bool,
    /// `stop` ran: the timer is never armed again.
    stopped: bool,
}

impl Arm {
    /// Sets the live count (the simulator's [`LEAK_LIVE`] keeps it at one once it was more).
    fn set_live(&mut self, live: u32) {
        #[cfg(skl_sim)]
        let live = if self.live > 0 && live == 0 && LEAK_LIVE.load(ordering::Relaxed) {
            1
        } else {
            live
        };
        self.live = live;
    }
}

/// Runs `T` from a timer while [`Poller::track`]'s count is non-zero.
#[pin_data(PinnedDrop)]
pub(crate) struct Poller<T: PackageWork> {
    #[pin]
    timer: HrTimer<Self>,
    /// The IPI that takes the timer home.
    #[pin]
    csd: CallSingleData<Self>,
    #[pin]
    arm: RawSpinLockIrqSave<Arm>,
    /// `arm.live`, for the callback, which must not take `arm`.
    live: Atomic<u32>,
    /// An IPI taking the timer home is in flight (see the invariants).
    homing: Atomic<i32>,
    /// Runs in a row that found the timer off its package, with nowhere to go (the callback's
    /// alone).
    homeless: Atomic<u32>,
    /// The first run's delay and the period when the work does not say.
    period: Delta,
    work: T,
    #[pin]
    _pin: PhantomPinned,
}

// SAFETY: `HrTimer<Self>` is the `timer` field, at a fixed offset of the pinned `Self`.
unsafe impl<T: PackageWork> HasHrTimer<Self> for Poller<T> {
    type TimerMode = RelativePinnedHardMode<Monotonic>;

    unsafe fn raw_get_timer(this: *const Self) -> *const HrTimer<Self> {
        // SAFETY: `this` points to a valid `Self` (caller's guarantee).
        unsafe { &raw const (*this).timer }
    }

    unsafe fn timer_container_of(ptr: *mut HrTimer<Self>) -> *mut Self {
        // SAFETY: `ptr` is the `timer` field of a `Self` (caller's guarantee).
        unsafe { kernel::container_of!(ptr, Self, timer) }
    }
}

impl<T: PackageWork> Deref for Poller<T> {
    type Target = T;

    fn deref(&self) -> &T {
        &self.work
    }
}

impl<T: PackageWork> Poller<T> {
    /// A stopped poller running `work` every `period` (or as `work` asks).
    pub(crate) fn new(work: T, period: Delta) -> Result<Arc<Self>> {
        Arc::pin_init(
            pin_init!(Self {
                timer <- HrTimer::new(),
                csd <- CallSingleData::new(),
                arm <- new_raw_spinlock_irqsave!(
                    Arm {
                        live: 0,
                        armed: false,
                        stopped: false,
                    },
                    "skl_uncore_poller"
                ),
                live: Atomic::new(0),
                homing: Atomic::new(0),
                homeless: Atomic::new(0),
                period,
                work,
                _pin: PhantomPinned,
            }),
            GFP_KERNEL,
        )
    }

    /// Adds `change` to the live count: the timer is started on this CPU when it becomes
    /// non-zero and cancelled when it drops to zero. With `within` (ns), the next run comes no
    /// later than that from now (a timer already armed for later is started again). A timer
    /// off its package that found no CPU of it online comes here at once. May run with any
    /// lock held that the work only try-locks, interrupts on or off, from a CPU of the
    /// package.
    pub(crate) fn track(&self, change: i64, within: Option<u64>) {
        let mut arm = self.arm.lock();
        let live = i64::from(arm.live)
            .saturating_add(change)
            .clamp(0, i64::from(u32::MAX)) as u32;
        arm.set_live(live);
        self.live.store(arm.live, ordering::Relaxed);
        if arm.live == 0 {
            if arm.armed {
                arm.armed = false;
                // Waits for a running callback, which waits for no lock `track`'s caller holds.
                self.cancel();
            }
        } else if !arm.armed && !arm.stopped {
            arm.armed = true;
            self.start(
                within.map_or(self.period, delta).min(self.period),
                Delta::ZERO,
            );
        } else if arm.armed && (within.is_some() || self.homeless.load(ordering::Relaxed) > 0) {
            // Waits for a running callback, as above, which may have started the timer again
            // (no other starts it while armed).
            self.cancel();
            // Homeless, it backs off up to a period between looks: this is a CPU of its
            // package, where it runs soon.
            let remaining = if self.homeless.xchg(0, ordering::Relaxed) > 0 {
                SOON.as_nanos() as u64
            } else {
                self.remaining_ns()
            };
            self.start(
                delta(within.map_or(remaining, |w| timer::rearm(remaining, w))),
                Delta::ZERO,
            );
        }
    }

    /// The live count.
    pub(crate) fn live(&self) -> u32 {
        self.live.load(ordering::Relaxed)
    }

    /// Stops for good, before the poller is freed: cancels the timer, keeps it from being
    /// armed again and waits for an IPI in flight. `track` still counts. Process context (it
    /// sleeps); the poller's drop runs it too.
    pub(crate) fn stop(&self) {
        might_sleep();
        {
            let mut arm = self.arm.lock();
            arm.stopped = true;
            arm.armed = false;
            self.cancel();
        }
        // The callback has returned and nothing restarts it; an IPI it sent may be in flight.
        #[cfg(skl_sim)]
        if self.homing.load(ordering::Relaxed) != 0 {
            pr_info!("stop: waiting for an IPI in flight\n");
        }
        while self.homing.load(ordering::Acquire) != 0 {
            fsleep(Delta::from_micros(100));
        }
    }

    /// Starts the timer on this CPU to run `after` from now, at the latest `slack` later, or
    /// restarts it there.
    fn start(&self, after: Delta, slack: Delta) {
        // SAFETY: `self` is valid and pinned (`new` builds it in an `Arc`). The timer is
        // cancelled before `self` is freed: `stop`, which the drop runs, forbids `track` and
        // `rehome` to start it again, then cancels it, which waits for a running callback
        // (that may start it again) and then takes it off its queue.
        unsafe { Self::start_range(self, after, slack) };
    }

    /// How long until the timer's expiry, the latest it runs, 0 if it is past.
    fn remaining_ns(&self) -> u64 {
        u64::try_from((self.timer.expires() - Instant::now()).as_nanos()).unwrap_or(0)
    }

    /// Starts the timer on this CPU, replacing any other (the IPI's work). It runs at once:
    /// a run was missed on the way.
    fn rehome(&self) {
        let arm = self.arm.lock();
        if arm.armed {
            self.start(SOON, Delta::ZERO);
        }
    }
}

#[pinned_drop]
impl<T: PackageWork> PinnedDrop for Poller<T> {
    fn drop(self: Pin<&mut Self>) {
        self.stop();
    }
}

impl<T: PackageWork> HrTimerCallback for Poller<T> {
    type Pointer<'a> = Pin<&'a Self>;

    fn run(this: Pin<&Self>, _ctx: HrTimerCallbackContext<'_, Self>) -> HrTimerRestart {
        if this.live.load(ordering::Relaxed) == 0 {
            // The last thing went while we ran; `track` cancelled or is cancelling us.
            return HrTimerRestart::NoRestart;
        }
        if !this.work.at_home() {
            // Moved off a dying CPU into another package: go home, where the MSRs are.
            if this.homing.cmpxchg(0, 1, ordering::Acquire).is_ok() {
                let sent = this.work.home_cpu().is_some_and(|cpu| {
                    HOMINGS_SENT.add(1, ordering::Relaxed);
                    // SAFETY: `csd` is the poller's own; sends are serialised by `homing`,
                    // which was 0, and the poller outlives the IPI: `stop` waits for `homing`,
                    // which the IPI's work clears last.
                    let sent = unsafe { this.csd.call(cpu) }.is_ok();
                    if !sent {
                        HOMINGS_SENT.fetch_sub(1, ordering::Relaxed);
                    }
                    sent
                });
                if sent {
                    return HrTimerRestart::NoRestart;
                }
                this.homing.store(0, ordering::Release);
            }
            // No CPU of the package to go to right now (or one is on its way): try again,
            // less often the longer the package has none.
            let tries = this.homeless.fetch_add(1, ordering::Relaxed);
            this.run_next(timer::homeless(tries));
            return HrTimerRestart::NoRestart;
        }
        this.homeless.store(0, ordering::Relaxed);
        let ending = Ending {
            arm: &this.arm,
            live: &this.live,
            disarmed: Cell::new(false),
        };
        match this.work.run(&ending) {
            // The work ended the last thing.
            _ if ending.disarmed.get() => HrTimerRestart::NoRestart,
            Some(next) => {
                this.run_next(next);
                HrTimerRestart::NoRestart
            }
            None => HrTimerRestart::NoRestart,
        }
    }
}

impl<T: PackageWork> Poller<T> {
    /// From the callback, which then returns `NoRestart`: the timer runs next `next` from now.
    /// Not `hrtimer_forward`: a run inside its slack comes before the expiry, which forward
    /// would leave in place.
    fn run_next(&self, next: Next) {
        self.start(delta(next.after_ns), delta(next.slack_ns));
    }
}

// SAFETY: `csd` is the one `CallSingleData<Self>` field of `Self`, and `container_of!` finds
// the `Self` from it.
unsafe impl<T: PackageWork> HasCallSingleData for Poller<T> {
    unsafe fn csd_container_of(ptr: *const CallSingleData<Self>) -> *const Self {
        // SAFETY: `ptr` is the `csd` field of a `Self` (caller's guarantee).
        unsafe { kernel::container_of!(ptr, Self, csd) }
    }
}

impl<T: PackageWork> CallSingleDataCallback for Poller<T> {
    /// The IPI sent by the timer callback, which set `homing`.
    unsafe fn run(this: *const Self) {
        // SAFETY: `ipi_finish` takes the same poller, valid until `homing` clears, which once
        // this IPI was sent only `ipi_finish` does (the timer callback clears it only when the
        // send failed; any CPU: it starts the timer where it runs); `TestHooks`, which holds
        // the hook, is dropped after every poller, so after `stop` waited for `homing`.
        #[cfg(skl_sim)]
        if unsafe { super::late_call::defer(ipi_finish::<T>, this.cast_mut().cast()) } {
            return;
        }
        // SAFETY: As required of `run`: the poller lives until `homing` clears.
        unsafe { ipi_finish::<T>(this.cast_mut().cast()) };
    }
}

/// The IPI's work: starts the timer here and clears `homing`.
///
/// # Safety
///
/// `info` points to a `Poller<T>` that sent the IPI, alive until `homing` clears; once per
/// IPI.
unsafe extern "C" fn ipi_finish<T: PackageWork>(info: *mut c_void) {
    let this = info.cast::<Poller<T>>().cast_const();
    let homing = {
        // SAFETY: The poller lives until `homing` is clear (`stop` waits for it).
        let this = unsafe { &*this };
        this.rehome();
        HOMINGS.fetch_add(1, ordering::Release);
        this.homing.as_ptr()
    };
    // SAFETY: `homing` points into the poller, still alive, and is aligned (an `Atomic<i32>`
    // field); every other access to it is atomic. This store is what lets `stop` return and
    // the poller be freed: the `Atomic` reference `atomic_store` makes of the pointer ends with
    // its (inlined) call, and nothing here touches the poller after it.
    unsafe { atomic::atomic_store(homing, 0, ordering::Release) };
}
