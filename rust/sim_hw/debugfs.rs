// SPDX-License-Identifier: GPL-2.0

//! `/sys/kernel/debug/skl_uncore_sim/`:
//! - `regs` (read): the register file, counters, rates and access counts;
//! - `inject` (write): `UNIT BOX EVENT UMASK COUNT` adds COUNT events ([`SimUncore::inject`]);
//! - `preset` (write): `UNIT BOX COUNTER VALUE` sets a counter, e.g. near its wrap point;
//! - `rate` (write): `UNIT BOX COUNTER RATE` sets a background rate per second;
//! - `fault` (write): what the world does behind the driver's back, in every package:
//!   `reset` puts every MSR to its power-on value ([`SimUncore::reset_msrs`]; S3 also resets
//!   the IMC counters, [`SimUncore::reset`]); `absent ADDR` makes an MSR fault;
//!   `en-faults ADDR` makes a write that sets the MSR's enable bit fault, `read-faults ADDR`
//!   its reads;
//!   `wrmsr ADDR VALUE` is another tool's WRMSR ([`SimUncore::foreign_wrmsr`]), not counted
//!   as the driver's access. A write the hardware refuses (#GP) fails with `EIO`. `late MS`
//!   holds every package timer off for MS milliseconds (a late poll); `idle MS` too, then
//!   wakes the system from suspend-to-idle (`echo freeze > /sys/power/state`).
//!
//! UNIT is cbox, arb, clock or imc. COUNTER is the generic counter (cbox, arb; for `rate` 0 means
//! the whole box), 0 for the clock, and the event code 1..5 for the IMC. `inject`, `preset` and
//! `rate` act on every package's MSR units, and on the machine's one IMC ([`SimHw::imc`]) for
//! `imc`, whatever CPU writes them. Numbers are decimal or 0x hex. A refused line changes nothing
//! and fails the write with `EINVAL` and one line in the log.

use kernel::{
    debugfs::{Dir, File},
    prelude::*,
    sync::{atomic::ordering, Arc},
    uaccess::UserSliceReader,
};

use super::{nmi, SimHw, LOAD_US, PROBES_IN_HOTPLUG};
use crate::kabi::{lock::SimLock, platform::now_ns};
use crate::uncore::{
    sim::{
        drive::InjectError,
        parse::{parse_counter_cmd, parse_fault, parse_inject, CounterCmd, FaultCmd},
        SimUncore,
    },
    units::{ARB, CBOX, CLOCK, IMC},
};

/// The debugfs files; removed when dropped.
pub(crate) struct SimDebugfs {
    _files: [Pin<KBox<File<Arc<SimHw>>>>; 5],
    _dir: Dir,
}

fn show_regs(hw: &Arc<SimHw>, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
    writeln!(
        f,
        "poll_ms cbox {} arb {} clock {} imc {} homings {} in_flight {} polls {}",
        CBOX.poll_ms,
        ARB.poll_ms,
        CLOCK.poll_ms,
        IMC.poll_ms,
        crate::kabi::poller::homings(),
        crate::kabi::poller::homings_in_flight(),
        crate::engine::polls()
    )?;
    let us = LOAD_US.each_ref().map(|a| a.load(ordering::Relaxed));
    writeln!(
        f,
        "load_us model {} names {} probe {} files {} register {}",
        us[0], us[1], us[2], us[3], us[4]
    )?;
    writeln!(f, "nmi_reads {} busy {}", nmi::reads(), nmi::busy())?;
    let [suspends, wakes] = crate::kabi::pm::s2idle_calls();
    writeln!(f, "s2idle suspends {suspends} wakes {wakes}")?;
    let overlapped = PROBES_IN_HOTPLUG.load(ordering::Relaxed);
    writeln!(f, "probes_in_hotplug {overlapped}")?;
    for (pkg, model) in hw.models.iter().enumerate() {
        if hw.models.len() > 1 {
            writeln!(f, "package {pkg}")?;
        }
        model.with(|m| {
            m.advance(now_ns());
            m.dump(f)
        })?;
    }
    Ok(())
}

/// Reads one line written to a debugfs file.
fn read_line<'a>(
    file: &str,
    reader: &mut UserSliceReader,
    buf: &'a mut [u8; 96],
) -> Result<&'a str> {
    let n = reader.len();
    if n > buf.len() {
        pr_info!("{file}: line too long ({n} bytes)\n");
        return Err(EINVAL);
    }
    reader.read_slice(&mut buf[..n])?;
    core::str::from_utf8(&buf[..n]).map_err(|_| {
        pr_info!("{file}: not text\n");
        EINVAL
    })
}

/// Logs why `file` refused a line and returns `EINVAL`.
fn refused(file: &str, why: impl core::fmt::Debug, usage: &str) -> Error {
    pr_info!("{file}: {why:?}: expected '{usage}'\n");
    EINVAL
}

