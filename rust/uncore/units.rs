// SPDX-License-Identifier: GPL-2.0

//! The uncore units as data: one table per unit type drives the generic engine.
//!
//! Addresses, counter counts and widths come from the manual (Tables 1-2 and 2-1); the named
//! events (chapter 3) are in [`super::named_events`].

use core::ffi::CStr;

use super::bitfield::CONFIG_SPEC_LEN;
use super::counter::poll_interval_ms;
pub(crate) use super::named_events::NamedEvent;
use super::named_events::{ARB_EVENTS, CBOX_EVENTS, CLOCKTICKS, IMC_EVENTS};
use super::regs::{PerfEvtSel, FIXED_CTR_WIDTH, IMC_CTR_WIDTH, PERFCTR_WIDTH};

/// The four kinds of unit. Each kind registers one PMU per box.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum UnitKind {
    /// A cache box (LLC slice): `uncore_cbox_N`.
    Cbox,
    /// The arbitration unit: `uncore_arb`.
    Arb,
    /// The fixed UCLK counter: `uncore_clock`.
    Clock,
    /// The memory controller's free-running DRAM counters: `uncore_imc`.
    Imc,
}

impl UnitKind {
    /// One for the whole machine rather than one per package: the IMC counters sit in the
    /// host bridge's single MCHBAR, so a PMU per package would count the same DRAM traffic
    /// once per package under `perf stat -a`.
    pub(crate) const fn machine_wide(self) -> bool {
        matches!(self, UnitKind::Imc)
    }
}

/// A counter restriction: events with this `EVT_SEL` may only use `counters`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Constraint {
    /// The event select code.
    pub(crate) event: u8,
    /// Allowed generic counters, one bit each.
    pub(crate) counters: u32,
}

/// A `format/` file: a named field of `perf_event_attr.config`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Format {
    /// File name, e.g. `umask`.
    pub(crate) name: &'static CStr,
    /// File content, e.g. `config:8-15`.
    pub(crate) spec: &'static CStr,
    /// The `config` bits the field covers.
    pub(crate) bits: u64,
}

/// `perf_event_attr.config` bit 22: the `EN` bit of `PERFEVTSEL`. Intel PCM sets it in raw
/// events; it is accepted and ignored (the driver sets `EN` itself when the event starts).
pub(crate) const CONFIG_EN: u64 = 1 << 22;

/// `config` of the clockticks event on the fixed counter: event 0xff, nothing else.
pub(crate) const CONFIG_CLOCKTICKS: u64 = 0xff;

/// Highest UCLK frequency assumed anywhere in the family (the ring runs below 5 GHz).
pub(crate) const MAX_UCLK_HZ: u64 = 5_000_000_000;

/// Highest DRAM request rate assumed: 1.6e9 64-byte lines per second is 102 GB/s, beyond
/// dual-channel DDR4-4800 (76.8 GB/s), the fastest memory these parts drive.
pub(crate) const MAX_DRAM_LINES_PER_S: u64 = 1_600_000_000;

/// Largest increment per UCLK cycle of an ARB event: `TRK_OCCUPANCY` adds the number of valid
/// tracker entries each cycle, at most 64.
pub(crate) const MAX_ARB_INC_PER_CYCLE: u64 = 64;

/// One unit type.
#[derive(Debug)]
pub(crate) struct Unit {
    /// Which unit.
    pub(crate) kind: UnitKind,
    /// PMU name without the `uncore_` prefix and box suffix.
    pub(crate) name: &'static str,
    /// Generic (programmable) counters per box on the parts that have the most: the
    /// registers the tables place.
    pub(crate) nr_generic: u32,
    /// Of those, the ones Table 2-1 lists, which every part has. The others are probed at
    /// load ([`super::cbo_counters`]).
    pub(crate) nr_generic_listed: u32,
    /// `PERFEVTSEL0` of box 0.
    pub(crate) evtsel_base: u32,
    /// `PERFCTR0` of box 0.
    pub(crate) ctr_base: u32,
    /// Distance between boxes' registers.
    pub(crate) box_stride: u32,
    /// Counter restrictions; events not listed may use any generic counter.
    pub(crate) constraints: &'static [Constraint],
    /// `format/` files.
    pub(crate) formats: &'static [Format],
    /// `events/` files.
    pub(crate) events: &'static [NamedEvent],
    /// Most a counter of the unit advances per second: a larger step is a reset.
    pub(crate) max_rate: u64,
    /// Poll interval of the generic counters (or the free-running ones), in ms.
    pub(crate) poll_ms: u64,
}

/// A `format/` file for a `PERFEVTSEL` field: the content (`config:LO-HI`) and the bits come
/// from the field's definition in [`PerfEvtSel`], at compile time.
macro_rules! format_file {
    ($name:literal, $field:expr) => {
        Format {
            name: $name,
            spec: {
                const SPEC: [u8; CONFIG_SPEC_LEN] = $field.config_spec();
                match CStr::from_bytes_until_nul(&SPEC) {
                    Ok(spec) => spec,
                    Err(_) => panic!("config_spec has no NUL"),
                }
            },
            bits: $field.mask(),
        }
    };
}

