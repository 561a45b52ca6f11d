// SPDX-License-Identifier: GPL-2.0

//! x86 CPU identification: the boot CPU's vendor, family and model, its feature flags, and
//! tables of CPU models that a module matches and that udev loads it from.
//!
//! C headers: [`asm/cpu_device_id.h`](srctree/arch/x86/include/asm/cpu_device_id.h),
//! [`asm/cpufeature.h`](srctree/arch/x86/include/asm/cpufeature.h)
//!
//! The boot CPU stands for all, as in C: the kernel fills `boot_cpu_data` in before any
//! initcall runs.

use core::ptr::addr_of;

use kernel::bindings;

use super::perf_sys as sys;

/// A CPU's vendor, family and model, encoded as `VFM_MAKE()` does: the vendor in bits 23:16,
/// the family in 15:8, the model in 7:0 (the `INTEL_*` names of `asm/intel-family.h`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Vfm(u32);

impl Vfm {
    /// Intel's family `family`, model `model` (`IFM()`).
    pub(crate) const fn intel(family: u8, model: u8) -> Self {
        Self((bindings::X86_VENDOR_INTEL << 16) | ((family as u32) << 8) | model as u32)
    }

    /// The boot CPU's (`boot_cpu_data.x86_vfm`).
    pub(crate) fn boot_cpu() -> Self {
        // SAFETY: `boot_cpu_data` is a static; its `x86_vfm` is written while the boot CPU is
        // identified, before any initcall or module runs, and never after.
        Self(unsafe {
            (*addr_of!(bindings::boot_cpu_data))
                .__bindgen_anon_1
                .x86_vfm
        })
    }

    /// The vendor (`X86_VENDOR_*`).
    pub(crate) const fn vendor(self) -> u8 {
        (self.0 >> 16) as u8
    }

    /// The family, e.g. 6.
    pub(crate) const fn family(self) -> u8 {
        (self.0 >> 8) as u8
    }

    /// The model.
    pub(crate) const fn model(self) -> u8 {
        self.0 as u8
    }
}

/// A CPU feature flag (`X86_FEATURE_*`), one that the kernel's capability words have a bit
/// for by construction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Feature(u16);

impl Feature {
    /// Running under a hypervisor (`CPUID.1:ECX[31]`, or the kernel found one).
    pub(crate) const HYPERVISOR: Self = Self(bindings::X86_FEATURE_HYPERVISOR as u16);
}

/// Whether the boot CPU has `feature` (`boot_cpu_has()`): its CPUID bit as the kernel left
/// it, which may have cleared it (`clearcpuid=`) or set it (a flag of its own).
pub(crate) fn boot_cpu_has(feature: Feature) -> bool {
    // SAFETY: `feature.0` is one of the `X86_FEATURE_*` numbers, each below the capability
    // words' bit count; the helper reads the bit as `boot_cpu_has()` does in C, a word read
    // that the kernel's `set_bit()`/`clear_bit()` on those words may race with harmlessly.
    unsafe { sys::rust_helper_boot_cpu_has(feature.0) }
}

/// `x86_cpu_id::flags`: the entry is valid (`X86_CPU_ID_FLAG_ENTRY_VALID`, `BIT(0)`); the
/// zeroed entry that ends a table has it clear.
const ENTRY_VALID: u16 = 1 << 0;

/// A table of CPU models, as `x86_match_cpu()` reads it: `N` entries that match any stepping
/// and feature, each with its index as its driver data, then the zeroed sentinel.
///
/// Declare a module's with [`x86_cpu_device_table!`](crate::x86_cpu_device_table), so that
/// modpost gives the module an autoload alias for each model
/// (`cpu:type:x86,ven0000fam0006mod004E:feature:*`).
#[repr(C)]
pub(crate) struct IdTable<const N: usize> {
    ids: [sys::x86_cpu_id; N],
    sentinel: sys::x86_cpu_id,
}

// SAFETY: Plain data, never written after it is built.
unsafe impl<const N: usize> Sync for IdTable<N> {}

impl<const N: usize> IdTable<N> {
    /// The table of `models`' CPUs, in that order (`X86_MATCH_VFM()` for each): each model
    /// comes with what its driver keeps for it, which stays out of the table, so that the
    /// table is exactly what modpost and `x86_match_cpu()` read.
    pub(crate) const fn new<T>(models: &[(Vfm, T); N]) -> Self {
        const fn entry(vfm: Vfm, flags: u16, index: usize) -> sys::x86_cpu_id {
            sys::x86_cpu_id {
                vendor: vfm.vendor() as u16,
                family: vfm.family() as u16,
                model: vfm.model() as u16,
                steppings: sys::X86_STEPPING_ANY as u16,
                feature: sys::X86_FEATURE_ANY as u16,
                flags,
                platform_mask: sys::X86_PLATFORM_ANY as u8,
                type_: sys::X86_CPU_TYPE_ANY as u8,
                driver_data: index,
            }
        }
        let mut ids = [const { entry(Vfm(0), 0, 0) }; N];
        let mut i = 0;
        while i < N {
            ids[i] = entry(models[i].0, ENTRY_VALID, i);
            i += 1;
        }
        Self {
            ids,
            sentinel: entry(Vfm(0), 0, 0),
        }
    }

    /// The index of the first model the boot CPU is (`x86_match_cpu()`), if any.
    pub(crate) fn match_boot_cpu(&self) -> Option<usize> {
        // SAFETY: `self.ids` is followed by the sentinel (`repr(C)`, no padding between
        // entries of one type), whose clear `flags` ends the walk.
        let id = unsafe { sys::x86_match_cpu(self.ids.as_ptr()) };
        // SAFETY: Not null, `id` is one of `self.ids`, whose driver data is its index.
        (!id.is_null()).then(|| unsafe { (*id).driver_data })
    }
}

/// Declares `static $name: IdTable<_>` of `$models`, a constant `[(Vfm, T); N]` (see
/// [`IdTable::new`]), under the symbol modpost reads a module's `x86cpu` device table from
/// (`MODULE_DEVICE_TABLE(x86cpu, ...)`).
#[macro_export]
macro_rules! x86_cpu_device_table {
    ($name:ident, $models:expr) => {
        #[export_name = concat!("__mod_device_table__", ::core::line!(), "__kmod_",
                                ::core::module_path!(), "__x86cpu__", ::core::stringify!($name))]
        static $name: $crate::kabi::x86_cpu::IdTable<{ $models.len() }> =
            $crate::kabi::x86_cpu::IdTable::new(&$models);
    };
}