fn write_inject(hw: &Arc<SimHw>, reader: &mut UserSliceReader) -> Result {
    const USAGE: &str = "UNIT BOX EVENT UMASK COUNT', UNIT one of cbox|arb|clock|imc";
    let mut buf = [0u8; 96];
    let cmd = parse_inject(read_line("inject", reader, &mut buf)?)
        .map_err(|e| refused("inject", e, USAGE))?;
    // Every package's MSR units see the injection, as each package's uncore would see its own
    // traffic; the machine's one IMC sees it once.
    hw.each_of(cmd.unit, |m| {
        m.inject(
            cmd.unit,
            cmd.box_idx,
            cmd.event,
            cmd.umask,
            cmd.count,
            now_ns(),
        )
        .map(|_| ())
    })
    .map_err(|e| refused("inject", e, USAGE))
}

/// Parses a `UNIT BOX COUNTER VALUE` line written to `file` and applies it to every package,
/// or to the one IMC.
fn write_counter_cmd(
    hw: &SimHw,
    reader: &mut UserSliceReader,
    file: &str,
    usage: &str,
    op: impl Fn(&mut SimUncore, CounterCmd) -> core::result::Result<(), InjectError>,
) -> Result {
    let mut buf = [0u8; 96];
    let cmd = parse_counter_cmd(read_line(file, reader, &mut buf)?)
        .map_err(|e| refused(file, e, usage))?;
    hw.each_of(cmd.unit, |m| op(m, cmd))
        .map_err(|e| refused(file, e, usage))
}

fn write_preset(hw: &Arc<SimHw>, reader: &mut UserSliceReader) -> Result {
    write_counter_cmd(hw, reader, "preset", "UNIT BOX COUNTER VALUE", |m, c| {
        m.preset(c.unit, c.box_idx, c.counter, c.value, now_ns())
    })
}

fn write_rate(hw: &Arc<SimHw>, reader: &mut UserSliceReader) -> Result {
    write_counter_cmd(hw, reader, "rate", "UNIT BOX COUNTER RATE", |m, c| {
        m.set_rate(c.unit, c.box_idx, c.counter, c.value, now_ns())
    })
}

fn write_fault(hw: &Arc<SimHw>, reader: &mut UserSliceReader) -> Result {
    const USAGE: &str = "reset', 'wrmsr ADDR VALUE', 'absent ADDR', 'en-faults ADDR', \
                         'read-faults ADDR', 'late MS' or 'idle MS";
    let mut buf = [0u8; 96];
    match parse_fault(read_line("fault", reader, &mut buf)?)
        .map_err(|e| refused("fault", e, USAGE))?
    {
        FaultCmd::Reset => {
            hw.reset_all();
            Ok(())
        }
        FaultCmd::Absent { msr } => {
            for m in hw.models.iter() {
                m.with(|m| m.set_absent(msr));
            }
            Ok(())
        }
        FaultCmd::EnFaults { msr } => {
            for m in hw.models.iter() {
                m.with(|m| m.set_en_faults(msr));
            }
            Ok(())
        }
        FaultCmd::ReadFaults { msr } => {
            for m in hw.models.iter() {
                m.with(|m| m.set_read_faults(msr));
            }
            Ok(())
        }
        FaultCmd::Late { ms } => {
            crate::engine::hold_timers(ms, false);
            Ok(())
        }
        FaultCmd::Idle { ms } => {
            crate::engine::hold_timers(ms, true);
            Ok(())
        }
        FaultCmd::Wrmsr { msr, value } => hw.foreign_wrmsr(msr, value).map_err(|f| {
            pr_info!("fault: wrmsr {msr:#x} {value:#x}: the hardware refuses it ({f:?})\n");
            EIO
        }),
    }
}

impl SimDebugfs {
    /// Creates `/sys/kernel/debug/skl_uncore_sim/`.
    pub(crate) fn new(hw: &Arc<SimHw>) -> Result<Self> {
        let dir = Dir::new(c"skl_uncore_sim");
        let files = [
            KBox::pin_init(
                dir.read_callback_file(c"regs", hw.clone(), &show_regs),
                GFP_KERNEL,
            )?,
            KBox::pin_init(
                dir.write_callback_file(c"inject", hw.clone(), &write_inject),
                GFP_KERNEL,
            )?,
            KBox::pin_init(
                dir.write_callback_file(c"preset", hw.clone(), &write_preset),
                GFP_KERNEL,
            )?,
            KBox::pin_init(
                dir.write_callback_file(c"rate", hw.clone(), &write_rate),
                GFP_KERNEL,
            )?,
            KBox::pin_init(
                dir.write_callback_file(c"fault", hw.clone(), &write_fault),
                GFP_KERNEL,
            )?,
        ];
        Ok(Self {
            _files: files,
            _dir: dir,
        })
    }
}
