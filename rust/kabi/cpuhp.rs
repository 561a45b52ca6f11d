// SPDX-License-Identifier: GPL-2.0

//! CPU hotplug notifications (7.3 has no Rust abstraction): a multi-instance state in
//! `CPUHP_AP_ONLINE_DYN`, whose callbacks run on the CPU coming up or going down, before perf's
//! own teardown (`CPUHP_AP_PERF_ONLINE`), so events can still be migrated.

use core::marker::PhantomPinned;

use kernel::{bindings, error::to_result, ffi::c_int, prelude::*, types::Opaque};

use super::perf_sys::{skl_glue_cpuhp_add_instance, skl_glue_cpuhp_remove, skl_glue_cpuhp_setup};

/// What to do when a CPU comes or goes.
pub(crate) trait HotplugOps: Sync {
    /// `cpu` is online (also called for every online CPU at registration).
    fn online(&self, cpu: u32);
    /// `cpu` is about to go offline.
    fn offline(&self, cpu: u32);
}

/// A registered hotplug instance calling `T`.
///
/// # Invariants
///
/// While `state > 0`, `node` is an instance of hotplug state `state`.
#[pin_data(PinnedDrop)]
pub(crate) struct Hotplug<T: HotplugOps> {
    #[pin]
    node: Opaque<bindings::hlist_node>,
    state: c_int,
    ops: T,
    #[pin]
    _pin: PhantomPinned,
}

impl<T: HotplugOps> Hotplug<T> {
    /// Registers `ops` under `name`; `online` runs for every online CPU before this returns.
    pub(crate) fn new(name: &'static CStr, ops: T) -> impl PinInit<Self, Error> {
        try_pin_init!(Self {
            node <- Opaque::zeroed(),
            state: 0,
            ops,
            _pin: PhantomPinned,
        })
        .pin_chain(move |this| {
            // SAFETY: `name` is static; the callbacks have the prototypes the glue expects.
            let state = unsafe {
                skl_glue_cpuhp_setup(
                    name.as_char_ptr(),
                    Some(online_cb::<T>),
                    Some(offline_cb::<T>),
                )
            };
            to_result(state)?;
            // SAFETY: `node` is pinned in `this` and stays registered until drop.
            let ret = unsafe { skl_glue_cpuhp_add_instance(state, this.node.get()) };
            if let Err(e) = to_result(ret) {
                // SAFETY: The state exists; the node was not added.
                unsafe { skl_glue_cpuhp_remove(state, core::ptr::null_mut()) };
                return Err(e);
            }
            // SAFETY: Only a plain field is written; nothing is moved out of the pinned value.
            // INVARIANT: the node is an instance of `state`.
            unsafe { this.get_unchecked_mut().state = state };
            Ok(())
        })
    }

    /// # Safety
    ///
    /// `node` is the `node` of a live `Hotplug<T>`.
    unsafe fn from_node<'a>(node: *mut bindings::hlist_node) -> &'a Self {
        // SAFETY: Guaranteed by the caller.
        unsafe { &*kernel::container_of!(node.cast::<Opaque<bindings::hlist_node>>(), Self, node) }
    }
}

// SAFETY: The hotplug core serialises callbacks; `ops` is `Sync` and the node is only touched
// by the hotplug core under its lock.
unsafe impl<T: HotplugOps + Send> Send for Hotplug<T> {}
// SAFETY: As above.
unsafe impl<T: HotplugOps> Sync for Hotplug<T> {}

#[pinned_drop]
impl<T: HotplugOps> PinnedDrop for Hotplug<T> {
    fn drop(self: Pin<&mut Self>) {
        if self.state > 0 {
            // SAFETY: Registered (invariant). No callback runs after this returns.
            unsafe { skl_glue_cpuhp_remove(self.state, self.node.get()) };
        }
    }
}

/// # Safety
///
/// Called by the hotplug core with a node registered by `Hotplug<T>`.
unsafe extern "C" fn online_cb<T: HotplugOps>(cpu: u32, node: *mut bindings::hlist_node) -> c_int {
    // SAFETY: Guaranteed by the hotplug core.
    unsafe { Hotplug::<T>::from_node(node) }.ops.online(cpu);
    0
}

/// # Safety
///
/// As for [`online_cb`].
unsafe extern "C" fn offline_cb<T: HotplugOps>(cpu: u32, node: *mut bindings::hlist_node) -> c_int {
    // SAFETY: Guaranteed by the hotplug core.
    unsafe { Hotplug::<T>::from_node(node) }.ops.offline(cpu);
    0
}
