// SPDX-License-Identifier: GPL-2.0

//! Module-local bindings for `<linux/perf_event.h>` and the series' helpers, which
//! `kernel::bindings` does not cover, generated at build time (see `Kbuild`), and the Rust
//! stand-in for `perf_pmu_scope_cpu()`, which the series adds to perf.
//!
//! This module may not be used directly outside `kabi/`: the safe wrappers next to it are the
//! interface.

#![allow(
    dead_code,
    clippy::all,
    clippy::undocumented_unsafe_blocks,
    clippy::ptr_as_ptr,
    clippy::ref_as_ptr,
    clippy::as_underscore,
    clippy::cast_lossless,
    missing_docs,
    non_camel_case_types,
    non_upper_case_globals,
    non_snake_case,
    improper_ctypes,
    unreachable_pub,
    unsafe_op_in_unsafe_fn
)]

use kernel::ffi;
use pin_init::MaybeZeroable;

include!("perf_sys_generated.rs");

pub(crate) use super::perf_scope_cpu::perf_pmu_scope_cpu;
