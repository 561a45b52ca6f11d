// SPDX-License-Identifier: GPL-2.0

//! The host bridge's configuration space, where MCHBAR is (production module only).
//!
//! 7.3's Rust can map a BAR of a bound PCI device, but MCHBAR is a configuration register of
//! 0:0.0, which the driver must not bind (`ie31200_edac` may own it): the configuration is read
//! through the series' `pci::Device::get_domain_bus_and_slot()`, and the window is mapped as the
//! series' `kernel::io::mem::UnboundIoMem` (`kernel::io::IoMem` needs a bound device).

use super::pci_slot::PciSlot as _;
use kernel::{pci, prelude::*};

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
