// SPDX-License-Identifier: GPL-2.0

//! A safe face for the parts of perf's PMU API the driver uses.
//!
//! [`PmuRegistration`] owns a `struct pmu` of a given [`Scope`] and routes perf's callbacks to a
//! [`PmuOps`] implementation. Each callback gets the event as a type that offers only what is
//! sound in that callback's context ([`InitEvent`], [`Event`], [`ReadEvent`]): the
//! concurrency rules of perf's core are written on [`PmuOps`] and enforced by those types. All
//! raw pointer work for perf lives here; nothing in it is specific to the uncore.
//!
//! A driver implements [`PmuOps`] and registers it. This PMU counts what is added to a total;
//! a [`KernelCounter`] opened on it counts what was added while it was open. It is a reduced
//! `samples/rust/rust_perf_pmu.rs`, whose total a debugfs file feeds. An event counts the
//! total from `add` to `del`, as it would a free-running counter: `stop` only reads it.
//!
//! ```
//! use kernel::perf::{
//!     sysfs::{Events, PmuAttrs, StrAttr},
//!     Capability, Event, EventFlag, EventFlags, HwState, HwStateFlag, InitEvent, KernelCounter,
//!     PmuOps, PmuRegistration, ReadEvent, Scope,
//! };
//! use kernel::{
//!     cpu::CpuId,
//!     str::CString,
//!     sync::atomic::{Atomic, Relaxed},
//! };
//!
//! static TOTAL: Atomic<u64> = Atomic::new(0);
//! kernel::static_attr_group!(
//!     static FORMAT = c"format",
//!     &[StrAttr { name: c"event", value: c"config:0-7" }]
//! );
//!
//! struct Total {
//!     attrs: Pin<KBox<PmuAttrs>>,
//! }
//!
//! #[vtable]
//! impl PmuOps for Total {
//!     type Config = ();
//!     const CAPABILITIES: &'static [Capability] = &[Capability::NoExclude];
//!     fn attrs(&self) -> &PmuAttrs {
//!         &self.attrs
//!     }
//!     fn event_init(&self, ev: &InitEvent<()>) -> Result {
//!         if ev.config() != 0 || ev.is_sampling() {
//!             return Err(EINVAL);
//!         }
//!         Ok(())
//!     }
//!     fn add(&self, ev: &Event<()>, flags: EventFlags) -> Result {
//!         ev.set_prev_count(TOTAL.load(Relaxed));
//!         ev.set_state(HwState::STOPPED_UPTODATE);
//!         if flags.contains(EventFlag::Start) {
//!             self.start(ev, flags);
//!         }
//!         Ok(())
//!     }
//!     fn del(&self, ev: &Event<()>, flags: EventFlags) {
//!         self.stop(ev, flags);
//!     }
//!     fn start(&self, ev: &Event<()>, _flags: EventFlags) {
//!         ev.set_state(HwState::empty());
//!     }
//!     fn stop(&self, ev: &Event<()>, _flags: EventFlags) {
//!         if !ev.state().contains(HwStateFlag::Stopped) {
//!             self.read(ev);
//!             ev.set_state(HwState::STOPPED_UPTODATE);
//!         }
//!     }
//!     fn read(&self, ev: &ReadEvent) {
//!         ev.update_count(|| TOTAL.load(Relaxed));
//!     }
//! }
//!
//! # let module = kernel::module::this_module::<crate::LocalModule>();
//! let attrs = PmuAttrs::new(FORMAT.group(), Events::None)?;
//! let name = CString::try_from_fmt(fmt!("rust_doctest_total"))?;
//! let pmu = KBox::pin_init(
//!     PmuRegistration::register(name, Scope::System, Total { attrs }, module),
//!     GFP_KERNEL,
//! )?;
//! let ty = pmu.pmu_type();
//! TOTAL.add(2, Relaxed);
//! let counter = KernelCounter::new(ty, 0, CpuId::current(), false)?;
//! TOTAL.add(3, Relaxed);
//! assert_eq!(counter.read(), 3);
//! TOTAL.add(4, Relaxed);
//! assert_eq!(counter.read(), 7);
//! // `event_init` refuses the config.
//! assert_eq!(KernelCounter::new(ty, 1, CpuId::current(), false).err(), Some(EINVAL));
//! drop(counter);
//! drop(pmu);
//! // Unregistered: no PMU takes the type now.
//! assert_eq!(KernelCounter::new(ty, 0, CpuId::current(), false).err(), Some(ENOENT));
//! # Ok::<(), Error>(())
//! ```

