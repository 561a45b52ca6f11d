// SPDX-License-Identifier: GPL-2.0

//! Model-specific registers (x86).
//!
//! C header: [`arch/x86/include/asm/msr.h`](srctree/arch/x86/include/asm/msr.h)
//!
//! The accesses here are the `_safe` ones: an MSR the CPU does not have, or a value it
//! refuses, raises #GP, which the kernel's exception table turns into [`EIO`]. A hypervisor
//! may refuse an MSR the same way, or read it as 0 without a fault: a read that succeeds does
//! not prove the register exists.

use kernel::{bindings, cpu::CpuId, error::to_result, prelude::*};

use super::perf_sys as sys;

/// Reads MSR `msr` on the calling CPU (`rdmsrq_safe()`): its value, or [`EIO`] if the read
/// faulted.
///
/// The caller decides which CPU that is: from a context that may migrate, pin it first.
pub(crate) fn read_safe(msr: u32) -> Result<u64> {
    let mut val = 0;
    // SAFETY: Reading an MSR changes no memory; the fault of a missing one is caught.
    to_result(unsafe { sys::rust_helper_rdmsrq_safe(msr, &mut val) })?;
    Ok(val)
}

/// Writes `val` to MSR `msr` on the calling CPU (`wrmsrq_safe()`): [`EIO`] if the write
/// faulted.
///
/// # Safety
///
/// An MSR may decide how the CPU reaches memory (paging, memory types, the system-call entry,
/// speculation controls): the caller guarantees that writing `val` to `msr` changes none of
/// that, as writing a performance-monitoring unit's counter or control does.
pub(crate) unsafe fn write_safe(msr: u32, val: u64) -> Result {
    // SAFETY: The caller guarantees that the write cannot break memory safety; its fault is
    // caught.
    to_result(unsafe { sys::rust_helper_wrmsrq_safe(msr, val) })
}

/// Writes `val` to MSR `msr` on CPU `cpu` (`wrmsrq_safe_on_cpu()`), and waits for it: an
/// error if `cpu` is offline, [`EIO`] if the write faulted.
///
/// Process context: it may sleep.
///
/// # Safety
///
/// As for [`write_safe`].
pub(crate) unsafe fn write_safe_on_cpu(cpu: CpuId, msr: u32, val: u64) -> Result {
    // SAFETY: The caller guarantees that the write cannot break memory safety; the remote
    // CPU's fault is caught there, and an offline CPU is an error.
    to_result(unsafe { bindings::wrmsrq_safe_on_cpu(cpu.as_u32(), msr, val) })
}
