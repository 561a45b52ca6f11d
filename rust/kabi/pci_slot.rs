// SPDX-License-Identifier: GPL-2.0

//! Out of tree only: `pci::Device::get_domain_bus_and_slot()` and `read_config_dword()`, which
//! patch 16 of the series adds to `kernel::pci` (in tree they are the crate's and this file is
//! not there). A trait here, so that the caller's lines are the same in both builds.

use core::ptr::NonNull;

use kernel::{bindings, pci, prelude::*, sync::aref::ARef};

/// The series' PCI lookup by address and configuration read of an unbound device, for kernels
/// without them.
pub(crate) trait PciSlot {
    /// The device at `devfn` of bus `bus` in domain `domain`, bound to a driver or not.
    fn get_domain_bus_and_slot(domain: i32, bus: u32, devfn: u32) -> Option<ARef<pci::Device>>;

    /// The configuration dword at `offset`: `EINVAL` if unaligned or beyond the configuration
    /// space, `ENODEV` if the device is gone, `EIO` if the read fails otherwise.
    fn read_config_dword(&self, offset: u16) -> Result<u32>;
}

/// `dev`'s C structure: `pci::Device` is a transparent wrapper of `bindings::pci_dev` (its
/// `as_raw` is private to the crate).
fn as_raw(dev: &pci::Device) -> *mut bindings::pci_dev {
    core::ptr::from_ref(dev).cast_mut().cast()
}

impl PciSlot for pci::Device {
    fn get_domain_bus_and_slot(domain: i32, bus: u32, devfn: u32) -> Option<ARef<pci::Device>> {
        // SAFETY: The lookup takes any numbers. It returns a `struct pci_dev` with a reference
        // taken for the caller, or NULL.
        let pdev = unsafe { bindings::pci_get_domain_bus_and_slot(domain, bus, devfn) };
        let pdev = NonNull::new(pdev.cast::<pci::Device>())?;
        // SAFETY: `pdev` is a valid `struct pci_dev` (`pci::Device` wraps it transparently),
        // whose reference, which the lookup took, the `ARef` owns.
        Some(unsafe { ARef::from_raw(pdev) })
    }

    fn read_config_dword(&self, offset: u16) -> Result<u32> {
        // SAFETY: A `pci::Device` is a valid `struct pci_dev` (its type invariant).
        let size = unsafe { (*as_raw(self)).cfg_size };
        if offset % 4 != 0 || i32::from(offset) + 4 > size {
            return Err(EINVAL);
        }
        let mut val = 0;
        // SAFETY: A valid `struct pci_dev`, and `offset` an aligned dword of its configuration
        // space.
        let ret = unsafe { bindings::pci_read_config_dword(as_raw(self), offset.into(), &mut val) };
        match u32::try_from(ret) {
            Ok(0) => Ok(val),
            Ok(bindings::PCIBIOS_DEVICE_NOT_FOUND) => Err(ENODEV),
            _ => Err(EIO),
        }
    }
}
