// SPDX-License-Identifier: GPL-2.0

//! Module notifiers, told of the modules the module loader brings in, and whether a module is
//! loaded.
//!
//! C header: [`include/linux/module.h`](srctree/include/linux/module.h)
//!
//! The loader calls the module notifiers of a module that is coming after it has linked the
//! module and before the module's init runs. A notifier that fails stops the load: the module
//! is freed without having run, and `init_module()` fails with the notifier's error. Without
//! `CONFIG_MODULES` no module comes, and a registration, as in C, does nothing.

use core::marker::PhantomPinned;

use kernel::{
    bindings,
    ffi::{c_int, c_ulong, c_void},
    prelude::*,
    types::Opaque,
};

/// What a module notifier does when a module comes.
///
/// # Context
///
/// `coming` runs in process context, in the task loading the module, under the notifier
/// chain's read lock: it may sleep, and it may run for several modules at once.
pub(crate) trait ModuleNotifier: Send + Sync + 'static {
    /// The module called `name` is coming: linked, its init not yet run. An error stops the
    /// load with that error.
    fn coming(&self, name: &CStr) -> Result;
}

/// A module notifier on the module loader's chain, taken off when dropped.
///
/// # Invariants
///
/// With `CONFIG_MODULES`, `nb` is on the module notifier chain, its `notifier_call` this
/// type's `call`; `notifier` lives as long as `nb` (both are pinned in `self`).
#[pin_data(PinnedDrop)]
pub(crate) struct Registration<T: ModuleNotifier> {
    notifier: T,
    #[pin]
    nb: Opaque<bindings::notifier_block>,
    #[pin]
    _pin: PhantomPinned,
}

// SAFETY: After registration `nb` is only touched by the notifier chain, under its lock;
// `notifier` is `Send`.
unsafe impl<T: ModuleNotifier> Send for Registration<T> {}
// SAFETY: `&self` gives nothing; the chain's callbacks reach `&T`, which is `Sync`.
unsafe impl<T: ModuleNotifier> Sync for Registration<T> {}

impl<T: ModuleNotifier> Registration<T> {
    /// Puts `notifier` on the chain: it is told of every module that comes from now on.
    pub(crate) fn register(notifier: T) -> impl PinInit<Self, Error> {
        try_pin_init!(Self {
            // First: the chain may call `notifier` as soon as `nb` is on it.
            notifier,
            nb <- Opaque::try_ffi_init(|nb: *mut bindings::notifier_block| -> Result {
                // SAFETY: Plain C data; all-zero is valid (no callback, no next, priority 0).
                let mut block: bindings::notifier_block = unsafe { core::mem::zeroed() };
                block.notifier_call = Some(Self::call);
                // SAFETY: `nb` is valid for writes (the initialiser's slot).
                unsafe { nb.write(block) };
                // SAFETY: `nb` is initialised, pinned and on no chain; `Self::call` has the
                // notifier's prototype, and `nb` is the `nb` of a `Self` whose `notifier` is
                // initialised. If registration fails, nothing was registered.
                // INVARIANT: on the chain with `Self::call`; `drop` takes it off.
                #[cfg(CONFIG_MODULES)]
                kernel::error::to_result(unsafe { bindings::register_module_notifier(nb) })?;
                Ok(())
            }),
            _pin: PhantomPinned,
        }? Error)
    }

    /// # Safety
    ///
    /// Called by the module notifier chain: `nb` is the `nb` of a live `Registration<T>`, and
    /// `data` the `struct module` the event is about, alive for the call.
    unsafe extern "C" fn call(
        nb: *mut bindings::notifier_block,
        action: c_ulong,
        data: *mut c_void,
    ) -> c_int {
        if action != bindings::module_state_MODULE_STATE_COMING as c_ulong {
            return bindings::NOTIFY_DONE as c_int;
        }
        // SAFETY: As required of `call`: `nb` is the `nb` field of a live `Self`, and
        // `Opaque<T>` has the layout of `T`.
        let this = unsafe {
            &*kernel::container_of!(nb.cast::<Opaque<bindings::notifier_block>>(), Self, nb)
        };
        // SAFETY: As required of `call`; a module's `name` is NUL-terminated.
        let name = unsafe { CStr::from_char_ptr((*data.cast::<bindings::module>()).name.as_ptr()) };
        match this.notifier.coming(name) {
            Ok(()) => bindings::NOTIFY_DONE as c_int,
            // notifier_from_errno(): stop the chain, with the error for the loader.
            Err(e) => {
                bindings::NOTIFY_STOP_MASK as c_int | (bindings::NOTIFY_OK as c_int - e.to_errno())
            }
        }
    }
}

#[pinned_drop]
impl<T: ModuleNotifier> PinnedDrop for Registration<T> {
    fn drop(self: Pin<&mut Self>) {
        #[cfg(CONFIG_MODULES)]
        // SAFETY: On the chain (invariant). Once this returns no callback runs: it takes the
        // chain's lock for writing, which waits for the calls under its read lock.
        unsafe {
            bindings::unregister_module_notifier(self.nb.get())
        };
    }
}

/// Whether the loadable module `name` is loaded (never true of a built-in), from the module
/// kset itself, not a path under `/sys`: the answer does not depend on the caller's mount
/// namespace. A built-in with parameters has a kobject there too, without a module behind it.
#[cfg(CONFIG_SYSFS)]
pub(crate) fn is_loaded(name: &CStr) -> bool {
    // SAFETY: `name` is a C string; the lookup returns the kobject with a reference, or NULL.
    let kobj = unsafe { bindings::kset_find_obj(module_kset(), name.as_char_ptr()) };
    if kobj.is_null() {
        return false;
    }
    // SAFETY: Every kobject of the module kset is the `kobj` of a `module_kobject`, which our
    // reference keeps alive, and with it the module that embeds it.
    let loaded = unsafe {
        !(*kernel::container_of!(kobj, bindings::module_kobject, kobj))
            .mod_
            .is_null()
    };
    // SAFETY: Drops the reference the lookup took; `kobj` is not used after.
    unsafe { bindings::kobject_put(kobj) };
    loaded
}

// Out of tree: begin
/// The kset of every module's kobject, which a module reads from its own kobject: it cannot
/// name `module_kset`, which is not exported.
#[cfg(all(CONFIG_SYSFS, MODULE))]
fn module_kset() -> *mut bindings::kset {
    // Only its address is taken: that a member is empty in this configuration (which
    // `improper_ctypes` warns of) does not matter.
    #[allow(improper_ctypes)]
    extern "C" {
        static __this_module: kernel::types::Opaque<bindings::module>;
    }
    // SAFETY: This module's struct lives while its code runs; its kobject's `kset`,
    // `module_kset`, is set before the module's init runs and never changes.
    unsafe { (*__this_module.get()).mkobj.kobj.kset }
}

// Out of tree: end
/// The kset of every module's kobject (`/sys/module`).
#[cfg(all(CONFIG_SYSFS, not(MODULE)))] // Out of tree: a module reads it from its own kobject.
#[cfg(CONFIG_SYSFS)]
fn module_kset() -> *mut bindings::kset {
    // SAFETY: Set by an initcall before any driver's; never changed.
    unsafe { bindings::module_kset }
}
