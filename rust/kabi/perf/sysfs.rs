// SPDX-License-Identifier: GPL-2.0

//! sysfs attribute groups of a PMU: `format/` and `events/` (perf shows `cpumask` itself for
//! PMUs with a scope).
//!
//! 7.3 has no Rust abstraction for sysfs attributes, so the C structures are built here, at
//! load time (the CBo count is only known then), and owned by [`PmuAttrs`] for as long as the
//! PMU is registered.

use core::{ffi::CStr, marker::PhantomPinned};

use kernel::{bindings, prelude::*};

use super::super::perf_sys as sys;

/// One `name` → `value` file, shown by perf's `perf_event_sysfs_show` as `"value\n"`.
pub(crate) struct StrAttr {
    /// File name.
    pub(crate) name: &'static CStr,
    /// File content.
    pub(crate) value: &'static CStr,
}

/// The attribute groups of one PMU.
///
/// # Invariants
///
/// Once built, every pointer inside points into this (heap-allocated, never moved) structure
/// or to static data, and nothing is modified until it is dropped. It only ever exists pinned
/// (`new` returns it boxed and pinned, and it is `!Unpin`), so a `&PmuAttrs` is always the
/// pinned one and its groups stay valid as long as the reference.
pub(crate) struct PmuAttrs {
    formats: KVec<sys::perf_pmu_events_attr>,
    events: KVec<sys::perf_pmu_events_attr>,
    format_ptrs: KVec<*mut bindings::attribute>,
    event_ptrs: KVec<*mut bindings::attribute>,
    groups: [bindings::attribute_group; 2],
    group_ptrs: [*const bindings::attribute_group; 3],
    _pin: PhantomPinned,
}

// SAFETY: Immutable after construction (invariant); the raw pointers are only read by sysfs.
unsafe impl Send for PmuAttrs {}
// SAFETY: As above.
unsafe impl Sync for PmuAttrs {}

/// A zeroed C attribute with a name, a mode and a lockdep key.
fn attribute(name: &'static CStr, key: *mut bindings::lock_class_key) -> bindings::attribute {
    // SAFETY: `attribute` is plain data; all-zero is a valid (empty) value.
    let mut a: bindings::attribute = unsafe { core::mem::zeroed() };
    a.name = name.as_char_ptr();
    a.mode = 0o444;
    // Attributes not in static memory need a static lockdep key (`sysfs_attr_init`); the
    // field exists only with lockdep (`CONFIG_DEBUG_LOCK_ALLOC`), which no distribution
    // kernel has.
    #[cfg(CONFIG_DEBUG_LOCK_ALLOC)]
    {
        a.key = key;
    }
    #[cfg(not(CONFIG_DEBUG_LOCK_ALLOC))]
    let _ = key;
    a
}

fn str_attr(a: &StrAttr, key: *mut bindings::lock_class_key) -> sys::perf_pmu_events_attr {
    // SAFETY: Plain data; all-zero is valid.
    let mut e: sys::perf_pmu_events_attr = unsafe { core::mem::zeroed() };
    e.attr.attr = attribute(a.name, key);
    e.attr.__bindgen_anon_1.show = Some(sys::perf_event_sysfs_show);
    e.event_str = a.value.as_char_ptr();
    e
}

/// A NULL-terminated array of pointers to `attrs[i].attr.attr`.
fn pointers(attrs: &mut KVec<sys::perf_pmu_events_attr>) -> Result<KVec<*mut bindings::attribute>> {
    let mut v = KVec::with_capacity(attrs.len() + 1, GFP_KERNEL)?;
    for a in attrs.iter_mut() {
        v.push(&raw mut a.attr.attr, GFP_KERNEL)?;
    }
    v.push(core::ptr::null_mut(), GFP_KERNEL)?;
    Ok(v)
}

impl PmuAttrs {
    /// Builds the groups: `format/` from `formats`, `events/` from `events` (omitted when
    /// empty).
    pub(crate) fn new(formats: &[StrAttr], events: &[StrAttr]) -> Result<Pin<KBox<Self>>> {
        let key = kernel::static_lock_class!().as_ptr();
        let mut f = KVec::with_capacity(formats.len(), GFP_KERNEL)?;
        for a in formats {
            f.push(str_attr(a, key), GFP_KERNEL)?;
        }
        let mut e = KVec::with_capacity(events.len(), GFP_KERNEL)?;
        for a in events {
            e.push(str_attr(a, key), GFP_KERNEL)?;
        }
        let mut this = KBox::new(
            Self {
                format_ptrs: KVec::new(),
                event_ptrs: KVec::new(),
                formats: f,
                events: e,
                // SAFETY: Plain data; all-zero is valid.
                groups: unsafe { core::mem::zeroed() },
                group_ptrs: [core::ptr::null(); 3],
                _pin: PhantomPinned,
            },
            GFP_KERNEL,
        )?;
        let s = &mut *this;
        s.format_ptrs = pointers(&mut s.formats)?;
        s.event_ptrs = pointers(&mut s.events)?;

        s.groups[0].name = c"format".as_char_ptr();
        s.groups[0].__bindgen_anon_2.attrs = s.format_ptrs.as_mut_ptr();
        s.groups[1].name = c"events".as_char_ptr();
        s.groups[1].__bindgen_anon_2.attrs = s.event_ptrs.as_mut_ptr();
        let nr_groups = if events.is_empty() { 1 } else { 2 };
        for i in 0..nr_groups {
            s.group_ptrs[i] = &raw const s.groups[i];
        }
        // INVARIANT: everything points into the boxed value, which is pinned from here on.
        Ok(KBox::into_pin(this))
    }

    /// The NULL-terminated group array for `struct pmu`.
    pub(super) fn groups(&self) -> *mut *const bindings::attribute_group {
        self.group_ptrs.as_ptr().cast_mut()
    }
}
