// SPDX-License-Identifier: GPL-2.0

//! A safe face for the parts of perf's PMU API the driver uses.
//!
//! [`PmuRegistration`] owns a `struct pmu` and routes perf's callbacks to a [`PmuOps`]
//! implementation; [`Event`] wraps a `struct perf_event` with typed accessors. All raw pointer
//! work for perf lives here.

use core::marker::PhantomPinned;

use kernel::{
    error::{to_result, Error},
    ffi::c_int,
    prelude::*,
    str::CString,
    sync::atomic::{ordering, Atomic},
    types::Opaque,
};

use super::perf_sys as sys;

/// `PERF_EF_*`: flags perf passes to add/del/start/stop.
pub(crate) const EF_START: u32 = sys::PERF_EF_START;
/// Update the event's count when stopping.
pub(crate) const EF_UPDATE: u32 = sys::PERF_EF_UPDATE;

/// `PERF_HES_*`: the event's hardware state, kept by the driver in `hw.state`.
pub(crate) const HES_STOPPED: u32 = sys::PERF_HES_STOPPED;
/// The count is up to date with the hardware.
pub(crate) const HES_UPTODATE: u32 = sys::PERF_HES_UPTODATE;

/// `PERF_EV_CAP_READ_ACTIVE_PKG` (`BIT(1)`, which bindgen cannot evaluate): the event may be
/// read from any CPU of its package, without an IPI to the collector.
const EV_CAP_READ_ACTIVE_PKG: c_int = 1 << 1;

/// Driver flag in `hw.flags`: the counter is live for this event.
const HW_LIVE: c_int = 1;

/// `PERF_EVENT_STATE_OFF`.
const STATE_OFF: sys::perf_event_state = sys::perf_event_state_PERF_EVENT_STATE_OFF;

/// A perf event, as the driver's callbacks see it.
///
/// # Invariants
///
/// Wraps a live `struct perf_event` that perf keeps alive for the duration of the callback.
#[repr(transparent)]
pub(crate) struct Event(Opaque<sys::perf_event>);

impl Event {
    /// # Safety
    ///
    /// `ptr` points to a live `struct perf_event` that outlives `'a`.
    unsafe fn from_raw<'a>(ptr: *mut sys::perf_event) -> &'a Self {
        // SAFETY: `Event` is a transparent wrapper of `perf_event`; the caller guarantees the
        // lifetime.
        unsafe { &*ptr.cast::<Self>() }
    }

    fn raw(&self) -> *mut sys::perf_event {
        self.0.get()
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
        // SAFETY: All members of the union are plain `u64`.
        unsafe { *self.attr().__bindgen_anon_3.config1.as_ref() }
    }

    /// `attr.config2`.
    pub(crate) fn config2(&self) -> u64 {
        // SAFETY: All members of the union are plain `u64`.
        unsafe { *self.attr().__bindgen_anon_4.config2.as_ref() }
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
        // SAFETY: By the type invariant the event is live.
        unsafe { (*self.raw()).cpu }
    }

    /// Rebinds the event to `cpu` (only from `event_init`, before perf installs it) and lets
    /// any CPU of that package read it.
    pub(crate) fn retarget(&self, cpu: u32) {
        let raw = self.raw();
        // SAFETY: In `event_init` the event is not installed yet: nothing else looks at
        // `cpu` or `event_caps` concurrently.
        unsafe {
            (*raw).cpu = cpu as c_int;
            (*raw).event_caps |= EV_CAP_READ_ACTIVE_PKG;
        }
    }

    /// The group leader (itself for a lone event).
    pub(crate) fn leader(&self) -> &Event {
        // SAFETY: A group leader outlives its siblings' `event_init` and callbacks.
        unsafe { Self::from_raw((*self.raw()).group_leader) }
    }

    /// Whether this is the leader of its group.
    pub(crate) fn is_leader(&self) -> bool {
        // SAFETY: By the type invariant the event is live.
        unsafe { (*self.raw()).group_leader == self.raw() }
    }

    /// Calls `f` for every sibling of this group leader that is not off.
    pub(crate) fn for_each_live_sibling(&self, mut f: impl FnMut(&Event)) {
        let raw = self.raw();
        // SAFETY: Called on the leader with the group's context mutex held (`event_init` of a
        // sibling), so the list is stable; each entry is the `sibling_list` member of a live
        // `perf_event`.
        unsafe {
            let head = &raw mut (*raw).sibling_list;
            let mut pos = (*head).next;
            while pos != head {
                let sibling: *mut sys::perf_event =
                    kernel::container_of!(pos, sys::perf_event, sibling_list);
                if (*sibling).state > STATE_OFF {
                    f(Self::from_raw(sibling));
                }
                pos = (*pos).next;
            }
        }
    }

