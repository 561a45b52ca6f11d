// SPDX-License-Identifier: GPL-2.0

//! The driver's thin layer over C: perf, sysfs, raw spinlocks, the package timer, system sleep,
//! MSRs, topology, x86 CPU identification and PCI/MMIO.
//!
//! 7.3's Rust has no abstractions for these, so this directory is the only place with raw
//! bindings and `unsafe`; everything above it uses the safe types defined here.

#[cfg(skl_sim)]
mod late_call;
#[cfg(skl_sim)]
pub(crate) mod lock;
#[cfg(not(skl_sim))]
pub(crate) mod mchbar;
pub(crate) mod module_block;
#[cfg(not(skl_sim))]
pub(crate) mod msr;
pub(crate) mod perf;
#[path = "perf_sys.rs"]
mod perf_sys;
pub(crate) mod platform;
pub(crate) mod pm;
pub(crate) mod pmu_names;
pub(crate) mod poller;
pub(crate) mod raw_spinlock;
pub(crate) mod smp;
pub(crate) mod syscore;
pub(crate) mod topology;
#[cfg(not(skl_sim))]
pub(crate) mod x86_cpu;
