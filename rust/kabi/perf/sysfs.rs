// SPDX-License-Identifier: GPL-2.0

//! sysfs attribute groups of a PMU: `format/` and `events/` (perf shows `cpumask` itself for
//! PMUs with a scope).
//!
//! 7.3 has no Rust abstraction for sysfs attributes, so the C structures are built here.
//! [`static_attr_group!`](crate::static_attr_group) builds a group at compile time, in static
//! memory, as C drivers declare theirs: a `format/`, or the `events/` of a PMU whose events
//! are known at build time. For a PMU whose events are known only at registration,
//! [`PmuAttrs`] builds its `events/` then and owns it for as long as the PMU is registered.

use core::{ffi::CStr, marker::PhantomPinned};

use kernel::{bindings, prelude::*};

use super::super::perf_sys as sys;

/// One `name` → `value` file, shown by perf's `perf_event_sysfs_show` as `"value\n"`.
#[derive(Clone, Copy)]
pub(crate) struct StrAttr {
    /// File name.
    pub(crate) name: &'static CStr,
    /// File content.
    pub(crate) value: &'static CStr,
}

/// Declares a `static` attribute group of read-only [`StrAttr`] files, built at compile time:
/// a PMU's `format/` or `events/`. [`StaticAttrGroup::group`] gives it to [`PmuAttrs::new`].
/// The example in [`kernel::perf`](super) declares one.
#[macro_export]
macro_rules! static_attr_group {
    ($vis:vis static $id:ident = $name:expr, $files:expr $(,)?) => {
        $vis static $id: $crate::kabi::perf::sysfs::StaticAttrGroup<{ $files.len() }> = {
            let (this, name, attributes) = (&raw const $id, $name, $files);
            // SAFETY: `this` is the address of the static this value initialises.
            unsafe { $crate::kabi::perf::sysfs::StaticAttrGroup::new(this, name, attributes) }
        };
    };
}

impl StrAttr {
    /// The C file, without a lockdep key: static memory needs none.
    const fn to_c(self) -> sys::perf_pmu_events_attr {
        // SAFETY: Plain C data; all-zero is a valid (empty) value.
        let mut e: sys::perf_pmu_events_attr = unsafe { core::mem::zeroed() };
        e.attr.attr.name = char_ptr(self.name);
        e.attr.attr.mode = 0o444;
        e.attr.__bindgen_anon_1.show = Some(sys::perf_event_sysfs_show);
        e.event_str = char_ptr(self.value);
        e
    }
}

/// `s` as C's `char *`, at compile time (`as_char_ptr` is not a `const fn`).
const fn char_ptr(s: &'static CStr) -> *const kernel::ffi::c_char {
    s.to_bytes_with_nul().as_ptr()
}

/// An attribute group in static memory; [`static_attr_group!`](crate::static_attr_group)
/// declares one.
///
/// # Invariants
///
/// The value lives in the `static` whose address `new` was given, so it never moves. `group`
/// names `ptrs`, which with `end` (NULL) is a NULL-terminated array of pointers to the
/// attributes in `files`. Nothing writes to any of it.
#[repr(C)]
pub(crate) struct StaticAttrGroup<const N: usize> {
    group: bindings::attribute_group,
    files: [sys::perf_pmu_events_attr; N],
    ptrs: [*mut bindings::attribute; N],
    end: *mut bindings::attribute,
}

// SAFETY: Never written after it is built (invariant); sysfs only reads the pointers.
unsafe impl<const N: usize> Sync for StaticAttrGroup<N> {}

impl<const N: usize> StaticAttrGroup<N> {
    /// The group named `name` of `attributes`, built to live at `this`.
    ///
    /// # Safety
    ///
    /// `this` is the address of the `static` that the returned value initialises.
    #[doc(hidden)]
    pub(crate) const unsafe fn new(
        this: *const Self,
        name: &'static CStr,
        attributes: &[StrAttr; N],
    ) -> Self {
        // SAFETY: Plain C data; all-zero is a valid (empty) value.
        let mut s: Self = unsafe { core::mem::zeroed() };
        let mut i = 0;
        while i < N {
            s.files[i] = attributes[i].to_c();
            // SAFETY: `this` is where `s` will live (the caller's promise): the address of
            // its `files[i]`'s attribute is computed, nothing is read or written through it.
            s.ptrs[i] = unsafe { &raw const (*this).files[i].attr.attr }.cast_mut();
            i += 1;
        }
        s.group.name = char_ptr(name);
        // SAFETY: As above; `ptrs` and `end` are contiguous (`repr(C)`, one element type).
        s.group.__bindgen_anon_2.attrs = unsafe { &raw const (*this).ptrs }.cast_mut().cast();
        s
    }

    /// The group, for [`PmuAttrs::new`].
    pub(crate) const fn group(&'static self) -> StaticGroup {
        StaticGroup(&self.group)
    }
}

