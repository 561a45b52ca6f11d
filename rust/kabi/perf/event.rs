// SPDX-License-Identifier: GPL-2.0

//! Perf events as a PMU's callbacks see them.
//!
//! Each callback gets a type that offers only what is sound in its context:
//!
//! - [`InitEvent`] (`event_init`): the event is not installed yet; the driver decides what it
//!   counts, and returns it.
//! - [`Event`] (`add`, `del`, `start`, `stop`): on the event's CPU, where perf holds the
//!   event's context lock (but for a throttled group's `stop`, see [`PmuOps`]), so the
//!   driver's `hw` state is serialised.
//! - [`ReadEvent`] (`read`, and a driver's own work such as a timer): no lock at all, on any
//!   CPU of the event's scope, in any context, NMI included, while the other callbacks may run
//!   on another CPU: only the event's identity and its count, added to atomically.
//!
//! [`PmuOps`]: super::PmuOps

use core::{marker::PhantomData, ops::Deref};

use kernel::{
    error::{to_result, Result},
    ffi::c_int,
    sync::atomic::{ordering, Atomic},
    types::Opaque,
};

use super::HwState;

use super::super::perf_sys as sys;

/// `PERF_EVENT_STATE_OFF`.
const STATE_OFF: sys::perf_event_state = sys::perf_event_state_PERF_EVENT_STATE_OFF;

/// What a PMU decides about an event in `event_init` and its later callbacks need: typically
/// what the event counts, in the PMU's own terms. Perf leaves the event's `hw.config`, 64
/// bits, to the driver: the value lives there, encoded, from `event_init` to the event's end.
pub(crate) trait HwConfig: Copy + Send + Sync + 'static {
    /// Encodes the value for `hw.config`.
    fn into_raw(self) -> u64;
    /// Decodes a value that [`HwConfig::into_raw`] encoded. It is given no other, but any
    /// `u64` must give some value: soundness may not rest on it.
    fn from_raw(raw: u64) -> Self;
}

/// For a PMU whose callbacks need nothing from `event_init`.
impl HwConfig for () {
    fn into_raw(self) -> u64 {
        0
    }
    fn from_raw(_raw: u64) -> Self {}
}

/// The driver's part of an event's `hw` (the union's hardware member).
///
/// # Safety
///
/// `event` points to a live `struct perf_event` of the driver's own PMU.
unsafe fn hw_of(
    event: *mut sys::perf_event,
) -> *mut sys::hw_perf_event__bindgen_ty_1__bindgen_ty_1 {
    // SAFETY: The caller's guarantee: the "hardware" member of the union is the one in use for
    // the driver's own events (whose `hw.config` is the driver's: neither perf's core nor
    // another PMU writes it), and it starts at the union's address.
    unsafe { (&raw mut (*event).hw.__bindgen_anon_1).cast() }
}

/// Keeps what `event_init` returned in the event's `hw.config`, for its later callbacks.
///
/// # Safety
///
/// `event` points to a live event of the driver's own PMU, in `event_init`: not installed, so
/// no callback reads `hw.config` meanwhile.
pub(super) unsafe fn set_hw_config<C: HwConfig>(event: *mut sys::perf_event, config: C) {
    // SAFETY: The caller's guarantee.
    unsafe { (*hw_of(event)).config = config.into_raw() };
}

/// A perf event as anyone may touch it while perf holds it on the PMU: from any CPU of its
/// scope, without perf's locks, in any context (NMI included), while perf's scheduling
/// callbacks run on another CPU.
///
/// # Invariants
///
/// Wraps a live `struct perf_event` that perf keeps alive for the borrow. Nothing reachable
/// through this type is written without atomics by anyone once the event is installed: the
/// count and `hw.prev_count` are 64-bit integers perf and drivers only access atomically; the
/// address is fixed.
#[repr(transparent)]
pub(crate) struct ReadEvent(Opaque<sys::perf_event>);

impl ReadEvent {
    /// # Safety
    ///
    /// `ptr` points to a live `struct perf_event` that outlives `'a`.
    pub(super) unsafe fn from_raw<'a>(ptr: *mut sys::perf_event) -> &'a Self {
        // SAFETY: `ReadEvent` is a transparent wrapper of `perf_event`; the caller guarantees
        // the lifetime.
        // INVARIANT: A live event, alive for the borrow (the caller's guarantee); what
        // `ReadEvent` reaches of it, perf only accesses atomically once it is installed.
        unsafe { &*ptr.cast::<Self>() }
    }

