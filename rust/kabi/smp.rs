// SPDX-License-Identifier: GPL-2.0

//! Running a function on another CPU: [`call_on_cpu`] waits for it, [`CallSingleData`] does
//! not.
//!
//! C header: [`include/linux/smp.h`](srctree/include/linux/smp.h)

use core::marker::PhantomData;

use kernel::{bindings, cpu::CpuId, error::to_result, ffi, prelude::*, types::Opaque};

/// Runs `f` on CPU `cpu` and waits for it (`smp_call_function_single()`): what `f` returned,
/// or [`ENXIO`] if `cpu` is offline, in which case `f` did not run.
///
/// `f` runs with interrupts off, in hard-irq context on another CPU (an IPI) or on this one
/// if `cpu` is this CPU: it must not sleep (`CONFIG_DEBUG_ATOMIC_SLEEP` reports it). Once `f`
/// has started, `cpu` stays online until it returns, since taking a CPU down needs it to run
/// `stop_machine`'s work first.
///
/// Call from task context with interrupts on: the kernel warns otherwise (two CPUs calling
/// each other with interrupts off would wait for ever). No lock is taken, so a caller may hold
/// a mutex that CPU hotplug takes.
pub(crate) fn call_on_cpu<R: Send, F: FnOnce() -> R + Send>(cpu: CpuId, f: F) -> Result<R> {
    /// The call's closure in, its result out.
    struct Call<F, R> {
        f: Option<F>,
        r: Option<R>,
    }

    /// # Safety
    ///
    /// `info` points to a live `Call<F, R>` that nothing else accesses during the call.
    unsafe extern "C" fn run<F: FnOnce() -> R, R>(info: *mut ffi::c_void) {
        // SAFETY: The function's requirement, kept by `call_on_cpu`: `call` lives on its stack
        // until the synchronous call returns, and it touches `call` only after that.
        let call = unsafe { &mut *info.cast::<Call<F, R>>() };
        if let Some(f) = call.f.take() {
            call.r = Some(f());
        }
    }

    let mut call = Call {
        f: Some(f),
        r: None,
    };
    #[allow(clippy::useless_conversion)] // Out of tree: 7.2's `wait` is an `int`.
    // SAFETY: `run::<F, R>` matches `call`'s type. With `wait` set, the call returns only
    // after `run` has (or never will: an offline CPU is refused before it is sent), so `call`
    // outlives every access through the pointer, and this function does not touch `call`
    // meanwhile. `F` and `R` are `Send`: the closure runs and its result is made on `cpu`.
    to_result(unsafe {
        bindings::smp_call_function_single(
            cpu.into(),
            Some(run::<F, R>),
            (&raw mut call).cast(),
            true.into(), // Out of tree: 7.2's `wait` is an `int`.
        )
    })?;
    call.r.ok_or(ENXIO)
}

/// A call of [`CallSingleDataCallback::run`] on a CPU that the sender does not wait for
/// (`smp_call_function_single_async()`): it may be sent from any context but NMI, hard irq
/// included.
/// It is a field of the `T` whose `run` it calls, which finds `T` from it
/// ([`HasCallSingleData`]), as an `HrTimer` finds its owner.
///
/// `run` runs on the target CPU with interrupts off: from the IPI, or from that CPU's idle loop
/// or its last flush before it goes offline, or at once inside `call` if the target is the
/// sending CPU. `T` is shared with it, so it is `Send + Sync`. The kernel marks the call idle
/// just before `run` starts, so `run` may send it again.
///
/// Nothing here keeps `T` alive: the caller of [`CallSingleData::call`] promises that it
/// lives until its `run` says it is done with it. So `run` gets a raw pointer, and its last
/// access to `T` is that signal, an atomic store: a reference to `T` would have to outlive it.
///
/// # Invariants
///
/// `csd` is initialised by [`CallSingleData::new`], its `info` its own address: the value only
/// exists pinned (built in place by a [`PinInit`], and `!Unpin`).
#[pin_data]
#[repr(transparent)]
pub(crate) struct CallSingleData<T> {
    #[pin]
    csd: Opaque<bindings::__call_single_data>,
    _owner: PhantomData<T>,
}

