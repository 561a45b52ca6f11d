// SPDX-License-Identifier: GPL-2.0

//! The uncore units as data: one table per unit type drives the generic engine.
//!
//! Addresses, counter counts and widths come from the manual (Tables 1-2 and 2-1), events from
//! its chapter 3 with the names perf's JSON files use (lower case).

use core::ffi::CStr;

use super::counter::poll_interval_ms;
use super::regs::{FIXED_CTR_WIDTH, IMC_CTR_WIDTH, PERFCTR_WIDTH};

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

/// An `events/` file: a named encoding.
#[derive(Clone, Copy, Debug)]
pub(crate) struct NamedEvent {
    /// File name, perf's JSON name in lower case.
    pub(crate) name: &'static CStr,
    /// File content, e.g. `event=0x34,umask=0x8f`.
    pub(crate) config: &'static CStr,
    /// `<name>.scale` file: its name and content, if any.
    pub(crate) scale: Option<(&'static CStr, &'static CStr)>,
    /// `<name>.unit` file: its name and content, if any.
    pub(crate) unit: Option<(&'static CStr, &'static CStr)>,
    /// Only box 0 of the unit accepts it (the fixed counter belongs to `uncore_cbox_0`).
    pub(crate) box0_only: bool,
    /// What it counts, from the manual (for documentation and tests).
    #[allow(dead_code)]
    pub(crate) desc: &'static str,
}

impl NamedEvent {
    const fn new(name: &'static CStr, config: &'static CStr, desc: &'static str) -> Self {
        Self {
            name,
            config,
            scale: None,
            unit: None,
            box0_only: false,
            desc,
        }
    }
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
    /// Generic (programmable) counters per box.
    pub(crate) nr_generic: u32,
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
    /// Poll interval of the generic counters (or the free-running ones), in ms.
    pub(crate) poll_ms: u64,
}

const FMT_EVENT: Format = Format {
    name: c"event",
    spec: c"config:0-7",
    bits: 0xff,
};
const FMT_UMASK: Format = Format {
    name: c"umask",
    spec: c"config:8-15",
    bits: 0xff00,
};
const FMT_EDGE: Format = Format {
    name: c"edge",
    spec: c"config:18",
    bits: 1 << 18,
};
const FMT_INV: Format = Format {
    name: c"inv",
    spec: c"config:23",
    bits: 1 << 23,
};
const FMT_CMASK: Format = Format {
    name: c"cmask",
    spec: c"config:24-28",
    bits: 0x1f00_0000,
};

/// The `PERFEVTSEL` fields perf may set, in likwid's expected names.
const EVTSEL_FORMATS: &[Format] = &[FMT_EVENT, FMT_UMASK, FMT_EDGE, FMT_INV, FMT_CMASK];

/// `clockticks` on the fixed counter.
const CLOCKTICKS: NamedEvent = NamedEvent::new(
    c"clockticks",
    c"event=0xff",
    "UNC_CLOCK.SOCKET: uncore clock (UCLK) cycles, on the 48-bit fixed counter.",
);

/// CBo events (Table 3-1), then `clockticks`, which only `uncore_cbox_0` has.
const CBOX_EVENTS: &[NamedEvent] = &[
    NamedEvent::new(
        c"unc_cbo_xsnp_response.miss_xcore",
        c"event=0x22,umask=0x41",
        "A cross-core snoop initiated by this CBo due to a core's memory request which misses \
         in some processor core.",
    ),
    NamedEvent::new(
        c"unc_cbo_xsnp_response.miss_eviction",
        c"event=0x22,umask=0x81",
        "A cross-core snoop resulting from an LLC eviction which misses in some processor core.",
    ),
    NamedEvent::new(
        c"unc_cbo_xsnp_response.hit_xcore",
        c"event=0x22,umask=0x44",
        "A cross-core snoop initiated by this CBo due to a core's memory request which hits a \
         non-modified line in some processor core.",
    ),
    NamedEvent::new(
        c"unc_cbo_xsnp_response.hitm_xcore",
        c"event=0x22,umask=0x48",
        "A cross-core snoop initiated by this CBo due to a core's memory request which hits a \
         modified line in some processor core.",
    ),
    NamedEvent::new(
        c"unc_cbo_cache_lookup.write_m",
        c"event=0x34,umask=0x21",
        "LLC lookup write requests that found the line in M state.",
    ),
    NamedEvent::new(
        c"unc_cbo_cache_lookup.any_m",
        c"event=0x34,umask=0x81",
        "LLC lookup requests of any kind that found the line in M state.",
    ),
    NamedEvent::new(
        c"unc_cbo_cache_lookup.read_i",
        c"event=0x34,umask=0x18",
        "LLC lookup read requests that found the line in I state (misses).",
    ),
    NamedEvent::new(
        c"unc_cbo_cache_lookup.any_i",
        c"event=0x34,umask=0x88",
        "LLC lookup requests of any kind that found the line in I state (misses).",
    ),
    NamedEvent::new(
        c"unc_cbo_cache_lookup.read_mesi",
        c"event=0x34,umask=0x1f",
        "LLC lookup read requests that found the line in any MESI state.",
    ),
    NamedEvent::new(
        c"unc_cbo_cache_lookup.write_mesi",
        c"event=0x34,umask=0x2f",
        "LLC lookup write requests that found the line in any MESI state.",
    ),
    NamedEvent::new(
        c"unc_cbo_cache_lookup.any_mesi",
        c"event=0x34,umask=0x8f",
        "LLC lookup requests of any kind that found the line in any MESI state.",
    ),
    NamedEvent::new(
        c"unc_cbo_cache_lookup.any_es",
        c"event=0x34,umask=0x86",
        "LLC lookup requests of any kind that found the line in E or S state.",
    ),
    NamedEvent::new(
        c"unc_cbo_cache_lookup.read_es",
        c"event=0x34,umask=0x16",
        "LLC lookup read requests that found the line in E or S state.",
    ),
    NamedEvent::new(
        c"unc_cbo_cache_lookup.write_es",
        c"event=0x34,umask=0x26",
        "LLC lookup write requests that found the line in E or S state.",
    ),
    NamedEvent {
        box0_only: true,
        ..CLOCKTICKS
    },
];