/// An attribute group in static memory, of any size.
///
/// # Invariants
///
/// The group is a [`StaticAttrGroup`]'s, so its pointers are valid forever.
#[derive(Clone, Copy)]
pub(crate) struct StaticGroup(&'static bindings::attribute_group);

/// A PMU's `events/` group.
#[derive(Clone, Copy)]
#[allow(dead_code)] // Out of tree: the driver's are static; the sample builds its own.
pub(crate) enum Events<'a> {
    /// None: the PMU names no event.
    None,
    /// Declared with [`static_attr_group!`](crate::static_attr_group), as most PMUs can.
    Static(StaticGroup),
    /// Built at registration from these files, for a PMU whose events are known only then.
    Built(&'a [StrAttr]),
}

/// The attribute groups of one PMU: its `format/` (static) and its `events/`.
///
/// # Invariants
///
/// Once built, every pointer inside points into this (heap-allocated, never moved) structure,
/// into buffers it owns, or to static data, and nothing is modified until it is dropped. It
/// only ever exists pinned (`new` returns it boxed and pinned, and it is `!Unpin`), so a
/// `&PmuAttrs` is always the pinned one and its groups stay valid as long as the reference.
pub(crate) struct PmuAttrs {
    /// Only for [`Events::Built`]: a static group needs nothing of its own.
    built: Option<BuiltEvents>,
    group_ptrs: [*const bindings::attribute_group; 3],
    _pin: PhantomPinned,
}

/// An `events/` group built at registration.
///
/// # Invariants
///
/// `group`'s attribute array is `_ptrs`' buffer, NULL-terminated, whose other entries point
/// into `_files`' buffer. Both buffers are owned and stay where they are when this moves.
struct BuiltEvents {
    _files: KVec<sys::perf_pmu_events_attr>,
    _ptrs: KVec<*mut bindings::attribute>,
    group: bindings::attribute_group,
}

// SAFETY: Immutable after construction (invariant); the raw pointers are only read by sysfs.
unsafe impl Send for PmuAttrs {}
// SAFETY: As above.
unsafe impl Sync for PmuAttrs {}

/// An `events/` file: not in static memory, so its attribute needs a static lockdep key
/// (what `sysfs_attr_init` sets). The field exists only with lockdep
/// (`CONFIG_DEBUG_LOCK_ALLOC`), which no distribution kernel has.
fn str_attr(a: &StrAttr, key: *mut bindings::lock_class_key) -> sys::perf_pmu_events_attr {
    #[allow(unused_mut)] // Without lockdep, nothing is added.
    let mut e = a.to_c();
    #[cfg(CONFIG_DEBUG_LOCK_ALLOC)]
    {
        e.attr.attr.key = key;
    }
    #[cfg(not(CONFIG_DEBUG_LOCK_ALLOC))]
    let _ = key;
    e
}

impl BuiltEvents {
    /// The `events/` group of these files.
    fn new(files: &[StrAttr]) -> Result<Self> {
        let key = kernel::static_lock_class!().as_ptr();
        let mut attrs = KVec::with_capacity(files.len(), GFP_KERNEL)?;
        for a in files {
            attrs.push(str_attr(a, key), GFP_KERNEL)?;
        }
        let mut ptrs = KVec::with_capacity(files.len() + 1, GFP_KERNEL)?;
        for a in attrs.iter_mut() {
            ptrs.push(&raw mut a.attr.attr, GFP_KERNEL)?;
        }
        ptrs.push(core::ptr::null_mut(), GFP_KERNEL)?;
        // SAFETY: Plain data; all-zero is valid.
        let mut group: bindings::attribute_group = unsafe { core::mem::zeroed() };
        group.name = c"events".as_char_ptr();
        group.__bindgen_anon_2.attrs = ptrs.as_mut_ptr();
        // INVARIANT: `ptrs` points into `attrs`, `group` to `ptrs`: heap buffers, not moved.
        Ok(Self {
            _files: attrs,
            _ptrs: ptrs,
            group,
        })
    }
}

impl PmuAttrs {
    /// The groups of a PMU: `format/` and `events/`.
    pub(crate) fn new(format: StaticGroup, events: Events<'_>) -> Result<Pin<KBox<Self>>> {
        let built = match events {
            Events::Built(files) => Some(BuiltEvents::new(files)?),
            Events::None | Events::Static(_) => None,
        };
        let mut this = KBox::new(
            Self {
                built,
                group_ptrs: [core::ptr::null(); 3],
                _pin: PhantomPinned,
            },
            GFP_KERNEL,
        )?;
        let s = &mut *this;
        // A `StaticGroup` is a `StaticAttrGroup`'s (its invariant): valid forever.
        s.group_ptrs[0] = format.0;
        s.group_ptrs[1] = match (&s.built, events) {
            (Some(built), _) => &raw const built.group,
            (None, Events::Static(group)) => group.0,
            (None, _) => core::ptr::null(),
        };
        // INVARIANT: everything points into the boxed value, which is pinned from here on, into
        // buffers it owns, or to static data.
        Ok(KBox::into_pin(this))
    }

    /// The NULL-terminated group array for `struct pmu`.
    pub(super) fn groups(&self) -> *mut *const bindings::attribute_group {
        self.group_ptrs.as_ptr().cast_mut()
    }
}
