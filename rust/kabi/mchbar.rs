// SPDX-License-Identifier: GPL-2.0

//! The host bridge's configuration space and the MCHBAR window (production module only).
//!
//! 7.3's Rust can map a BAR of a bound PCI device, but MCHBAR is a configuration register of
//! 0:0.0, which the driver must not bind (`ie31200_edac` may own it): the configuration is read
//! through the series' `pci::Device::get_domain_bus_and_slot()`, and the window is mapped with
//! `ioremap` (`kernel::io::IoMem` needs a bound device; 7.2's and 7.3's `Mmio` differ in shape).

use core::ptr::NonNull;

use super::pci_slot::PciSlot as _;
use kernel::{bindings, ffi::c_void, pci, prelude::*};

/// Vendor and device IDs of PCI 0:0.0 and the dwords at `offsets` of its configuration space,
/// all of one device, read without binding a driver to it: `ENODEV` if there is no such device
/// or it is gone, `EINVAL` for an offset outside its configuration space, `EIO` if a read fails.
pub(crate) fn host_bridge_read<const N: usize>(offsets: [u16; N]) -> Result<(u16, u16, [u32; N])> {
    let bridge = pci::Device::get_domain_bus_and_slot(0, 0, 0).ok_or(ENODEV)?;
    let mut vals = [0; N];
    for (val, offset) in vals.iter_mut().zip(offsets) {
        *val = bridge.read_config_dword(offset)?;
    }
    Ok((bridge.vendor_id().as_raw(), bridge.device_id(), vals))
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