mod callbacks;
mod counter;
mod event;
mod names;
pub(crate) mod sysfs;

use core::marker::PhantomPinned;

use kernel::{
    error::{to_result, Error, VTABLE_DEFAULT_ERROR},
    ffi::c_int,
    prelude::*,
    str::CString,
    types::Opaque,
};

pub(crate) use counter::KernelCounter;
pub(crate) use event::{Event, EventRef, GroupMember, HwConfig, InitEvent, ReadEvent};
pub(crate) use names::pmu_name_taken;

use super::perf_sys as sys;

kernel::impl_flags!(
    /// `PERF_EF_*`: what perf asks of `add`, `del`, `start` and `stop`.
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
    pub(crate) struct EventFlags(u32);

    /// One `PERF_EF_*` flag.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub(crate) enum EventFlag {
        /// `add`: start counting at once.
        Start = sys::PERF_EF_START,
        /// `start`: reload the sampling period (no uncore PMU samples).
        Reload = sys::PERF_EF_RELOAD,
        /// `stop`, `del`: fold the hardware count into the event's.
        Update = sys::PERF_EF_UPDATE,
    }
);

kernel::impl_flags!(
    /// `PERF_HES_*`: the event's hardware state, which the driver keeps in `hw.state`.
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
    pub(crate) struct HwState(u32);

    /// One `PERF_HES_*` flag.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub(crate) enum HwStateFlag {
        /// The counter does not count for the event.
        Stopped = sys::PERF_HES_STOPPED,
        /// The event's count is up to date with the hardware.
        UpToDate = sys::PERF_HES_UPTODATE,
    }
);

impl HwState {
    /// Not counting, its count up to date: an event `add` did not start, or one `stop` or
    /// `del` has updated.
    pub(crate) const STOPPED_UPTODATE: Self = Self(sys::PERF_HES_STOPPED | sys::PERF_HES_UPTODATE);
}

/// What a PMU tells perf about itself (`pmu->capabilities`, one `PERF_PMU_CAP_*` bit each), for
/// perf to act on before the driver sees an event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u32)]
pub(crate) enum Capability {
    /// The PMU cannot tell whose work it counts (user, kernel, guest, idle): perf refuses an
    /// event with an `exclude_*` bit, with `EINVAL`.
    NoExclude = sys::PERF_PMU_CAP_NO_EXCLUDE,
}

/// Which CPUs share a PMU's counters (`pmu->scope`): perf keeps its `cpumask`, one CPU per
/// scope, where tools open the PMU's events (perf installs an event on the CPU it is given: a
/// PMU that needs it there moves it, [`InitEvent::move_to_scope_cpu`]); moves the events of
/// that CPU when it goes offline; and lets any CPU of the scope read them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Scope {
    /// `PERF_PMU_SCOPE_PKG`: one context per package.
    Package,
    /// `PERF_PMU_SCOPE_SYS_WIDE`: one context for the whole machine.
    System,
}

impl Scope {
    fn raw(self) -> u32 {
        match self {
            Self::Package => sys::perf_pmu_scope_PERF_PMU_SCOPE_PKG,
            Self::System => sys::perf_pmu_scope_PERF_PMU_SCOPE_SYS_WIDE,
        }
    }
}

/// Whether the caller runs in NMI context (`in_nmi()`). A [`PmuOps::read`] may run there,
/// on top of any code of its CPU, which may hold any lock: a read that needs a lock can tell
/// that it must not wait for it there.
#[allow(dead_code)] // Out of tree: only the simulator's read takes a lock.
pub(crate) fn in_nmi() -> bool {
    // SAFETY: `in_nmi()` reads the calling CPU's preempt count: any context, no state.
    unsafe { sys::rust_helper_in_nmi() }
}