// `perf_event_attr.config` is laid out as `PERFEVTSEL`, so each format names a field's bits.
const FMT_EVENT: Format = format_file!(c"event", PerfEvtSel::EVT_SEL);
const FMT_UMASK: Format = format_file!(c"umask", PerfEvtSel::UMASK);
const FMT_EDGE: Format = format_file!(c"edge", PerfEvtSel::E);
const FMT_INV: Format = format_file!(c"inv", PerfEvtSel::INV);
const FMT_CMASK: Format = format_file!(c"cmask", PerfEvtSel::THR);

/// The `PERFEVTSEL` fields perf may set, in likwid's expected names.
const EVTSEL_FORMATS: &[Format] = &[FMT_EVENT, FMT_UMASK, FMT_EDGE, FMT_INV, FMT_CMASK];

/// Most CBo boxes driven. The 8th CBo's registers sit at 0xF70 (Linux's CFL quirk); beyond
/// that no addresses are known.
pub(crate) const MAX_CBOX: u32 = 8;

/// The CBo unit.
pub(crate) const CBOX: Unit = Unit {
    kind: UnitKind::Cbox,
    name: "cbox",
    // Table 2-1 lists two PERFEVTSEL/PERFCTR pairs per CBo; section 2.4.2 says four, and the
    // i7-6700K has four (VirtualBox's MSR probe of the part), an i7-8665U not the third.
    nr_generic: 4,
    nr_generic_listed: 2,
    evtsel_base: 0x700,
    ctr_base: 0x706,
    box_stride: 0x10,
    constraints: &[],
    formats: EVTSEL_FORMATS,
    events: CBOX_EVENTS,
    // CBo events increment at most once per UCLK cycle.
    max_rate: MAX_UCLK_HZ,
    poll_ms: poll_interval_ms(PERFCTR_WIDTH, MAX_UCLK_HZ),
};

/// The ARB unit.
pub(crate) const ARB: Unit = Unit {
    kind: UnitKind::Arb,
    name: "arb",
    nr_generic: 2,
    nr_generic_listed: 2,
    evtsel_base: 0x3B2,
    ctr_base: 0x3B0,
    box_stride: 0,
    // Occupancy (0x80) counts on counter 0 only (Table 3-2); 0x83 likewise, as Linux keeps it
    // from Sandy Bridge.
    constraints: &[
        Constraint {
            event: 0x80,
            counters: 0b01,
        },
        Constraint {
            event: 0x83,
            counters: 0b01,
        },
    ],
    formats: EVTSEL_FORMATS,
    events: ARB_EVENTS,
    max_rate: MAX_UCLK_HZ * MAX_ARB_INC_PER_CYCLE,
    poll_ms: poll_interval_ms(PERFCTR_WIDTH, MAX_UCLK_HZ * MAX_ARB_INC_PER_CYCLE),
};

/// The fixed UCLK counter.
pub(crate) const CLOCK: Unit = Unit {
    kind: UnitKind::Clock,
    name: "clock",
    nr_generic: 0,
    nr_generic_listed: 0,
    evtsel_base: 0,
    ctr_base: 0,
    box_stride: 0,
    constraints: &[],
    formats: &[FMT_EVENT],
    events: &[CLOCKTICKS],
    max_rate: MAX_UCLK_HZ,
    poll_ms: poll_interval_ms(FIXED_CTR_WIDTH, MAX_UCLK_HZ),
};

/// The IMC free-running counters.
pub(crate) const IMC: Unit = Unit {
    kind: UnitKind::Imc,
    name: "imc",
    nr_generic: 0,
    nr_generic_listed: 0,
    evtsel_base: 0,
    ctr_base: 0,
    box_stride: 0,
    constraints: &[],
    // likwid adds a umask only when `format/umask` exists: the IMC must export `event` alone.
    formats: &[FMT_EVENT],
    events: IMC_EVENTS,
    max_rate: MAX_DRAM_LINES_PER_S,
    poll_ms: poll_interval_ms(IMC_CTR_WIDTH, MAX_DRAM_LINES_PER_S),
};

impl Unit {
    /// Address of generic counter `idx`'s `PERFEVTSEL` in box `box_idx`.
    pub(crate) const fn evtsel(&self, box_idx: u32, idx: u32) -> u32 {
        self.box_base(self.evtsel_base, box_idx) + idx
    }

    /// Address of generic counter `idx`'s `PERFCTR` in box `box_idx`.
    pub(crate) const fn ctr(&self, box_idx: u32, idx: u32) -> u32 {
        self.box_base(self.ctr_base, box_idx) + idx
    }

