// SPDX-License-Identifier: GPL-2.0

//! A timer that works on one package's registers while something there is live: a pinned
//! hard-irq hrtimer on a CPU of that package, which goes home by itself when CPU hotplug moved
//! it to another package (the kernel moves the timers of a dying CPU to any online CPU).
//!
//! Going home takes an IPI (`smp_call_function_single_async`, legal from hard irq) to an online
//! CPU of the package, where the timer is started again.
//!
//! # Invariants
//!
//! - The timer is armed iff `live > 0`, except that a callback already running when `live`
//!   drops to zero ends itself, and that the timer is off while an IPI takes it home.
//! - A callback never waits for a lock: so `track` may cancel it while its caller holds any
//!   lock the callback's work try-locks.

use core::{ffi::c_void, marker::PhantomPinned, ops::Deref};

use kernel::{
    bindings,
    cpu::CpuId,
    prelude::*,
    static_lock_class,
    sync::{
        atomic::{ordering, Atomic},
        Arc, ArcBorrow,
    },
    time::{
        hrtimer::{
            ArcHrTimerHandle, HasHrTimer, HrTimer, HrTimerCallback, HrTimerCallbackContext,
            HrTimerPointer, HrTimerRestart, RelativePinnedHardMode,
        },
        Delta, Monotonic,
    },
    types::Opaque,
};

use super::{lock::RawSpinLock, perf_sys as sys};

/// Delay of a run that was missed, or of another try to go home.
const SOON: Delta = Delta::from_millis(1);

/// Timers taken home by an IPI since load (every poller), for the tests' statistics.
static HOMINGS: Atomic<u64> = Atomic::new(0);

/// How many times a poller went home after CPU hotplug moved it away.
#[cfg(skl_sim)]
pub(crate) fn homings() -> u64 {
    HOMINGS.load(ordering::Relaxed)
}

/// The work a [`Poller`] does.
pub(crate) trait PackageWork: Send + Sync + 'static {
    /// Whether the calling CPU is one of the package's.
    fn at_home(&self) -> bool;
    /// An online CPU of the package, if any.
    fn home_cpu(&self) -> Option<CpuId>;
    /// One run on a CPU of the package (hard irq): when to run again, or `None` to stop.
    fn run(&self) -> Option<Delta>;
}

/// Runs `T` from a timer while [`Poller::track`]'s count is non-zero.
#[pin_data]
pub(crate) struct Poller<T: PackageWork> {
    #[pin]
    timer: HrTimer<Self>,
    #[pin]
    csd: Opaque<bindings::__call_single_data>,
    /// Live things, and the armed timer (cancelled when dropped).
    #[pin]
    arm: RawSpinLock<(u32, Option<ArcHrTimerHandle<Self>>)>,
    /// `arm.0`, for the callback, which must not take `arm`.
    live: Atomic<u32>,
    /// An IPI taking the timer home is in flight (it holds an `Arc` of its own).
    homing: Atomic<i32>,
    /// The first run's delay and the period when the work does not say.
    period: Delta,
    work: T,
    #[pin]
    _pin: PhantomPinned,
}

// SAFETY: The `csd` is only touched by `new` (before sharing) and by the IPI machinery, under
// `homing`; everything else is `Send + Sync` (`T` is).
unsafe impl<T: PackageWork> Send for Poller<T> {}
// SAFETY: As above.
unsafe impl<T: PackageWork> Sync for Poller<T> {}

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
                // SAFETY: `slot` is valid for writes and pinned with `Self`; the callback gets
                // the slot's address, from which it finds `Self`.
                csd <- Opaque::ffi_init(|slot: *mut bindings::__call_single_data| unsafe {
                    sys::skl_glue_csd_init(slot.cast(), Some(ipi_cb::<T>), slot.cast())
                }),
                arm <- RawSpinLock::new((0, None), c"skl_uncore_poller", static_lock_class!()),
                live: Atomic::new(0),
                homing: Atomic::new(0),
                period,
                work,
                _pin: PhantomPinned,
            }),
            GFP_KERNEL,
        )
    }

    /// Adds `delta` to the live count: the timer is started on this CPU when it becomes
    /// non-zero and cancelled when it drops to zero. May run with any lock held that the
    /// work only try-locks, interrupts on or off, from a CPU of the package.
    pub(crate) fn track(self: &Arc<Self>, delta: i64) {
        let mut arm = self.arm.lock();
        arm.0 = (i64::from(arm.0) + delta).max(0) as u32;
        self.live.store(arm.0, ordering::Relaxed);
        if arm.0 == 0 {
            // Cancels, waiting for a running callback, which waits for nothing.
            arm.1 = None;
        } else if arm.1.is_none() {
            arm.1 = Some(self.clone().start(self.period));
        }
    }

    /// Starts the timer on this CPU, replacing any other (the IPI's work). It runs at once:
    /// a run was missed on the way.
    fn rehome(self: &Arc<Self>) {
        let mut arm = self.arm.lock();
        arm.1 = None;
        if arm.0 > 0 {
            arm.1 = Some(self.clone().start(SOON));
        }
    }
}

impl<T: PackageWork> HrTimerCallback for Poller<T> {
    type Pointer<'a> = Arc<Self>;

    fn run(this: ArcBorrow<'_, Self>, mut ctx: HrTimerCallbackContext<'_, Self>) -> HrTimerRestart {
        if this.live.load(ordering::Relaxed) == 0 {
            // The last thing went while we ran; `track` cancelled or is cancelling us.
            return HrTimerRestart::NoRestart;
        }
        if !this.work.at_home() {
            // Moved off a dying CPU into another package: go home, where the MSRs are.
            if this.homing.cmpxchg(0, 1, ordering::Acquire).is_ok() {
                let arc: Arc<Self> = this.into();
                let sent = this.work.home_cpu().is_some_and(|cpu| {
                    // The IPI owns one reference until its handler gives it back.
                    let raw = Arc::into_raw(arc.clone());
                    // SAFETY: `csd` was initialised in `new` and is not in flight (`homing`
                    // was 0); `raw` keeps `Self` alive until the handler runs.
                    let ret =
                        unsafe { sys::skl_glue_csd_send(cpu.as_u32(), this.csd.get().cast()) };
                    if ret != 0 {
                        // SAFETY: Not sent: the reference is ours again.
                        drop(unsafe { Arc::from_raw(raw) });
                    }
                    ret == 0
                });
                if sent {
                    return HrTimerRestart::NoRestart;
                }
                this.homing.store(0, ordering::Release);
            }
            // No CPU of the package to go to right now (or one is on its way): try again.
            ctx.forward_now(SOON);
            return HrTimerRestart::Restart;
        }
        match this.work.run() {
            Some(next) => {
                ctx.forward_now(next);
                HrTimerRestart::Restart
            }
            None => HrTimerRestart::NoRestart,
        }
    }
}

/// # Safety
///
/// Called by the IPI machinery with the `csd` of a live `Poller<T>`, sent by its timer
/// callback, which leaked one `Arc` reference for it.
unsafe extern "C" fn ipi_cb<T: PackageWork>(info: *mut c_void) {
    let csd = info.cast::<Opaque<bindings::__call_single_data>>();
    // SAFETY: `info` is the `csd` field of a `Poller<T>` (see `new`).
    let this = unsafe { kernel::container_of!(csd, Poller<T>, csd) }.cast_const();
    // SAFETY: The sender leaked a reference for us (see `run`): take it back.
    let this = unsafe { Arc::from_raw(this) };
    this.rehome();
    HOMINGS.add(1, ordering::Relaxed);
    this.homing.store(0, ordering::Release);
}