/// What a PMU does; perf's callbacks land here.
///
/// The PMU has a [`Scope`] and no task context: every event is a CPU event. Perf moves the
/// events of the scope's CPU (the one the PMU's `cpumask` shows) to another CPU of the scope
/// when that one goes offline (`del` on the old CPU, `add` on the new); an event left on the
/// CPU its user named is not moved, which is why `event_init` places it
/// ([`InitEvent::move_to_scope_cpu`]).
///
/// `pmu_disable` and `pmu_enable` are optional (`#[vtable]`), both or neither: without them
/// perf's own no-ops bracket the scheduling.
///
/// `event_init` returns what the later callbacks need to know of the event, a
/// [`PmuOps::Config`], which they read back typed ([`Event::hw_config`]).
///
/// # Context
///
/// - `event_init` runs in process context, before the event is installed: nothing else
///   reaches it yet. It may sleep.
/// - `add`, `del`, `start` and `stop` run on the event's CPU with interrupts off, holding the
///   event's context lock (a raw spinlock): perf serialises them per event, and per CPU
///   context. They get an [`Event`], through which the driver's `hw` state is theirs. One
///   exception: a software event of the group (a sampling `cpu-clock` leader, say) that
///   overflows more often in a tick than `kernel.perf_event_max_sample_rate` allows makes
///   perf throttle the whole group, which calls `stop` from that overflow, without the
///   context lock and outside `pmu_disable`/`pmu_enable`: on the event's CPU, from an
///   hrtimer's hard irq (`cpu-clock`), or wherever the software event fires, preemption off
///   but interrupts perhaps on: an interrupt's `del` or `add` of the event may run inside
///   that `stop`. `start` follows at a later tick, under the lock.
/// - `read` runs on any CPU of the event's scope (perf's `PERF_EV_CAP_READ_SCOPE`), in any
///   context: from `read(2)` under the context lock, but from `perf_event_read_local` (BPF's
///   `bpf_perf_event_read_value`, and NMI handlers) with only local interrupts off, while
///   `add`, `del`, `start` and `stop` of the same event run on another CPU. It gets a
///   [`ReadEvent`]: the event's identity and an atomic count, nothing perf's lock guards. An
///   implementation may not wait for any lock the scheduling callbacks take (the interrupted
///   code may hold it), nor allocate.
/// - `pmu_disable` and `pmu_enable` bracket the scheduling of this PMU on the calling CPU,
///   any CPU, with interrupts off; perf counts their nesting per CPU and calls only the
///   outermost, and several CPUs may be inside at once.
///
/// None of them may sleep or take a sleeping lock, nor Rust's `SpinLock` (a sleeping lock
/// under `PREEMPT_RT`, which lockdep's raw-lock nesting check rejects there), except
/// `event_init`.
#[vtable]
pub(crate) trait PmuOps: Sync + 'static {
    /// What `event_init` decides about an event for the later callbacks (`()` for nothing),
    /// kept in its `hw.config`.
    type Config: HwConfig;
    /// The PMU's capabilities; none unless the driver names them.
    const CAPABILITIES: &'static [Capability] = &[];
    /// The PMU's sysfs groups (`format/`, `events/`, `cpumask`).
    fn attrs(&self) -> &sysfs::PmuAttrs;
    /// Accepts a new event, with what the later callbacks need to know of it, or refuses it
    /// (process context).
    fn event_init(&self, ev: &InitEvent<Self::Config>) -> Result<Self::Config>;
    /// Schedules the event onto the PMU (event's CPU, context lock held).
    fn add(&self, ev: &Event<Self::Config>, flags: EventFlags) -> Result;
    /// Removes the event from the PMU (event's CPU, context lock held); its count must be up
    /// to date when this returns.
    fn del(&self, ev: &Event<Self::Config>, flags: EventFlags);
    /// Starts counting (event's CPU, context lock held).
    fn start(&self, ev: &Event<Self::Config>, flags: EventFlags);
    /// Stops counting (event's CPU, context lock held).
    fn stop(&self, ev: &Event<Self::Config>, flags: EventFlags);
    /// Folds the hardware count into the event's count: any CPU of the package, any context,
    /// NMI included, concurrently with the other callbacks on another CPU.
    fn read(&self, ev: &ReadEvent);
    /// Perf starts (re)scheduling this PMU on the calling CPU.
    fn pmu_disable(&self) {
        build_error!(VTABLE_DEFAULT_ERROR)
    }
    /// Perf is done (re)scheduling on the calling CPU: program what changed.
    fn pmu_enable(&self) {
        build_error!(VTABLE_DEFAULT_ERROR)
    }
}

/// A registered perf PMU, unregistered when dropped.
///
/// An open event holds a reference to the module that registered its PMU, so a registration
/// dropped at the module's unload has no event left. One dropped earlier, with events open,
/// relies on perf detaching them, which does not wait for a `read` that
/// `perf_event_read_local()` entered on another CPU just before.
///
/// # Invariants
///
/// While `registered`, `pmu` is registered with perf and refers to `name`, `ops` and the
/// attribute groups of `ops.attrs()`, all of which live as long as `self`.
#[pin_data(PinnedDrop)]
pub(crate) struct PmuRegistration<T: PmuOps> {
    #[pin]
    pmu: Opaque<sys::pmu>,
    ops: T,
    name: CString,
    registered: bool,
    #[pin]
    _pin: PhantomPinned,
}

