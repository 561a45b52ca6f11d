// SPDX-License-Identifier: GPL-2.0

//! The `events/` files: the manual's chapter 3 events, with the names perf's JSON files use
//! (lower case).

use core::ffi::CStr;

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
    pub(crate) const fn new(
        name: &'static CStr,
        config: &'static CStr,
        desc: &'static str,
    ) -> Self {
        Self {
            name,
            config,
            scale: None,
            unit: None,
            box0_only: false,
            desc,
        }
    }

    /// Whether the PMU of box `box_idx` shows it.
    pub(crate) const fn shown_by(&self, box_idx: u32) -> bool {
        !self.box0_only || box_idx == 0
    }

    /// The box whose `events/` files box `box_idx`'s are: [`Self::shown_by`] tells only box 0
    /// apart, so box 1 stands for every other box and a unit needs two `events/` groups.
    pub(crate) const fn files_like(box_idx: u32) -> u32 {
        if box_idx == 0 {
            0
        } else {
            1
        }
    }

    /// Its `events/` files, name → content: itself, then its `.scale` and `.unit`, if any.
    pub(crate) const fn files(&self) -> [Option<(&'static CStr, &'static CStr)>; 3] {
        [Some((self.name, self.config)), self.scale, self.unit]
    }
}

/// `clockticks` on the fixed counter.
pub(crate) const CLOCKTICKS: NamedEvent = NamedEvent::new(
    c"clockticks",
    c"event=0xff",
    "UNC_CLOCK.SOCKET: uncore clock (UCLK) cycles, on the 48-bit fixed counter.",
);

/// CBo events (Table 3-1), then `clockticks`, which only `uncore_cbox_0` has.
pub(crate) const CBOX_EVENTS: &[NamedEvent] = &[
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
pub(crate) const ARB_EVENTS: &[NamedEvent] = &[
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
pub(crate) const IMC_EVENTS: &[NamedEvent] = &[
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

#[cfg(test)]
mod tests {
    use crate::uncore::units::{ARB, CBOX, CLOCK, IMC};

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

    /// Only `uncore_cbox_0` shows `clockticks`; the IMC's events bring their `.scale` and
    /// `.unit` files.
    #[test]
    fn events_files_per_box() {
        let files = |events: &[super::NamedEvent], box_idx| -> Vec<String> {
            events
                .iter()
                .filter(|e| e.shown_by(box_idx))
                .flat_map(|e| e.files().into_iter().flatten())
                .map(|(name, _)| name.to_str().unwrap().to_owned())
                .collect()
        };
        let (box0, box1) = (files(CBOX.events, 0), files(CBOX.events, 1));
        assert_eq!(box0.len(), 15);
        assert_eq!(box0.last().unwrap(), "clockticks");
        assert_eq!(box0[..14], box1[..]);
        for b in 0..8 {
            let like = super::NamedEvent::files_like(b);
            assert!(like <= 1);
            assert_eq!(files(CBOX.events, b), files(CBOX.events, like), "box {b}");
        }
        assert_eq!(files(CBOX.events, 3), box1);
        assert_eq!(files(CLOCK.events, 0), ["clockticks"]);
        assert_eq!(
            files(IMC.events, 0)[..3],
            ["data_reads", "data_reads.scale", "data_reads.unit"]
        );
        assert_eq!(files(IMC.events, 0).len(), 3 * IMC.events.len());
    }
}