// SAFETY: The csd is written by `new` before it is shared, and then only by `call`, whose
// callers serialise it, and by the kernel's IPI code, under the csd's own lock flag: no
// `&self` method touches it otherwise.
unsafe impl<T> Send for CallSingleData<T> {}
// SAFETY: As above.
unsafe impl<T> Sync for CallSingleData<T> {}

/// What a [`CallSingleData`] calls.
pub(crate) trait CallSingleDataCallback {
    /// Runs on the CPU the call was sent to, with interrupts off; it must not sleep.
    ///
    /// # Safety
    ///
    /// `this` points to the `Self` whose [`CallSingleData`] was sent, alive as the sender
    /// promised: until this function signals that it is done with it.
    unsafe fn run(this: *const Self);
}

/// A type that holds a [`CallSingleData<T>`] for itself.
///
/// # Safety
///
/// [`HasCallSingleData::csd_container_of`] returns the `Self` whose `CallSingleData<Self>`
/// field its argument is.
pub(crate) unsafe trait HasCallSingleData: Sized {
    /// The `Self` a field belongs to.
    ///
    /// # Safety
    ///
    /// `ptr` points to the `CallSingleData<Self>` field of a `Self`.
    unsafe fn csd_container_of(ptr: *const CallSingleData<Self>) -> *const Self;
}

impl<T: HasCallSingleData + CallSingleDataCallback + Send + Sync> CallSingleData<T> {
    /// An idle call (`INIT_CSD()`) of `T::run`.
    pub(crate) fn new() -> impl PinInit<Self> {
        pin_init!(Self {
            csd <- Opaque::ffi_init(|slot: *mut bindings::__call_single_data| {
                let csd = bindings::__call_single_data {
                    func: Some(Self::run_cb),
                    info: slot.cast(),
                    ..pin_init::zeroed()
                };
                // SAFETY: `slot` is valid for writes, and pinned with the owner.
                // INVARIANT: `info` is the csd's address.
                unsafe { slot.write(csd) }
            }),
            _owner: PhantomData,
        })
    }

    /// Sends the call to `cpu`: [`EBUSY`] if it is still on its way from the last time,
    /// [`ENXIO`] if `cpu` is offline; `T::run` runs only if this returns `Ok`.
    ///
    /// # Safety
    ///
    /// `self` is the field of a `T` ([`HasCallSingleData`]) that stays alive until this returns
    /// and, if it returns `Ok`, until its `run` signals that it is done (which may happen
    /// before this returns, if `cpu` is this CPU). Calls of `call` on the same value are
    /// serialised: the kernel's test of the call's lock flag is not atomic.
    pub(crate) unsafe fn call(&self, cpu: CpuId) -> Result {
        // SAFETY: The csd was initialised by `new` and is pinned (type invariant). The caller
        // serialises the sends and keeps the owner alive for `run_cb`, which the kernel calls
        // with `info`, the csd's address.
        to_result(unsafe { bindings::smp_call_function_single_async(cpu.into(), self.csd.get()) })
    }

    /// # Safety
    ///
    /// Called by the kernel's IPI code with the `info` that `new` set: the address of the
    /// csd, the field of a `T` that `call`'s caller keeps alive.
    unsafe extern "C" fn run_cb(info: *mut ffi::c_void) {
        // `CallSingleData` is a transparent wrapper of the csd.
        let csd = info.cast::<Self>().cast_const();
        // SAFETY: `csd` is the field of a `T` (`call`'s requirement, `HasCallSingleData`).
        let this = unsafe { T::csd_container_of(csd) };
        // SAFETY: `this` is the owner, alive as `call`'s caller promised.
        unsafe { T::run(this) };
    }
}
