// SPDX-License-Identifier: GPL-2.0

//! The host bridge's configuration space and the MCHBAR window (production module only).
//!
//! 7.3's Rust can map a BAR of a bound PCI device, but MCHBAR is a configuration register of
//! 0:0.0, which the driver must not bind (`ie31200_edac` may own it): the C glue reads the
//! configuration with `pci_get_domain_bus_and_slot`, and the window is mapped with `ioremap`
//! (`kernel::io::IoMem` needs a bound device; 7.2's and 7.3's `Mmio` differ in shape).

use core::ptr::NonNull;

use kernel::{bindings, error::to_result, ffi::c_void, prelude::*};

use super::perf_sys as sys;

/// Vendor and device IDs of 0:0.0 and one dword of its configuration space.
pub(crate) fn host_bridge_read(offset: u16) -> Result<(u16, u16, u32)> {
    let (mut vendor, mut device, mut val) = (0u16, 0u16, 0u32);
    // SAFETY: The glue takes and drops its own reference to the device.
    to_result(unsafe {
        sys::skl_glue_host_bridge_read(&mut vendor, &mut device, offset, &mut val)
    })?;
    Ok((vendor, device, val))
}

/// A mapped MMIO window.
///
/// # Invariants
///
/// `addr` is an `ioremap` mapping of `size` bytes, unmapped on drop.
pub(crate) struct IoMap {
    addr: NonNull<c_void>,
    size: usize,
}

// SAFETY: An MMIO mapping may be read from any CPU.
unsafe impl Send for IoMap {}
// SAFETY: Reads through `&self` are plain MMIO loads.
unsafe impl Sync for IoMap {}

impl IoMap {
    /// Maps `size` bytes at physical address `phys`, for [`IoMap::read32`].
    ///
    /// # Safety
    ///
    /// `phys..phys + size` is a device register window whose 32-bit reads have no side
    /// effect (such as the IMC's free-running counters in MCHBAR): `read32` reads any aligned
    /// word of it, and a read of another device's register can acknowledge an interrupt,
    /// pop a FIFO or wake a device.
    pub(crate) unsafe fn new(phys: u64, size: usize) -> Result<Self> {
        // SAFETY: `ioremap` refuses system RAM and returns NULL on failure, which is checked.
        let addr = unsafe { bindings::ioremap(phys, size) };
        // INVARIANT: a successful mapping of `size` bytes.
        Ok(Self {
            addr: NonNull::new(addr).ok_or(ENOMEM)?,
            size,
        })
    }

    /// A 32-bit read at `offset`; `EINVAL` outside the window or unaligned.
    pub(crate) fn read32(&self, offset: u32) -> Result<u32> {
        let off = offset as usize;
        if off % 4 != 0 || off + 4 > self.size {
            return Err(EINVAL);
        }
        // SAFETY: `offset` is aligned and inside the mapping (invariant).
        Ok(unsafe { bindings::readl(self.addr.as_ptr().add(off)) })
    }
}

impl Drop for IoMap {
    fn drop(&mut self) {
        // SAFETY: Mapped by `new` (invariant), unmapped once here.
        unsafe { bindings::iounmap(self.addr.as_ptr()) };
    }
}
