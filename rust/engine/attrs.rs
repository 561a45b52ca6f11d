// SPDX-License-Identifier: GPL-2.0

//! A PMU's `format/` and `events/` groups, built at compile time from its unit's table.
//!
//! `format/` is the same for every PMU of a unit. `events/` differs only between box 0 of the
//! CBo (`clockticks`, the fixed counter's) and the other boxes, so a unit has two `events/`
//! groups: box 0's and the others' ([`NamedEvent::files_like`]).

use crate::kabi::perf::sysfs::{StaticGroup, StrAttr};
use crate::uncore::units::{Format, NamedEvent, UnitKind, ARB, CBOX, CLOCK, IMC};

/// An empty file, to fill arrays before the loops below set each element.
const NO_FILE: StrAttr = StrAttr {
    name: c"",
    value: c"",
};

/// A unit's `format/` files.
const fn format_files<const N: usize>(formats: &[Format]) -> [StrAttr; N] {
    let mut files = [NO_FILE; N];
    let mut i = 0;
    while i < N {
        files[i] = StrAttr {
            name: formats[i].name,
            value: formats[i].spec,
        };
        i += 1;
    }
    files
}

/// The `events/` files of box `box_idx`'s PMU (the first `N` of them), and how many there are,
/// each event's `.scale` and `.unit` included.
const fn walk_event_files<const N: usize>(
    events: &[NamedEvent],
    box_idx: u32,
) -> ([StrAttr; N], usize) {
    let mut out = [NO_FILE; N];
    let mut n = 0;
    let mut i = 0;
    while i < events.len() {
        if events[i].shown_by(box_idx) {
            let files = events[i].files();
            let mut j = 0;
            while j < files.len() {
                if let Some((name, value)) = files[j] {
                    if n < N {
                        out[n] = StrAttr { name, value };
                    }
                    n += 1;
                }
                j += 1;
            }
        }
        i += 1;
    }
    (out, n)
}

/// Number of `events/` files the PMU of box `box_idx` shows.
const fn event_file_count(events: &[NamedEvent], box_idx: u32) -> usize {
    walk_event_files::<0>(events, box_idx).1
}

/// The `events/` files of box `box_idx`'s PMU; `N` is their [`event_file_count`] (else the
/// build fails).
const fn event_files<const N: usize>(events: &[NamedEvent], box_idx: u32) -> [StrAttr; N] {
    let (files, n) = walk_event_files::<N>(events, box_idx);
    assert!(n == N);
    files
}

/// The `format/` group of a unit's PMUs.
pub(super) fn format(kind: UnitKind) -> StaticGroup {
    // Each expansion is a block with a `static` of its own.
    macro_rules! format_of {
        ($unit:expr) => {{
            crate::static_attr_group!(
                static FORMAT = c"format",
                &format_files::<{ $unit.formats.len() }>($unit.formats)
            );
            FORMAT.group()
        }};
    }
    match kind {
        UnitKind::Cbox => format_of!(CBOX),
        UnitKind::Arb => format_of!(ARB),
        UnitKind::Clock => format_of!(CLOCK),
        UnitKind::Imc => format_of!(IMC),
    }
}

/// The `events/` group of the PMU of box `box_idx` of a unit.
pub(super) fn events(kind: UnitKind, box_idx: u32) -> StaticGroup {
    macro_rules! events_of {
        ($unit:expr, $box_idx:expr) => {{
            crate::static_attr_group!(
                static EVENTS = c"events",
                &event_files::<{ event_file_count($unit.events, $box_idx) }>(
                    $unit.events,
                    $box_idx
                )
            );
            EVENTS.group()
        }};
    }
    match (kind, NamedEvent::files_like(box_idx)) {
        (UnitKind::Cbox, 0) => events_of!(CBOX, 0),
        (UnitKind::Cbox, _) => events_of!(CBOX, 1),
        (UnitKind::Arb, _) => events_of!(ARB, 0),
        (UnitKind::Clock, _) => events_of!(CLOCK, 0),
        (UnitKind::Imc, _) => events_of!(IMC, 0),
    }
}
