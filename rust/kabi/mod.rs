// SPDX-License-Identifier: GPL-2.0

//! The driver's thin layer over C: perf, sysfs, raw spinlocks, the package timer, system sleep,
//! MSRs, topology, x86 CPU identification, NMI-safe clocks and PCI/MMIO.
//!
//! This directory is the only place with raw bindings and `unsafe`; everything above it uses
//! the safe types it defines or names. The abstractions of the patch series that adds this
//! driver to the kernel are the kernel crate's in tree; built out of tree, for kernels without
//! them, the module compiles them here.

#[cfg(skl_sim)]
mod late_call;
#[cfg(skl_sim)]
pub(crate) mod lock;
#[cfg(not(skl_sim))]
pub(crate) mod mchbar;
pub(crate) mod platform;
pub(crate) mod pm;
pub(crate) mod poller;

// The patch series' abstractions: compiled into the module out of tree, the kernel crate's in
// tree (scripts/series rewrites these lines).
#[cfg(skl_sim)]
pub(crate) mod cpuhp;
#[cfg(skl_sim)]
mod delayed_work_flush;
mod hrtimer_ext;
#[cfg(not(skl_sim))]
pub(crate) mod io_unbound;
pub(crate) mod module_notifier;
#[cfg(not(skl_sim))]
pub(crate) mod msr;
#[cfg(not(skl_sim))]
mod pci_slot;
pub(crate) mod perf;
mod perf_scope_cpu;
#[path = "perf_sys.rs"]
mod perf_sys;
pub(crate) mod smp;
pub(crate) mod suspend;
pub(crate) mod syscore;
pub(crate) mod topology;
#[cfg(not(skl_sim))]
pub(crate) mod x86_cpu;

// `kernel::sync::lock::raw_spinlock` in tree.
pub(crate) mod raw_spinlock;

// `kernel::time::fast` in tree.
pub(crate) mod time_fast;

// `kernel::pm` in tree.
pub(crate) mod dev_pm;