    fn hw(&self) -> *mut sys::hw_perf_event__bindgen_ty_1__bindgen_ty_1 {
        // SAFETY: The driver owns the `hw` area of its own events: the "hardware" member of
        // the union is the one in use.
        unsafe { (*self.raw()).hw.__bindgen_anon_1.__bindgen_anon_1.as_mut() }
    }

    /// The driver's slot number for the event (`hw.idx`), -1 when it has none.
    pub(crate) fn idx(&self) -> i32 {
        // SAFETY: See `hw()`; callbacks of one event are serialised by perf.
        unsafe { (*self.hw()).idx }
    }

    /// Sets `hw.idx`.
    pub(crate) fn set_idx(&self, idx: i32) {
        // SAFETY: See `idx()`.
        unsafe { (*self.hw()).idx = idx };
    }

    /// The driver's encoding of what the event counts (`hw.config`).
    pub(crate) fn hw_config(&self) -> u64 {
        // SAFETY: See `idx()`.
        unsafe { (*self.hw()).config }
    }

    /// Sets `hw.config`.
    pub(crate) fn set_hw_config(&self, config: u64) {
        // SAFETY: See `idx()`.
        unsafe { (*self.hw()).config = config };
    }

    /// Address of the event's counter (`hw.event_base`): an MSR or an MCHBAR offset.
    pub(crate) fn counter_addr(&self) -> u32 {
        // SAFETY: See `idx()`. The driver stores 32-bit addresses only.
        unsafe { (*self.hw()).event_base as u32 }
    }

    /// Address of the event's control register (`hw.config_base`), if it has one.
    pub(crate) fn control_addr(&self) -> u32 {
        // SAFETY: See `idx()`.
        unsafe { (*self.hw()).config_base as u32 }
    }

    /// Sets the counter and control addresses.
    pub(crate) fn set_addrs(&self, counter: u32, control: u32) {
        // SAFETY: See `idx()`.
        unsafe {
            (*self.hw()).event_base = counter as usize;
            (*self.hw()).config_base = control as usize;
        }
    }

    /// `hw.state`, the `HES_*` flags.
    pub(crate) fn state(&self) -> u32 {
        // SAFETY: `hw.state` is only touched by the driver's callbacks, which perf serialises
        // per event.
        unsafe { (*self.raw()).hw.state as u32 }
    }

    /// Whether the event's counter is programmed and counting for it (`hw.flags`, which
    /// belongs to the driver).
    pub(crate) fn is_live(&self) -> bool {
        // SAFETY: See `idx()`.
        unsafe { (*self.hw()).flags & HW_LIVE != 0 }
    }

    /// Sets or clears the live flag.
    pub(crate) fn set_live(&self, live: bool) {
        // SAFETY: See `idx()`.
        unsafe {
            if live {
                (*self.hw()).flags |= HW_LIVE;
            } else {
                (*self.hw()).flags &= !HW_LIVE;
            }
        }
    }

    /// Sets `hw.state`.
    pub(crate) fn set_state(&self, state: u32) {
        // SAFETY: See `state()`.
        unsafe { (*self.raw()).hw.state = state as c_int };
    }

    /// The last raw counter value folded into the count (`hw.prev_count`).
    ///
    /// Shared between the collector's callbacks and timer and readers on other CPUs of the
    /// package, hence atomic.
    pub(crate) fn prev_count(&self) -> &Atomic<i64> {
        // SAFETY: `local64_t` is a 64-bit integer that perf only accesses atomically; the
        // event outlives the borrow.
        unsafe { Atomic::from_ptr((&raw mut (*self.raw()).hw.prev_count).cast::<i64>()) }
    }

    /// Adds `delta` to the event's count.
    pub(crate) fn add_count(&self, delta: u64) {
        // SAFETY: As for `prev_count()`: `count` is a `local64_t`.
        let count =
            unsafe { Atomic::<i64>::from_ptr((&raw mut (*self.raw()).count).cast::<i64>()) };
        count.add(delta as i64, ordering::Relaxed);
    }

    /// Whether `other` is on the same PMU.
    pub(crate) fn same_pmu(&self, other: &Event) -> bool {
        // SAFETY: By the type invariant both events are live.
        unsafe { (*self.raw()).pmu == (*other.raw()).pmu }
    }
}