    fn raw(&self) -> *mut sys::perf_event {
        self.0.get()
    }

    /// Adds `delta` to the event's count, atomically (a locked add: other CPUs add too).
    pub(crate) fn add_count(&self, delta: u64) {
        // SAFETY: `count` is a `local64_t`, a 64-bit integer only accessed atomically (type
        // invariant), aligned, alive for the borrow.
        let count =
            unsafe { Atomic::<i64>::from_ptr((&raw mut (*self.raw()).count).cast::<i64>()) };
        count.add(delta as i64, ordering::Relaxed);
    }

    /// `hw.prev_count`: the counter's value when the event's count was last brought up to
    /// date. Atomic, like the count: `read` may run on two CPUs at once.
    fn prev_count(&self) -> &Atomic<i64> {
        // SAFETY: `hw.prev_count` is a `local64_t`, a 64-bit integer perf and drivers only
        // access atomically (type invariant), aligned, alive for the borrow.
        unsafe { Atomic::<i64>::from_ptr((&raw mut (*self.raw()).hw.prev_count).cast::<i64>()) }
    }

    /// Sets `hw.prev_count` to the counter's value `now` (as `start` begins counting).
    #[allow(dead_code)] // Out of tree: the driver keeps its counters' values per box.
    pub(crate) fn set_prev_count(&self, now: u64) {
        self.prev_count().store(now as i64, ordering::Relaxed);
    }

    /// Brings the event's count up to date with the counter that `counter()` reads: swaps
    /// its value into `hw.prev_count` and adds what the counter moved since the value it
    /// replaces (modulo 2^64: a narrower counter is widened by `counter`). Returns that
    /// difference.
    ///
    /// `read` may run on two CPUs at once (an unlocked `perf_event_read_local()` beside
    /// `stop`): the counter is read after `hw.prev_count`, and the swap is a compare-exchange
    /// that reads it again if another update came in between, so a late update never swaps in
    /// an older value than an earlier one did (the count would lose the difference).
    #[allow(dead_code)] // Out of tree: the driver keeps its counters' values per box.
    pub(crate) fn update_count(&self, counter: impl Fn() -> u64) -> u64 {
        let prev_count = self.prev_count();
        let mut prev = prev_count.load(ordering::Acquire);
        loop {
            let now = counter();
            match prev_count.cmpxchg(prev, now as i64, ordering::Full) {
                Ok(_) => {
                    let delta = now.wrapping_sub(prev as u64);
                    self.add_count(delta);
                    return delta;
                }
                Err(current) => prev = current,
            }
        }
    }

    /// A handle that outlives the callback, for a box that holds the event until `del`.
    pub(crate) fn handle(&self) -> EventRef {
        // SAFETY: The event is live for the borrow (type invariant); perf writes `id` once, in
        // `perf_event_alloc` before `event_init`, and never again: a plain read is race-free
        // in any context.
        let id = unsafe { (*self.raw()).id };
        EventRef {
            ptr: self.raw(),
            id,
        }
    }
}

/// A perf event, as the scheduling callbacks (`add`, `del`, `start`, `stop`) see it.
///
/// # Invariants
///
/// Wraps a live `struct perf_event` that perf keeps alive for the borrow, and the borrow
/// lasts no longer than a scheduling callback: perf runs those on the event's CPU, so the
/// driver's `hw` state (`hw.state`) is theirs alone. They are serialised per event by the
/// context lock, except a throttled group's `stop` (see [`PmuOps`](super::PmuOps)), which
/// runs without it on the same CPU, where an interrupt's callback may nest in it. A
/// [`ReadEvent`] of the same event may be in use meanwhile on another CPU. `hw.config` holds
/// the `C` its PMU's `event_init` returned for it, or `C` is `()`, which reads nothing there
/// (an [`InitEvent`]'s).
#[repr(transparent)]
pub(crate) struct Event<C: HwConfig>(ReadEvent, PhantomData<C>);

impl<C: HwConfig> Deref for Event<C> {
    type Target = ReadEvent;

    fn deref(&self) -> &ReadEvent {
        &self.0
    }
}

