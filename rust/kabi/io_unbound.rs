// SPDX-License-Identifier: GPL-2.0

//! Out of tree only: `kernel::io::mem::UnboundIoMem`, which patch 17 of the series adds, and the
//! one read of `kernel::io::Io` the driver makes of it (in tree both are the crate's and this
//! file is not there). The paths mirror the crate's, `mem::UnboundIoMem` and `Io`, so that the
//! caller's `use` lines sort the same in both builds and its calls are the same text.
//!
//! The body maps with `ioremap` and reads with `readl`, which 7.2 and 7.3 both export: their
//! `kernel::io` differ in shape, so the crate's `Mmio` cannot serve both.

use kernel::prelude::*;

/// The part of the crate's `Io` trait that the driver uses.
pub(crate) trait Io {
    /// A 32-bit read at `offset`: `EINVAL` if it is unaligned or not inside the window.
    fn try_read32(self, offset: usize) -> Result<u32>;
}

/// The series' `kernel::io::mem`, for kernels without it.
pub(crate) mod mem {
    use core::ptr::NonNull;

    use kernel::{bindings, ffi::c_void, prelude::*};

    /// A memory-mapped I/O window that no bound device owns, unmapped on drop.
    ///
    /// # Invariants
    ///
    /// `addr` is an `ioremap` mapping of `size` bytes, at least `SIZE`, a multiple of 4 and
    /// 4-byte aligned, which the owner may access; it is unmapped on drop.
    pub(crate) struct UnboundIoMem<const SIZE: usize = 0> {
        addr: NonNull<c_void>,
        size: usize,
    }

    // SAFETY: The mapping is an address of I/O memory, which any CPU may access.
    unsafe impl<const SIZE: usize> Send for UnboundIoMem<SIZE> {}
    // SAFETY: `&self` gives reads alone, each a single MMIO load.
    unsafe impl<const SIZE: usize> Sync for UnboundIoMem<SIZE> {}

    impl<const SIZE: usize> UnboundIoMem<SIZE> {
        /// Maps the `size` bytes at physical address `start`: `EINVAL` if `size` is zero, less
        /// than `SIZE` or not a multiple of 4, or `start` is not 4-byte aligned, `ENOMEM` if the
        /// window cannot be mapped.
        ///
        /// # Safety
        ///
        /// `start..start + size` is a device's register window, not memory, and the caller may
        /// access it for as long as the mapping lives: it answers for every read it makes
        /// through the mapping. A read of a register can have an effect (acknowledge an
        /// interrupt, pop a FIFO). Arguments refused with `EINVAL` map nothing and need none of
        /// this.
        pub(crate) unsafe fn ioremap(start: u64, size: usize) -> Result<Self> {
            if size == 0 || size < SIZE || size % 4 != 0 || start % 4 != 0 {
                return Err(EINVAL);
            }
            // SAFETY: `size` is not zero, and the caller may access the window. `ioremap`
            // refuses RAM and returns NULL on failure, which is checked.
            let addr = unsafe { bindings::ioremap(start, size) };
            // INVARIANT: a mapping of `size` bytes, checked above, at an address as aligned as
            // `start` is.
            Ok(Self {
                addr: NonNull::new(addr).ok_or(ENOMEM)?,
                size,
            })
        }
    }

    impl<const SIZE: usize> Drop for UnboundIoMem<SIZE> {
        fn drop(&mut self) {
            // SAFETY: Mapped by `ioremap` (invariant) and unmapped once, here.
            unsafe { bindings::iounmap(self.addr.as_ptr()) };
        }
    }

    impl<const SIZE: usize> super::Io for &UnboundIoMem<SIZE> {
        fn try_read32(self, offset: usize) -> Result<u32> {
            match offset.checked_add(4) {
                Some(end) if offset % 4 == 0 && end <= self.size => {}
                _ => return Err(EINVAL),
            }
            // SAFETY: `offset` is aligned and inside the mapping (invariant).
            Ok(unsafe { bindings::readl(self.addr.as_ptr().add(offset)) })
        }
    }
}
