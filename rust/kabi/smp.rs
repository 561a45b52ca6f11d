// SPDX-License-Identifier: GPL-2.0

//! Running a function on another CPU.
//!
//! C header: [`include/linux/smp.h`](srctree/include/linux/smp.h)

use kernel::{bindings, cpu::CpuId, error::to_result, ffi, prelude::*};

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
