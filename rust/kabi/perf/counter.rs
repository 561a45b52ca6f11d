// SPDX-License-Identifier: GPL-2.0

//! Perf events the kernel opens for itself.

use core::ptr::{null_mut, NonNull};

use kernel::{cpu::CpuId, error::from_err_ptr, prelude::*};

use super::super::perf_sys as sys;

/// A counting event the kernel opened on one CPU (`perf_event_create_kernel_counter`), of no
/// task and with no overflow handler; released on drop, which may sleep (process context).
///
/// [`crate::perf`]'s example opens one on a PMU of its own. A disabled event counts nothing:
///
/// ```
/// use kernel::{bindings, cpu::CpuId, perf::KernelCounter};
///
/// let dummy = KernelCounter::new(
///     bindings::perf_type_id_PERF_TYPE_SOFTWARE,
///     bindings::perf_sw_ids_PERF_COUNT_SW_DUMMY.into(),
///     CpuId::current(),
///     true,
/// )?;
/// assert_eq!(dummy.read(), 0);
/// # Ok::<(), Error>(())
/// ```
///
/// # Invariants
///
/// `event` was returned by `perf_event_create_kernel_counter` and is not released yet.
pub(crate) struct KernelCounter {
    event: NonNull<sys::perf_event>,
}

// SAFETY: Perf takes a kernel event's own locks for `perf_event_read_value` and
// `perf_event_release_kernel`: any thread in process context may call them.
unsafe impl Send for KernelCounter {}
// SAFETY: As above; `&self` only reads, under the event's context mutex.
unsafe impl Sync for KernelCounter {}

impl KernelCounter {
    /// Opens an event that counts `config` of the PMU of type `type_` on `cpu`. A `disabled`
    /// event is never scheduled: it only names its PMU. Process context: it may sleep.
    pub(crate) fn new(type_: u32, config: u64, cpu: CpuId, disabled: bool) -> Result<Self> {
        let mut attr = sys::perf_event_attr {
            type_,
            size: core::mem::size_of::<sys::perf_event_attr>() as u32,
            config,
            ..Default::default()
        };
        attr.set_disabled(disabled.into());
        // SAFETY: `attr` is a valid attribute for the call, which copies it. No task and no
        // overflow handler: a counting event of one CPU (a CPU that is offline fails).
        let event = from_err_ptr(unsafe {
            sys::perf_event_create_kernel_counter(
                &mut attr,
                i32::from(cpu),
                null_mut(),
                None,
                null_mut(),
            )
        })?;
        // SAFETY: `perf_event_create_kernel_counter` returns an event or an error pointer,
        // never NULL; the error is out above.
        let event = unsafe { NonNull::new_unchecked(event) };
        // INVARIANT: Just created.
        Ok(Self { event })
    }

    /// The event's count since it was opened (`perf_event_read_value`): an active event is
    /// read on a CPU that may read it, by an IPI if need be. Process context: it may sleep.
    #[allow(dead_code)] // Out of tree: the driver opens only a disabled event.
    pub(crate) fn read(&self) -> u64 {
        let (mut enabled, mut running) = (0, 0);
        // SAFETY: The event is live (invariant); the two times are written before return.
        unsafe { sys::perf_event_read_value(self.event.as_ptr(), &mut enabled, &mut running) }
    }

    /// The event, for what this type does not offer. It lives as long as `self`.
    pub(crate) fn as_raw(&self) -> *mut sys::perf_event {
        self.event.as_ptr()
    }
}

impl Drop for KernelCounter {
    fn drop(&mut self) {
        // SAFETY: The event is live (invariant) and nobody uses it after this. The call
        // returns 0 whatever happens.
        unsafe { sys::perf_event_release_kernel(self.event.as_ptr()) };
    }
}