impl<C: HwConfig> Event<C> {
    /// # Safety
    ///
    /// `ptr` points to a live `struct perf_event` that outlives `'a`, and `'a` lasts no longer
    /// than a scheduling callback perf runs on the event's CPU (under its context lock but for
    /// a throttled group's `stop`), or, for an [`InitEvent`], than its `event_init`. Its
    /// `hw.config` holds the `C` its PMU's `event_init` returned for it, or `C` is `()`.
    pub(super) unsafe fn from_raw<'a>(ptr: *mut sys::perf_event) -> &'a Self {
        // SAFETY: `Event` is a transparent wrapper of `ReadEvent`, itself of `perf_event`; the
        // caller guarantees the lifetime and the context (type invariant).
        // INVARIANT: The caller's guarantee: a live event, borrowed no longer than a
        // scheduling callback on its CPU, its `hw.config` a `C`'s.
        unsafe { &*ptr.cast::<Self>() }
    }

    fn raw(&self) -> *mut sys::perf_event {
        self.0.raw()
    }

    fn pmu(&self) -> *mut sys::pmu {
        // SAFETY: By the type invariant the event is live; perf sets `pmu` before
        // `event_init` and does not change it while the event exists.
        unsafe { (*self.raw()).pmu }
    }

    fn attr(&self) -> &sys::perf_event_attr {
        // SAFETY: By the type invariant the event is live; perf does not change `attr` after
        // the event is allocated.
        unsafe { &(*self.raw()).attr }
    }

    /// `attr.type`: the PMU type the user asked for.
    pub(crate) fn attr_type(&self) -> u32 {
        self.attr().type_
    }

    /// `attr.config`.
    pub(crate) fn config(&self) -> u64 {
        self.attr().config
    }

    /// `attr.config1`.
    pub(crate) fn config1(&self) -> u64 {
        // SAFETY: All members of the union are plain `u64`, and a C union's members all start
        // at its address (read so whatever shape bindgen gave the union).
        unsafe {
            (&raw const self.attr().__bindgen_anon_3)
                .cast::<u64>()
                .read()
        }
    }

    /// `attr.config2`.
    pub(crate) fn config2(&self) -> u64 {
        // SAFETY: As for `config1`.
        unsafe {
            (&raw const self.attr().__bindgen_anon_4)
                .cast::<u64>()
                .read()
        }
    }

    /// Whether the event samples (a period or a frequency): uncore counters cannot interrupt.
    pub(crate) fn is_sampling(&self) -> bool {
        // SAFETY: Perf sets `hw.sample_period` before `event_init` and does not change it
        // for counting events.
        unsafe { (*self.raw()).hw.sample_period != 0 }
    }

    /// Whether any `exclude_*` bit is set: the uncore counts everything or nothing.
    pub(crate) fn excludes_anything(&self) -> bool {
        let a = self.attr();
        a.exclude_user() != 0
            || a.exclude_kernel() != 0
            || a.exclude_hv() != 0
            || a.exclude_idle() != 0
            || a.exclude_host() != 0
            || a.exclude_guest() != 0
    }

    /// The CPU the event is bound to, or -1 for a per-task event.
    pub(crate) fn cpu(&self) -> i32 {
        // SAFETY: By the type invariant the event is live; perf sets `cpu` before
        // `event_init` and changes it only while the event is off the PMU (migration).
        unsafe { (*self.raw()).cpu }
    }

    /// What the PMU's `event_init` returned for this event (kept in `hw.config`). An
    /// [`InitEvent`] is an `Event<()>` here: its `event_init` has not returned.
    pub(crate) fn hw_config(&self) -> C {
        // SAFETY: By the type invariant the event is live and of the driver's own PMU, whose
        // `event_init` wrote `hw.config` once, from a `C`, before any other callback (or `C` is
        // `()`, whose `from_raw` ignores the value); nothing writes it since.
        C::from_raw(unsafe { (*hw_of(self.raw())).config })
    }

    /// `hw.state`, the `PERF_HES_*` flags.
    pub(crate) fn state(&self) -> HwState {
        // SAFETY: By the type invariant we run in a scheduling callback of this event, on its
        // CPU: `hw.state` is written only there (a `ReadEvent` cannot reach it), perhaps by a
        // callback nested in this one, and perf also reads it without a lock (for the mmap
        // page, `perf_event_index()`): one volatile access (`READ_ONCE`) of an aligned `int`.
        HwState(unsafe { core::ptr::read_volatile(&raw const (*self.raw()).hw.state) } as u32)
    }