/// ARB events (Table 3-2). `UNC_CLOCK.SOCKET`, printed in the same table as event 0x00 umask
/// 0x01, is the fixed counter: the ARB accepts that encoding (`event::CONFIG_ARB_UCLK`) but
/// names no event for it, since perf's JSON gives the name to `uncore_cbox_0` (7.3) or
/// `uncore_clock` (6.1) and a second PMU exporting it would be opened twice by `-e
/// unc_clock.socket`.
const ARB_EVENTS: &[NamedEvent] = &[
    NamedEvent::new(
        c"unc_arb_trk_occupancy.all",
        c"event=0x80,umask=0x01",
        "Cycles weighted by the number of valid outgoing entries from the cores (counter 0 \
         only).",
    ),
    NamedEvent::new(
        c"unc_arb_trk_requests.all",
        c"event=0x81,umask=0x01",
        "Core outgoing entries allocated, coherent and non-coherent.",
    ),
    NamedEvent::new(
        c"unc_arb_trk_requests.writes",
        c"event=0x81,umask=0x20",
        "Writes allocated: full, partial and evictions.",
    ),
    NamedEvent::new(
        c"unc_arb_coh_trk_requests.all",
        c"event=0x84,umask=0x01",
        "Coherency tracker entries allocated, of any type.",
    ),
    NamedEvent::new(
        c"unc_arb_trk_occupancy.cycles_with_any_request",
        c"event=0x80,umask=0x01,cmask=0x1",
        "Cycles with at least one request outstanding to the memory controller (counter 0 \
         only).",
    ),
];

/// Scale of the IMC counters: one 64-byte line, in MiB (64 / 2^20).
const IMC_SCALE: &CStr = c"6.103515625e-5";

/// A C string literal made of string literals.
macro_rules! cstr {
    ($($s:expr),+) => {
        match CStr::from_bytes_with_nul(concat!($($s),+, "\0").as_bytes()) {
            Ok(c) => c,
            Err(_) => panic!("not a C string"),
        }
    };
}

/// An IMC event: one 64-byte line per count, shown in MiB.
macro_rules! imc_event {
    ($name:literal, $config:literal, $desc:literal) => {
        NamedEvent {
            scale: Some((cstr!($name, ".scale"), IMC_SCALE)),
            unit: Some((cstr!($name, ".unit"), c"MiB")),
            ..NamedEvent::new(cstr!($name), cstr!($config), $desc)
        }
    };
}

/// IMC events (Table 3-3), in Linux's encoding: event code = index into
/// [`super::regs::IMC_COUNTERS`] + 1.
const IMC_EVENTS: &[NamedEvent] = &[
    imc_event!(
        "data_reads",
        "event=0x01",
        "DRAM_DATA_READS: read CAS commands (64 bytes each)."
    ),
    imc_event!(
        "data_writes",
        "event=0x02",
        "DRAM_DATA_WRITES: write CAS commands (64 bytes each)."
    ),
    imc_event!(
        "gt_requests",
        "event=0x03",
        "DRAM_GT_REQUESTS: requests from the GT engine."
    ),
    imc_event!(
        "ia_requests",
        "event=0x04",
        "DRAM_IA_REQUESTS: requests from the IA cores."
    ),
    imc_event!(
        "io_requests",
        "event=0x05",
        "DRAM_IO_REQUESTS: requests from IO agents."
    ),
];

