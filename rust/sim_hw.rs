// SPDX-License-Identifier: GPL-2.0

//! The simulated uncore behind the engine, and its debugfs interface. Only the simulator
//! module has this file.
//!
//! `/sys/kernel/debug/skl_uncore_sim/`:
//! - `regs`: the register file, counters and access counts (read);
//! - `inject`: `UNIT BOX EVENT UMASK COUNT` adds COUNT events (write; see
//!   [`SimUncore::inject`]).

use kernel::{
    debugfs::{Dir, File},
    prelude::*,
    sync::Arc,
    uaccess::UserSliceReader,
};

use crate::engine::Hw;
use crate::kabi::platform::SimLocked;
use crate::uncore::sim::{parse_inject, Fault, Rates, SimUncore};

/// The simulated registers, serialised by a raw spinlock (accessed from PMU callbacks and
/// hard-irq timers).
pub(crate) struct SimHw {
    model: SimLocked<SimUncore>,
}

use crate::kabi::platform::now_ns;

fn fault_to_err(_f: Fault) -> Error {
    // What `rdmsr_safe`/`wrmsr_safe` report for a #GP.
    EIO
}

impl SimHw {
    /// A simulated uncore with `nr_cbox` CBos, an IMC if `imc`, UCLK at `uclk_hz`.
    pub(crate) fn new(nr_cbox: u32, imc: bool, rates: Rates) -> Self {
        Self {
            model: SimLocked::new(SimUncore::new(nr_cbox, imc, rates)),
        }
    }

    /// Runs `f` on the model.
    pub(crate) fn with<R>(&self, f: impl FnOnce(&mut SimUncore) -> R) -> R {
        self.model.with(f)
    }
}

impl Hw for SimHw {
    fn rdmsr(&self, msr: u32) -> Result<u64> {
        self.model
            .with(|m| m.rdmsr(msr, now_ns()))
            .map_err(fault_to_err)
    }

    fn wrmsr(&self, msr: u32, val: u64) -> Result {
        self.model
            .with(|m| m.wrmsr(msr, val, now_ns()))
            .map_err(fault_to_err)
    }

    fn wrmsr_on_cpu(&self, _cpu: u32, msr: u32, val: u64) -> Result {
        // One register file for the whole machine.
        self.wrmsr(msr, val)
    }

    fn imc_read(&self, offset: u32) -> Result<u32> {
        self.model
            .with(|m| m.mmio_read32(offset, now_ns()))
            .map_err(fault_to_err)
    }
}

/// The debugfs files; removed when dropped.
pub(crate) struct SimDebugfs {
    _regs: Pin<KBox<File<Arc<SimHw>>>>,
    _inject: Pin<KBox<File<Arc<SimHw>>>>,
    _dir: Dir,
}

fn show_regs(hw: &Arc<SimHw>, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
    // Format into the model's lock-free snapshot: the dump is short.
    hw.with(|m| {
        m.advance(now_ns());
        m.dump(f)
    })
}

fn write_inject(hw: &Arc<SimHw>, reader: &mut UserSliceReader) -> Result {
    let mut buf = [0u8; 96];
    let n = reader.len();
    if n > buf.len() {
        pr_info!("inject: line too long ({n} bytes)\n");
        return Err(EINVAL);
    }
    reader.read_slice(&mut buf[..n])?;
    let line = core::str::from_utf8(&buf[..n]).map_err(|_| EINVAL)?;
    let cmd = parse_inject(line).map_err(|e| {
        pr_info!("inject: {e:?}: expected 'UNIT BOX EVENT UMASK COUNT', UNIT one of cbox|arb|clock|imc\n");
        EINVAL
    })?;
    hw.with(|m| {
        m.inject(
            cmd.unit,
            cmd.box_idx,
            cmd.event,
            cmd.umask,
            cmd.count,
            now_ns(),
        )
    })
    .map(|_| ())
    .map_err(|e| {
        pr_info!("inject: {e:?}\n");
        EINVAL
    })
}

impl SimDebugfs {
    /// Creates `/sys/kernel/debug/skl_uncore_sim/`.
    pub(crate) fn new(hw: &Arc<SimHw>) -> Result<Self> {
        let dir = Dir::new(c"skl_uncore_sim");
        let regs = KBox::pin_init(
            dir.read_callback_file(c"regs", hw.clone(), &show_regs),
            GFP_KERNEL,
        )?;
        let inject = KBox::pin_init(
            dir.write_callback_file(c"inject", hw.clone(), &write_inject),
            GFP_KERNEL,
        )?;
        Ok(Self {
            _regs: regs,
            _inject: inject,
            _dir: dir,
        })
    }
}