    /// Sets `hw.state`.
    pub(crate) fn set_state(&self, state: HwState) {
        // SAFETY: See `state()`; one volatile store (`WRITE_ONCE`).
        unsafe {
            core::ptr::write_volatile(&raw mut (*self.raw()).hw.state, u32::from(state) as c_int)
        };
    }
}

/// An event held by a driver between perf's `add` and `del` (perf frees an event only after
/// its `del`). Comparing handles is safe; reaching the event is not, see [`EventRef::get`],
/// and gives only what any CPU may touch (a [`ReadEvent`]).
///
/// Equal handles name the same event, for the module's whole life: a box keeps a handle past
/// the event's `del` (a departed record, `pmubox/depart.rs`), and perf frees the event an RCU
/// grace period later, after which the slab may give its address to the next event. So a
/// handle is the address and perf's `event->id`, which perf takes from a 64-bit counter when it
/// allocates the event and never gives again (the id `PERF_FORMAT_ID` reports). A `destroy`
/// callback dropping the record would do too, but it runs wherever the last reference goes
/// (any CPU, or none of the package online; under `ctx->mutex` in `perf_pmu_unregister`),
/// while stopping the record's counter needs a CPU of the package: the record would still be
/// left to the package's timer, through a new callback and a new path to the box's lock.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct EventRef {
    ptr: *mut sys::perf_event,
    /// Perf's `event->id`: never 0, never repeated.
    id: u64,
}

// SAFETY: A handle is an address and a number; reaching the event needs `get`, whose contract
// covers it.
unsafe impl Send for EventRef {}

impl EventRef {
    /// Where reads find the event's tally: its address, never 0, unique among the events a box
    /// holds (a box holds an event from `add` to `del`, and perf frees it after its `del`).
    pub(crate) fn key(self) -> usize {
        self.ptr as usize
    }

    /// The event.
    ///
    /// # Safety
    ///
    /// The handle was taken from an event that perf has `add`ed to this driver and not yet
    /// `del`eted, and that stays so for `'a`.
    pub(crate) unsafe fn get<'a>(self) -> &'a ReadEvent {
        // SAFETY: Between `add` and `del` perf keeps the event alive (caller's guarantee).
        unsafe { ReadEvent::from_raw(self.ptr) }
    }
}

/// An event inside `event_init`: its group is stable (perf holds the context mutex) and the
/// driver may move it to its scope CPU.
///
/// It derefs to `Event<()>`, for what every event has: its `hw.config` is not set yet, since
/// `event_init` returns it, and `()` reads none.
#[repr(transparent)]
pub(crate) struct InitEvent<C: HwConfig>(Event<()>, PhantomData<C>);

impl<C: HwConfig> Deref for InitEvent<C> {
    type Target = Event<()>;

    fn deref(&self) -> &Event<()> {
        &self.0
    }
}

impl<C: HwConfig> InitEvent<C> {
    /// # Safety
    ///
    /// `ptr` points to an event in `event_init`, live for `'a`, of a PMU whose `event_init`
    /// returns a `C`.
    pub(super) unsafe fn from_raw<'a>(ptr: *mut sys::perf_event) -> &'a Self {
        // SAFETY: `InitEvent` is a transparent wrapper of `Event`, itself of `perf_event`.
        // INVARIANT: `Event<()>`'s, as its `from_raw` allows for an event in `event_init`,
        // which the caller guarantees; `()` reads nothing from `hw.config`.
        unsafe { &*ptr.cast::<Self>() }
    }

    /// Whether this is the leader of its group.
    pub(crate) fn is_leader(&self) -> bool {
        // SAFETY: By the type invariant the event is live.
        unsafe { (*self.0.raw()).group_leader == self.0.raw() }
    }