// SAFETY: After registration the `struct pmu` is only touched by perf, under its own locks;
// the other fields are not changed.
unsafe impl<T: PmuOps + Send> Send for PmuRegistration<T> {}
// SAFETY: As above; `&self` only reads.
unsafe impl<T: PmuOps> Sync for PmuRegistration<T> {}

/// `pmu.task_ctx_nr` for PMUs that only count per CPU.
const INVALID_CONTEXT: c_int = sys::perf_event_task_context_perf_invalid_context;

impl<T: PmuOps> PmuRegistration<T> {
    /// Registers a PMU named `name` of scope `scope`, with the sysfs groups of `ops.attrs()`.
    pub(crate) fn register(
        name: CString,
        scope: Scope,
        ops: T,
        module: &'static ThisModule,
    ) -> impl PinInit<Self, Error> {
        // Perf tests `pmu_enable` alone: with it and without `pmu_disable`, it would call NULL.
        const {
            assert!(
                T::HAS_PMU_ENABLE == T::HAS_PMU_DISABLE,
                "PmuOps: pmu_enable and pmu_disable go together"
            )
        };
        try_pin_init!(Self {
            pmu <- Opaque::zeroed(),
            ops,
            name,
            registered: false,
            _pin: PhantomPinned,
        })
        .pin_chain(move |this| {
            let raw = this.pmu.get();
            let attr_groups = this.ops.attrs().groups();
            let capabilities = T::CAPABILITIES.iter().fold(0, |caps, &c| caps | c as c_int);
            // SAFETY: `raw` is valid, zeroed and not yet registered. The callbacks match
            // perf's prototypes. `name` and `ops` live in `this`; `ops.attrs()` is pinned and
            // never changes (`PmuAttrs` invariant), so `attr_groups` stays valid.
            unsafe {
                (*raw).module = module.as_ptr();
                (*raw).task_ctx_nr = INVALID_CONTEXT;
                (*raw).scope = scope.raw();
                (*raw).capabilities = capabilities;
                (*raw).attr_groups = attr_groups;
                (*raw).event_init = Some(callbacks::event_init_cb::<T>);
                (*raw).add = Some(callbacks::add_cb::<T>);
                (*raw).del = Some(callbacks::del_cb::<T>);
                (*raw).start = Some(callbacks::start_cb::<T>);
                (*raw).stop = Some(callbacks::stop_cb::<T>);
                (*raw).read = Some(callbacks::read_cb::<T>);
                // NULL: perf's own no-ops.
                (*raw).pmu_enable = if T::HAS_PMU_ENABLE {
                    Some(callbacks::pmu_enable_cb::<T>)
                } else {
                    None
                };
                (*raw).pmu_disable = if T::HAS_PMU_DISABLE {
                    Some(callbacks::pmu_disable_cb::<T>)
                } else {
                    None
                };
                to_result(sys::perf_pmu_register(raw, this.name.as_char_ptr(), -1))?;
            }
            // SAFETY: Only a plain field is written; nothing is moved out of the pinned value.
            // INVARIANT: registered just above.
            unsafe { this.get_unchecked_mut().registered = true };
            Ok(())
        })
    }

    /// The dynamic type perf assigned.
    pub(crate) fn pmu_type(&self) -> u32 {
        // SAFETY: `type` is written once by `perf_pmu_register`, before any callback.
        unsafe { (*self.pmu.get()).type_ as u32 }
    }

    /// # Safety
    ///
    /// `pmu` is the `pmu` field of a live `PmuRegistration<T>`.
    unsafe fn from_pmu<'a>(pmu: *mut sys::pmu) -> &'a Self {
        // SAFETY: `pmu` sits in the `pmu` field (an `Opaque`, same layout) of a `Self`.
        unsafe { &*kernel::container_of!(pmu.cast::<Opaque<sys::pmu>>(), Self, pmu) }
    }
}

#[pinned_drop]
impl<T: PmuOps> PinnedDrop for PmuRegistration<T> {
    fn drop(self: Pin<&mut Self>) {
        if self.registered {
            // SAFETY: Registered (invariant). Perf detaches any event still open and calls us
            // no more after this, but for a `read` entered just before, on another CPU, as
            // the type's documentation says (C drivers share that window).
            let ret = unsafe { sys::perf_pmu_unregister(self.pmu.get()) };
            // Only a PMU perf does not know fails (EINVAL); ours was registered.
            if let Err(e) = to_result(ret) {
                pr_err!("{:?}: perf_pmu_unregister failed: {:?}\n", self.name, e);
            }
        }
    }
}