/// The events added to a box, in the order they were added.
///
/// Perf calls `del` for every event before freeing it, and the driver removes the event from
/// its box in `del`: every stored pointer is alive while stored. That protocol is what makes
/// handing out `&Event` from here sound.
pub(crate) struct EventList<const N: usize> {
    events: [*const Event; N],
    len: usize,
}

// SAFETY: The pointers are only dereferenced under the protocol above, by the box's owner.
unsafe impl<const N: usize> Send for EventList<N> {}

impl<const N: usize> EventList<N> {
    /// An empty list.
    pub(crate) const fn new() -> Self {
        Self {
            events: [core::ptr::null(); N],
            len: 0,
        }
    }

    /// Number of events.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Appends `ev` (from `add`); `false` if full.
    pub(crate) fn push(&mut self, ev: &Event) -> bool {
        if self.len == N {
            return false;
        }
        self.events[self.len] = ev;
        self.len += 1;
        true
    }

    /// Forgets every event.
    pub(crate) fn clear(&mut self) {
        self.len = 0;
    }

    /// Removes `ev` (from `del`), keeping the others' order.
    pub(crate) fn remove(&mut self, ev: &Event) {
        if let Some(i) = self.events[..self.len]
            .iter()
            .position(|&p| core::ptr::eq(p, ev))
        {
            self.events.copy_within(i + 1..self.len, i);
            self.len -= 1;
        }
    }

    /// The event at `i`.
    pub(crate) fn get(&self, i: usize) -> &Event {
        // SAFETY: Stored events are alive (protocol above); `i` is bounds-checked.
        unsafe { &*self.events[..self.len][i] }
    }

    /// Iterates over the events.
    pub(crate) fn iter(&self) -> impl Iterator<Item = &Event> + '_ {
        (0..self.len).map(move |i| self.get(i))
    }
}

/// What a PMU does; perf's callbacks land here.
///
/// `add`, `del`, `start`, `stop` and `read` run with interrupts off under perf's raw context
/// lock: implementations must not sleep or take sleeping locks (nor Rust's `SpinLock`, which
/// lockdep's raw-lock nesting check rejects there).
pub(crate) trait PmuOps: Sync {
    /// The PMU's sysfs groups (`format/`, `events/`, `cpumask`).
    fn attrs(&self) -> &super::sysfs::PmuAttrs;
    /// Accepts or refuses a new event (process context).
    fn event_init(&self, ev: &Event) -> Result;
    /// Schedules the event onto the PMU.
    fn add(&self, ev: &Event, flags: u32) -> Result;
    /// Removes the event from the PMU.
    fn del(&self, ev: &Event, flags: u32);
    /// Starts counting.
    fn start(&self, ev: &Event, flags: u32);
    /// Stops counting.
    fn stop(&self, ev: &Event, flags: u32);
    /// Folds the hardware count into the event's count; may run on any CPU of the package.
    fn read(&self, ev: &Event);
    /// Perf starts (re)scheduling this PMU on the calling CPU.
    fn pmu_disable(&self);
    /// Perf is done (re)scheduling: program what changed.
    fn pmu_enable(&self);
}

/// A registered perf PMU.
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
    /// Registers a PMU named `name`, with the sysfs groups of `ops.attrs()`.
    pub(crate) fn register(
        name: CString,
        ops: T,
        module: &'static ThisModule,
    ) -> impl PinInit<Self, Error> {
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
            // SAFETY: `raw` is valid, zeroed and not yet registered. The callbacks match
            // perf's prototypes. `name` and `ops` live in `this`; `ops.attrs()` is pinned and
            // never changes (`PmuAttrs` invariant), so `attr_groups` stays valid.
            unsafe {
                (*raw).module = module.as_ptr();
                (*raw).task_ctx_nr = INVALID_CONTEXT;
                // Perf rejects exclude_* bits itself: the uncore cannot tell who caused an
                // event.
                (*raw).capabilities = sys::PERF_PMU_CAP_NO_EXCLUDE as c_int;
                (*raw).attr_groups = attr_groups;
                (*raw).event_init = Some(event_init_cb::<T>);
                (*raw).add = Some(add_cb::<T>);
                (*raw).del = Some(del_cb::<T>);
                (*raw).start = Some(start_cb::<T>);
                (*raw).stop = Some(stop_cb::<T>);
                (*raw).read = Some(read_cb::<T>);
                (*raw).pmu_enable = Some(pmu_enable_cb::<T>);
                (*raw).pmu_disable = Some(pmu_disable_cb::<T>);
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

    /// Moves this PMU's events from `from` to `to` (CPU hotplug, process context).
    pub(crate) fn migrate(&self, from: u32, to: u32) {
        // SAFETY: The PMU is registered (invariant); perf takes its own locks.
        unsafe { sys::perf_pmu_migrate_context(self.pmu.get(), from as c_int, to as c_int) };
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
            // SAFETY: Registered (invariant); after this perf no longer calls us.
            unsafe { sys::perf_pmu_unregister(self.pmu.get()) };
        }
    }
}