    /// Calls `f` for every other event of this one's group (the leader included, unless it
    /// is this one) that is on this event's PMU and not in error or gone: events whose
    /// `event_init` returned their [`Event::hw_config`]. A disabled member is included:
    /// once enabled, the whole group must fit the counters or it never runs, and every failed
    /// try at scheduling it gives the leader a moment of running time with a count of 0 (Linux
    /// skips disabled members and accepts such groups). Members are installed events, whose
    /// count and state belong to perf's context lock, which is not held here (only
    /// `ctx->mutex` is): `f` gets a [`GroupMember`], which can only read what was fixed at its
    /// `event_init`. Events of other PMUs are skipped: their `hw` area is another driver's,
    /// changing under us. This event is skipped: its `event_init` has not returned.
    pub(crate) fn for_each_in_group(&self, mut f: impl FnMut(&GroupMember<C>)) {
        let this = self.0.raw();
        let pmu = self.0.pmu();
        // SAFETY: In `event_init` perf holds the group's context mutex (or the group is this
        // event alone): the leader outlives the call and its sibling list is stable; each
        // entry is the `sibling_list` member of a live `perf_event`. `state` changes under the
        // context lock, which we do not hold: it is read once, volatile (`READ_ONCE`). An
        // event of our PMU other than this one is installed: its `event_init` returned a `C`.
        unsafe {
            let leader = (*this).group_leader;
            let head = &raw mut (*leader).sibling_list;
            let mut member = leader;
            let mut pos = (*head).next;
            loop {
                let here = core::ptr::read_volatile(&raw const (*member).state) >= STATE_OFF;
                if (*member).pmu == pmu && member != this && (member == leader || here) {
                    f(GroupMember::from_raw(member));
                }
                if pos == head {
                    break;
                }
                member = kernel::container_of!(pos, sys::perf_event, sibling_list);
                pos = (*pos).next;
            }
        }
    }

    /// Places a CPU event on the CPU of its package that perf's scope cpumask holds (the one
    /// the PMU's `cpumask` file shows), whatever CPU the user named. Perf's package scope
    /// checks that the package has such a CPU but leaves `cpu` as given, so without this the
    /// events of one package sit in several CPUs' contexts, competing for the same counters
    /// where perf cannot rotate them; there, they share one context and move together when
    /// that CPU goes offline. `ENODEV` if the package has no CPU in the mask.
    pub(crate) fn move_to_scope_cpu(&self) -> Result {
        let raw = self.0.raw();
        // SAFETY: In `event_init`, in process context, the event is live and not installed
        // anywhere: perf reads `cpu` to pick the context only after `event_init` returns.
        // `pmu` is the event's PMU, which perf keeps registered while it calls `event_init`.
        let target = unsafe { sys::perf_pmu_scope_cpu((*raw).pmu, (*raw).cpu) };
        let target = to_result(target).map(|()| target)?;
        // SAFETY: As above: nothing else reads or writes `cpu` before `event_init` returns.
        unsafe { (*raw).cpu = target };
        Ok(())
    }
}

/// Another event of the group of an event in `event_init`, seen read-only: it may be
/// counting, and its count and `hw.state` are perf's context lock's, which the caller does not
/// hold. Only what is fixed once an event is initialised can be read.
///
/// # Invariants
///
/// Wraps a live, installed `struct perf_event` of the PMU, whose `hw.config` holds the `C` its
/// `event_init` returned, for the duration of [`InitEvent::for_each_in_group`]'s callback.
#[repr(transparent)]
pub(crate) struct GroupMember<C: HwConfig>(ReadEvent, PhantomData<C>);

impl<C: HwConfig> GroupMember<C> {
    /// # Safety
    ///
    /// `ptr` points to a live `struct perf_event` that outlives `'a`, of a PMU whose
    /// `event_init` returned a `C` for it.
    unsafe fn from_raw<'a>(ptr: *mut sys::perf_event) -> &'a Self {
        // SAFETY: `GroupMember` is a transparent wrapper of `ReadEvent`, itself of
        // `perf_event`; the caller guarantees the lifetime.
        // INVARIANT: A member of the group `for_each_in_group` walks under the context mutex,
        // borrowed for its callback (the caller's guarantee).
        unsafe { &*ptr.cast::<Self>() }
    }

    /// What its `event_init` returned.
    pub(crate) fn hw_config(&self) -> C {
        // SAFETY: By the type invariant the event is live and of the driver's own PMU, whose
        // `event_init` wrote `hw.config` once, from a `C`; nothing writes it since.
        C::from_raw(unsafe { (*hw_of(self.0.raw())).config })
    }
}