/// Most CBo boxes driven. The 8th CBo's registers sit at 0xF70 (Linux's CFL quirk); beyond
/// that no addresses are known.
pub(crate) const MAX_CBOX: u32 = 8;

/// The CBo unit.
pub(crate) const CBOX: Unit = Unit {
    kind: UnitKind::Cbox,
    name: "cbox",
    // Table 2-1 lists two PERFEVTSEL/PERFCTR pairs per CBo (Linux declares four).
    nr_generic: 2,
    evtsel_base: 0x700,
    ctr_base: 0x706,
    box_stride: 0x10,
    constraints: &[],
    formats: EVTSEL_FORMATS,
    events: CBOX_EVENTS,
    // CBo events increment at most once per UCLK cycle.
    poll_ms: poll_interval_ms(PERFCTR_WIDTH, MAX_UCLK_HZ),
};

/// The ARB unit.
pub(crate) const ARB: Unit = Unit {
    kind: UnitKind::Arb,
    name: "arb",
    nr_generic: 2,
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
    poll_ms: poll_interval_ms(PERFCTR_WIDTH, MAX_UCLK_HZ * MAX_ARB_INC_PER_CYCLE),
};

/// The fixed UCLK counter.
pub(crate) const CLOCK: Unit = Unit {
    kind: UnitKind::Clock,
    name: "clock",
    nr_generic: 0,
    evtsel_base: 0,
    ctr_base: 0,
    box_stride: 0,
    constraints: &[],
    formats: &[FMT_EVENT],
    events: &[CLOCKTICKS],
    poll_ms: poll_interval_ms(FIXED_CTR_WIDTH, MAX_UCLK_HZ),
};

/// The IMC free-running counters.
pub(crate) const IMC: Unit = Unit {
    kind: UnitKind::Imc,
    name: "imc",
    nr_generic: 0,
    evtsel_base: 0,
    ctr_base: 0,
    box_stride: 0,
    constraints: &[],
    // likwid adds a umask only when `format/umask` exists: the IMC must export `event` alone.
    formats: &[FMT_EVENT],
    events: IMC_EVENTS,
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

    /// Generic counters event select `event` may use.
    pub(crate) fn allowed_counters(&self, event: u8) -> u32 {
        self.constraints
            .iter()
            .find(|c| c.event == event)
            .map_or((1 << self.nr_generic) - 1, |c| c.counters)
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
        assert_eq!(ARB.allowed_counters(0x80), 0b01);
        assert_eq!(ARB.allowed_counters(0x81), 0b11);
        assert_eq!(CBOX.allowed_counters(0x34), 0b11);
    }

    #[test]
    fn poll_intervals() {
        // 44 bits at 64 x 5 GHz wrap in 54.9 s; IMC 32 bits at 1.6e9/s in 2.68 s.
        assert_eq!(ARB.poll_ms, 27_487);
        assert_eq!(IMC.poll_ms, 1_342);
        assert_eq!(CBOX.poll_ms, 1_759_218);
        assert_eq!(CLOCK.poll_ms, 28_147_497);
    }

    /// Documentation/skl-uncore.rst names every event, its encoding, every host bridge and
    /// every supported model.
    #[test]
    fn documentation_covers_the_tables() {
        let doc = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../Documentation/skl-uncore.rst"
        ))
        .unwrap();
        for unit in [&CBOX, &ARB, &CLOCK, &IMC] {
            for e in unit.events {
                let name = e.name.to_str().unwrap();
                let config = e.config.to_str().unwrap();
                assert!(
                    doc.lines().any(|l| l.contains(name) && l.contains(config)),
                    "{name} {config}"
                );
            }
        }
        for (id, name) in crate::uncore::imc::HOST_BRIDGE_IDS {
            assert!(doc.contains(&format!("{id:#06x}")), "{name} {id:#06x}");
        }
        for model in ["0x4E", "0x5E", "0x8E", "0x9E", "0xA5", "0xA6"] {
            assert!(doc.contains(model), "{model}");
        }
    }

    #[test]
    fn event_names_are_lower_case_json_names() {
        for unit in [&CBOX, &ARB, &CLOCK, &IMC] {
            for e in unit.events {
                let name = e.name.to_str().unwrap();
                assert!(!name.bytes().any(|b| b.is_ascii_uppercase()), "{name}");
            }
        }
        assert_eq!(CBOX.events.len(), 15);
        assert!(CBOX
            .events
            .iter()
            .chain(ARB.events)
            .all(|e| !e.desc.is_empty()));
        assert_eq!(ARB.events.len(), 5);
    }
}
