// SPDX-License-Identifier: GPL-2.0

//! Rust perf PMU sample.
//!
//! A system-wide PMU, `rust_perf_pmu`, with one event, `tally`: the sum of the numbers written
//! to `/sys/kernel/debug/rust_perf_pmu/add` while the event is on the PMU (from perf's `add` to
//! its `del`). A counter any machine has, whose count a test knows exactly:
//!
//! ```text
//! # perf stat -a -e rust_perf_pmu/tally/ -- sh -c 'echo 5 > /sys/kernel/debug/rust_perf_pmu/add'
//!                  5      rust_perf_pmu/tally/
//! ```

use kernel::perf::{
    sysfs::{Events, PmuAttrs, StrAttr},
    Capability, Event, EventFlag, EventFlags, HwState, HwStateFlag, InitEvent, PmuOps,
    PmuRegistration, ReadEvent, Scope,
};
use kernel::{
    debugfs::{Dir, File},
    prelude::*,
    str::CString,
    sync::atomic::{Atomic, Relaxed},
    uaccess::UserSliceReader,
};

module! {
    type: RustPerfPmu,
    name: "rust_perf_pmu",
    authors: ["skl-uncore developers"],
    description: "Rust perf PMU sample",
    license: "GPL",
}

/// The counter: what was written to `add` since the module loaded, modulo 2^64.
static TALLY: Atomic<u64> = Atomic::new(0);

/// `add`'s write: one decimal number, added to [`TALLY`].
fn write_add(_: &(), reader: &mut UserSliceReader) -> Result {
    let mut buf = [0u8; 21]; // u64::MAX and a newline.
    let len = reader.len();
    let text = buf.get_mut(..len).ok_or(EINVAL)?;
    reader.read_slice(text)?;
    let n: u64 = core::str::from_utf8(text)
        .map_err(|_| EINVAL)?
        .trim()
        .parse()
        .map_err(|_| EINVAL)?;
    TALLY.add(n, Relaxed);
    Ok(())
}

// `config` holds the event's number: 0, the only one.
kernel::static_attr_group!(
    static FORMAT = c"format",
    &[StrAttr { name: c"event", value: c"config:0-7" }]
);

/// The PMU: events count [`TALLY`]'s moves from `add` to `del`. Like a free-running hardware
/// counter read at `add`, [`TALLY`] does not stop: a `stop` only brings the count up to date.
/// So the one `stop` and `start` perf calls between the two on a counting event, when a
/// sampling software event throttles the group (see [`PmuOps`]), miss no write, and a read in
/// between counts none twice.
struct Tally {
    attrs: Pin<KBox<PmuAttrs>>,
}

#[vtable]
impl PmuOps for Tally {
    // The callbacks need nothing from `event_init`: there is one event.
    type Config = ();
    // A write counts whoever makes it: perf refuses `exclude_*` bits.
    const CAPABILITIES: &'static [Capability] = &[Capability::NoExclude];

    fn attrs(&self) -> &PmuAttrs {
        &self.attrs
    }

    fn event_init(&self, ev: &InitEvent<()>) -> Result {
        // One event; it has no overflow interrupt to sample with.
        if ev.config() != 0 {
            return Err(EINVAL);
        }
        if ev.is_sampling() {
            return Err(EOPNOTSUPP);
        }
        Ok(())
    }

    fn add(&self, ev: &Event<()>, flags: EventFlags) -> Result {
        ev.set_prev_count(TALLY.load(Relaxed));
        ev.set_state(HwState::STOPPED_UPTODATE);
        if flags.contains(EventFlag::Start) {
            self.start(ev, flags);
        }
        Ok(())
    }

    fn del(&self, ev: &Event<()>, _flags: EventFlags) {
        self.stop(ev, EventFlag::Update.into());
    }

    fn start(&self, ev: &Event<()>, _flags: EventFlags) {
        ev.set_state(HwState::empty());
    }

    fn stop(&self, ev: &Event<()>, _flags: EventFlags) {
        // Up to date whatever the flags: the caller may be `del`, or a throttled group.
        if !ev.state().contains(HwStateFlag::Stopped) {
            self.read(ev);
            ev.set_state(HwState::STOPPED_UPTODATE);
        }
    }

    fn read(&self, ev: &ReadEvent) {
        ev.update_count(|| TALLY.load(Relaxed));
    }
}

/// The loaded sample: the PMU, and the debugfs file that feeds it.
struct RustPerfPmu {
    _pmu: Pin<KBox<PmuRegistration<Tally>>>,
    _add: Pin<KBox<File<()>>>,
    _dir: Dir,
}

impl kernel::Module for RustPerfPmu {
    fn init(module: &'static ThisModule) -> Result<Self> {
        let dir = Dir::new(c"rust_perf_pmu");
        let add = KBox::pin_init(dir.write_callback_file(c"add", (), &write_add), GFP_KERNEL)?;
        // `events/` built now, the way for events known only at registration (the selftest
        // reads it back); events known at build time can be a static group, as `format/` is.
        let attrs = PmuAttrs::new(
            FORMAT.group(),
            Events::Built(&[StrAttr {
                name: c"tally",
                value: c"event=0x00",
            }]),
        )?;
        let name = CString::try_from_fmt(fmt!("rust_perf_pmu"))?;
        let pmu = KBox::pin_init(
            PmuRegistration::register(name, Scope::System, Tally { attrs }, module),
            GFP_KERNEL,
        )?;
        pr_info!("PMU type {}\n", pmu.pmu_type());
        Ok(Self {
            _pmu: pmu,
            _add: add,
            _dir: dir,
        })
    }
}