    const fn box_base(&self, base: u32, box_idx: u32) -> u32 {
        // The 8th CBo moved: 0xF70/0xF76 instead of 0x770/0x776.
        if matches!(self.kind, UnitKind::Cbox) && box_idx == 7 {
            base + 0x870
        } else {
            base + box_idx * self.box_stride
        }
    }

    /// Every `config` bit some `format/` field covers.
    pub(crate) const fn format_bits(&self) -> u64 {
        let mut bits = 0;
        let mut i = 0;
        while i < self.formats.len() {
            bits |= self.formats[i].bits;
            i += 1;
        }
        bits
    }

    /// Generic counters event select `event` may use on a box with `nr` of them (at most
    /// [`Self::nr_generic`]).
    ///
    /// Counters 2 and 3 of a CBo take every event 0 and 1 do: the i7-6700K accepts the same
    /// bits in all four `PERFEVTSEL`s (its #GP mask), and Linux has scheduled every CBo event on
    /// any of the four since Skylake support (no CBo constraint). Intel's event list gives
    /// counters "0,1" for every CBo event, as it lists only Table 2-1's registers.
    pub(crate) fn allowed_counters(&self, event: u8, nr: u32) -> u32 {
        let all = (1u32 << nr.min(self.nr_generic)) - 1;
        self.constraints
            .iter()
            .find(|c| c.event == event)
            .map_or(all, |c| c.counters & all)
    }

    /// Whether box `box_idx` of this unit can count on the fixed counter.
    pub(crate) const fn has_fixed(&self, box_idx: u32) -> bool {
        match self.kind {
            UnitKind::Clock => true,
            UnitKind::Cbox => box_idx == 0,
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn msr_addresses_match_table_2_1() {
        assert_eq!(CBOX.evtsel(0, 0), 0x700);
        assert_eq!(CBOX.evtsel(0, 1), 0x701);
        assert_eq!(CBOX.ctr(0, 0), 0x706);
        assert_eq!(CBOX.ctr(3, 1), 0x737);
        assert_eq!(CBOX.evtsel(2, 0), 0x720);
        assert_eq!(CBOX.evtsel(7, 1), 0xF71);
        assert_eq!(CBOX.evtsel(0, 3), 0x703);
        assert_eq!(CBOX.ctr(0, 3), 0x709);
        assert_eq!(CBOX.ctr(7, 3), 0xF79);
        assert_eq!(CBOX.ctr(7, 0), 0xF76);
        assert_eq!(ARB.evtsel(0, 0), 0x3B2);
        assert_eq!(ARB.evtsel(0, 1), 0x3B3);
        assert_eq!(ARB.ctr(0, 0), 0x3B0);
        assert_eq!(ARB.ctr(0, 1), 0x3B1);
    }

    #[test]
    fn formats_and_constraints() {
        assert_eq!(CBOX.format_bits(), 0x1F84_FFFF);
        assert_eq!(IMC.format_bits(), 0xff);
        assert_eq!(ARB.allowed_counters(0x80, 2), 0b01);
        assert_eq!(ARB.allowed_counters(0x81, 2), 0b11);
        assert_eq!(ARB.allowed_counters(0x81, 4), 0b11);
        assert_eq!(CBOX.allowed_counters(0x34, 2), 0b11);
        assert_eq!(CBOX.allowed_counters(0x34, 4), 0b1111);
        assert_eq!(CBOX.allowed_counters(0x34, 0), 0);
    }

    #[test]
    fn poll_intervals() {
        // 44 bits at 64 x 5 GHz wrap in 54.9 s; IMC 32 bits at 1.6e9/s in 2.68 s.
        assert_eq!(ARB.poll_ms, 13_743);
        assert_eq!(IMC.poll_ms, 671);
        assert_eq!(CBOX.poll_ms, 879_609);
        assert_eq!(CLOCK.poll_ms, 14_073_748);
    }

    /// The `format/` files, exactly as sysfs shows them (selftests/sysfs-4cbox.expected).
    #[test]
    fn format_files_are_the_perfevtsel_fields() {
        let text: Vec<_> = CBOX
            .formats
            .iter()
            .map(|f| {
                let name = f.name.to_str().unwrap();
                let spec = f.spec.to_str().unwrap();
                format!("{name}={spec}")
            })
            .collect();
        assert_eq!(
            text,
            [
                "event=config:0-7",
                "umask=config:8-15",
                "edge=config:18",
                "inv=config:23",
                "cmask=config:24-28"
            ]
        );
        assert_eq!(ARB.formats.len(), 5);
        for f in CBOX.formats {
            // No NUL inside, exactly one at the end.
            assert_eq!(
                f.spec.to_bytes_with_nul().len(),
                f.spec.to_bytes().len() + 1
            );
        }
        assert_eq!(CLOCK.formats[0].spec.to_str(), Ok("config:0-7"));
        assert_eq!(IMC.formats[0].spec.to_str(), Ok("config:0-7"));
    }
}
