// SPDX-License-Identifier: GPL-2.0

//! Keeping a module from loading: a module notifier that fails its `MODULE_STATE_COMING`.
//!
//! C header: [`include/linux/module.h`](srctree/include/linux/module.h)
//!
//! The module loader calls the notifiers of a module that is coming after it has linked it
//! and before its init runs; one that returns an error stops the load, and the module is
//! freed without having run.

use core::marker::PhantomPinned;

use kernel::{
    bindings,
    error::to_result,
    ffi::{c_int, c_ulong, c_void},
    prelude::*,
    types::Opaque,
    ModuleMetadata,
};

/// While it lives, loading the module `intel_uncore` fails with `EBUSY` and one log line,
/// before its init runs: its PMUs would clash with ours (a sysfs duplicate-name backtrace,
/// broken PMUs).
///
/// # Invariants
///
/// While `registered`, `nb` is on the module notifier chain.
#[pin_data(PinnedDrop)]
pub(crate) struct IntelUncoreBlock {
    #[pin]
    nb: Opaque<bindings::notifier_block>,
    registered: bool,
    #[pin]
    _pin: PhantomPinned,
}

// SAFETY: After registration `nb` is only touched by the notifier chain, under its own lock.
unsafe impl Send for IntelUncoreBlock {}
// SAFETY: As above; `&self` reads nothing.
unsafe impl Sync for IntelUncoreBlock {}

impl IntelUncoreBlock {
    /// Starts refusing `intel_uncore`.
    pub(crate) fn new() -> impl PinInit<Self, Error> {
        try_pin_init!(Self {
            nb <- Opaque::zeroed(),
            registered: false,
            _pin: PhantomPinned,
        })
        .pin_chain(|this| {
            let nb = this.nb.get();
            // SAFETY: `nb` is zeroed, pinned and not yet registered; the callback has the
            // notifier's prototype.
            unsafe {
                (*nb).notifier_call = Some(coming_cb);
                to_result(bindings::register_module_notifier(nb))?;
            }
            // SAFETY: Only a plain field is written; nothing is moved out of the pinned value.
            // INVARIANT: registered just above.
            unsafe { this.get_unchecked_mut().registered = true };
            Ok(())
        })
    }
}

#[pinned_drop]
impl PinnedDrop for IntelUncoreBlock {
    fn drop(self: Pin<&mut Self>) {
        if self.registered {
            // SAFETY: On the chain (invariant); once this returns, no callback runs (the chain
            // is an RCU-protected list its removal waits for).
            unsafe { bindings::unregister_module_notifier(self.nb.get()) };
        }
    }
}

/// # Safety
///
/// Called by the module loader's notifier chain: `data` is the `struct module` the event is
/// about, alive for the call.
unsafe extern "C" fn coming_cb(
    _nb: *mut bindings::notifier_block,
    action: c_ulong,
    data: *mut c_void,
) -> c_int {
    if action != bindings::module_state_MODULE_STATE_COMING as c_ulong {
        return bindings::NOTIFY_DONE as c_int;
    }
    // SAFETY: As required of `coming_cb`; a module's `name` is NUL-terminated.
    let name = unsafe { CStr::from_char_ptr((*data.cast::<bindings::module>()).name.as_ptr()) };
    if name.to_bytes() != b"intel_uncore" {
        return bindings::NOTIFY_DONE as c_int;
    }
    let ours = <crate::LocalModule as ModuleMetadata>::NAME
        .to_str()
        .unwrap_or("?");
    pr_err!(
        "intel_uncore may not load while {ours} holds the uncore_* PMU names: rmmod {ours} first\n"
    );
    // notifier_from_errno(-EBUSY): stop the chain, and make the load fail with EBUSY.
    bindings::NOTIFY_STOP_MASK as c_int | (bindings::NOTIFY_OK as c_int - EBUSY.to_errno())
}