/// The registration behind a callback's event.
///
/// # Safety
///
/// `event` is a live event of a PMU registered by `PmuRegistration<T>`.
unsafe fn reg_of<'a, T: PmuOps>(
    event: *mut sys::perf_event,
) -> (&'a PmuRegistration<T>, &'a Event) {
    // SAFETY: Guaranteed by the caller; `event->pmu` was set by perf before the callback.
    unsafe {
        (
            PmuRegistration::<T>::from_pmu((*event).pmu),
            Event::from_raw(event),
        )
    }
}

/// # Safety
///
/// Called by perf with an event whose `pmu` is a `PmuRegistration<T>`.
unsafe extern "C" fn event_init_cb<T: PmuOps>(event: *mut sys::perf_event) -> c_int {
    // SAFETY: Guaranteed by perf for our own pmu.
    let (reg, ev) = unsafe { reg_of::<T>(event) };
    // Events of other PMUs are not ours to judge.
    if ev.attr_type() != reg.pmu_type() {
        return ENOENT.to_errno();
    }
    match reg.ops.event_init(ev) {
        Ok(()) => 0,
        Err(e) => e.to_errno(),
    }
}

/// # Safety
///
/// As for [`event_init_cb`].
unsafe extern "C" fn add_cb<T: PmuOps>(event: *mut sys::perf_event, flags: c_int) -> c_int {
    // SAFETY: Guaranteed by perf for our own pmu.
    let (reg, ev) = unsafe { reg_of::<T>(event) };
    match reg.ops.add(ev, flags as u32) {
        Ok(()) => 0,
        Err(e) => e.to_errno(),
    }
}

/// # Safety
///
/// As for [`event_init_cb`].
unsafe extern "C" fn del_cb<T: PmuOps>(event: *mut sys::perf_event, flags: c_int) {
    // SAFETY: Guaranteed by perf for our own pmu.
    let (reg, ev) = unsafe { reg_of::<T>(event) };
    reg.ops.del(ev, flags as u32);
}

/// # Safety
///
/// As for [`event_init_cb`].
unsafe extern "C" fn start_cb<T: PmuOps>(event: *mut sys::perf_event, flags: c_int) {
    // SAFETY: Guaranteed by perf for our own pmu.
    let (reg, ev) = unsafe { reg_of::<T>(event) };
    reg.ops.start(ev, flags as u32);
}

/// # Safety
///
/// As for [`event_init_cb`].
unsafe extern "C" fn stop_cb<T: PmuOps>(event: *mut sys::perf_event, flags: c_int) {
    // SAFETY: Guaranteed by perf for our own pmu.
    let (reg, ev) = unsafe { reg_of::<T>(event) };
    reg.ops.stop(ev, flags as u32);
}

/// # Safety
///
/// As for [`event_init_cb`].
unsafe extern "C" fn read_cb<T: PmuOps>(event: *mut sys::perf_event) {
    // SAFETY: Guaranteed by perf for our own pmu.
    let (reg, ev) = unsafe { reg_of::<T>(event) };
    reg.ops.read(ev);
}

/// # Safety
///
/// Called by perf with a `pmu` registered by `PmuRegistration<T>`.
unsafe extern "C" fn pmu_enable_cb<T: PmuOps>(pmu: *mut sys::pmu) {
    // SAFETY: Guaranteed by perf for our own pmu.
    unsafe { PmuRegistration::<T>::from_pmu(pmu) }
        .ops
        .pmu_enable();
}

/// # Safety
///
/// As for [`pmu_enable_cb`].
unsafe extern "C" fn pmu_disable_cb<T: PmuOps>(pmu: *mut sys::pmu) {
    // SAFETY: Guaranteed by perf for our own pmu.
    unsafe { PmuRegistration::<T>::from_pmu(pmu) }
        .ops
        .pmu_disable();
}
