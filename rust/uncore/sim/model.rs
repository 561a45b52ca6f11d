// SPDX-License-Identifier: GPL-2.0

//! The register file: MSR and MMIO accesses, time, and the misbehaviour of the world around the
//! driver (a reset as after S3, another tool's WRMSR).

use super::count::{at_rate, filtered_increment, Ctr, Rates};
use super::map::{self, Reg};
use super::{ARB_BOX, NR_GENERIC, NR_GENERIC_BOXES, SIM_MCHBAR_BASE};
use crate::uncore::counter::width_mask;
use crate::uncore::regs::*;
use crate::uncore::units::{ARB, CBOX, MAX_CBOX};

/// A refused access.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Fault {
    /// No such MSR on this part.
    UnknownMsr(u32),
    /// The write set reserved bits.
    ReservedBits { msr: u32, bits: u64 },
    /// The register is read only.
    ReadOnly(u32),
    /// No IMC counter at this MCHBAR offset (or no IMC).
    UnknownMmio(u32),
    /// The register exists but refuses a write setting its enable bit.
    EnableRefused(u32),
    /// The register exists but its reads fault.
    ReadRefused(u32),
}

/// How a CBo's counters past [`SimUncore::set_cbo_counters`] are missing: the cases a part's
/// fault can be, which the driver's probe tells apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum MissingAs {
    /// `PERFEVTSEL` and `PERFCTR` absent: reads and writes #GP.
    Absent,
    /// Both present, but a write of `PERFEVTSEL` with `EN` set #GPs (the write Intel PCM
    /// issue 337 saw fault).
    EnRefused,
    /// Only the `PERFEVTSEL` is absent; the `PERFCTR` reads.
    SelAbsent,
    /// Only the `PERFCTR` is absent: a counter whose read faults.
    CtrAbsent,
}

/// Access counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Stats {
    /// RDMSR executed.
    pub(crate) rdmsr: u64,
    /// WRMSR executed.
    pub(crate) wrmsr: u64,
    /// 32-bit MMIO reads.
    pub(crate) mmio_reads: u64,
    /// Accesses refused.
    pub(crate) faults: u64,
    /// PCI configuration reads of the host bridge.
    pub(crate) pci_reads: u64,
    /// Counters enabled with an event their counter cannot count (ARB occupancy on counter
    /// 1): the hardware accepts it and counts garbage, so the model counts it as a driver bug.
    pub(crate) constraint_violations: u64,
    /// WRMSRs by another tool ([`SimUncore::foreign_wrmsr`]), applied; none of the above.
    pub(crate) foreign_wrmsr: u64,
    /// Resets ([`SimUncore::reset`]).
    pub(crate) resets: u64,
    /// Accesses refused to the driver's load-time probe of the counters a part may lack
    /// ([`SimUncore::probing`]): expected there, so not in `faults`.
    pub(crate) probe_faults: u64,
}

/// The simulated uncore.
#[derive(Debug)]
pub(crate) struct SimUncore {
    pub(super) nr_cbox: u32,
    pub(super) imc_present: bool,
    /// What `MSR_UNC_CBO_CONFIG` reads.
    pub(super) cbo_config: u64,
    pub(super) global_ctrl: u64,
    pub(super) global_status: u64,
    pub(super) fixed_ctrl: u64,
    pub(super) fixed: Ctr,
    /// Generic counters per CBo on this part (2 or 4); the others are absent.
    pub(super) cbo_counters: u32,
    pub(super) evtsel: [[u64; NR_GENERIC]; NR_GENERIC_BOXES],
    pub(super) ctr: [[Ctr; NR_GENERIC]; NR_GENERIC_BOXES],
    pub(super) imc: [Ctr; 5],
    /// Background rates; changing them takes effect from the next access on.
    pub(crate) rates: Rates,
    pub(super) now_ns: u64,
    /// Access and fault counts.
    pub(crate) stats: Stats,
    /// The last fault, for the debugfs dump.
    pub(crate) last_fault: Option<Fault>,
    /// An MSR made absent ([`Self::set_absent`]), or 0.
    pub(super) absent: u32,
    /// How the counters past `cbo_counters` are missing.
    pub(super) missing_as: MissingAs,
    /// An MSR that exists but refuses a write setting its enable bit
    /// ([`Self::set_en_faults`]), or 0.
    pub(super) en_faults: u32,
    /// An MSR whose reads fault while writes work ([`Self::set_read_faults`]), or 0.
    pub(super) read_faults: u32,
}

/// Who writes an MSR: the driver under test, or another tool (not counted, not its fault).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Writer {
    Driver,
    Foreign,
}

/// Where an access lands in the register file: the map's register, with the ARB's generic
/// counters in slot [`ARB_BOX`] beside the CBos'.
#[derive(Clone, Copy)]
enum Loc {
    GlobalCtrl,
    GlobalStatus,
    FixedCtrl,
    FixedCtr,
    CboConfig,
    EvtSel(usize, usize),
    Ctr(usize, usize),
}

impl SimUncore {
    /// A powered-on uncore with `nr_cbox` CBos (at most [`MAX_CBOX`]) and an IMC if `imc_present`
    /// (the simulator gives it to package 0's only: one per machine). All registers read zero; no
    /// counter runs. `MSR_UNC_CBO_CONFIG` reads `nr_cbox + 1`, as the manual encodes it.
    pub(crate) fn new(nr_cbox: u32, imc_present: bool, rates: Rates) -> Self {
        let nr_cbox = nr_cbox.min(MAX_CBOX);
        Self {
            nr_cbox,
            imc_present,
            cbo_config: u64::from(nr_cbox) + 1,
            global_ctrl: 0,
            global_status: 0,
            fixed_ctrl: 0,
            fixed: Ctr::default(),
            cbo_counters: CBOX.nr_generic_listed,
            evtsel: [[0; NR_GENERIC]; NR_GENERIC_BOXES],
            ctr: [[Ctr::default(); NR_GENERIC]; NR_GENERIC_BOXES],
            imc: [Ctr::default(); 5],
            rates,
            now_ns: 0,
            stats: Stats::default(),
            last_fault: None,
            absent: 0,
            missing_as: MissingAs::Absent,
            en_faults: 0,
            read_faults: 0,
        }
    }

    /// Makes `MSR_UNC_CBO_CONFIG` read `raw` (a part that reports its CBos differently). The
    /// CBos that exist stay `nr_cbox`.
    pub(crate) fn set_cbo_config(&mut self, raw: u64) {
        self.cbo_config = raw;
    }

    /// Runs `f`, the driver's probe of registers a part may lack: the faults it takes count
    /// as `probe_faults`, not as the driver's `faults`.
    pub(crate) fn probing<R>(&mut self, f: impl FnOnce(&mut Self) -> R) -> R {
        let before = self.stats.faults;
        let r = f(self);
        self.stats.probe_faults += self.stats.faults - before;
        self.stats.faults = before;
        r
    }

    /// Gives every CBo `n` generic counters (2 or 4, as Table 2-1 or the i7-6700K); the
    /// others' registers fault. `EINVAL`-worthy values are the caller's to refuse.
    pub(crate) fn set_cbo_counters(&mut self, n: u32) {
        self.cbo_counters = n.clamp(CBOX.nr_generic_listed, CBOX.nr_generic);
    }

    /// Makes the counters past `cbo_counters` missing as `how`.
    pub(crate) fn set_missing_as(&mut self, how: MissingAs) {
        self.missing_as = how;
    }

    /// The register at `msr` on this part: the map's, less the CBos and counters it does not
    /// have.
    fn decode(&self, msr: u32) -> Option<Loc> {
        if msr == self.absent {
            return None;
        }
        let sel_there = matches!(self.missing_as, MissingAs::EnRefused | MissingAs::CtrAbsent);
        let ctr_there = matches!(self.missing_as, MissingAs::EnRefused | MissingAs::SelAbsent);
        Some(match map::lookup(msr)? {
            Reg::CboEvtSel(b, _) | Reg::CboCtr(b, _) if b >= self.nr_cbox => return None,
            Reg::CboEvtSel(_, i) if i >= self.cbo_counters && !sel_there => return None,
            Reg::CboCtr(_, i) if i >= self.cbo_counters && !ctr_there => return None,
            Reg::GlobalCtrl => Loc::GlobalCtrl,
            Reg::GlobalStatus => Loc::GlobalStatus,
            Reg::FixedCtrl => Loc::FixedCtrl,
            Reg::FixedCtr => Loc::FixedCtr,
            Reg::CboConfig => Loc::CboConfig,
            Reg::CboEvtSel(b, i) => Loc::EvtSel(b as usize, i as usize),
            Reg::CboCtr(b, i) => Loc::Ctr(b as usize, i as usize),
            Reg::ArbEvtSel(i) => Loc::EvtSel(ARB_BOX, i as usize),
            Reg::ArbCtr(i) => Loc::Ctr(ARB_BOX, i as usize),
        })
    }

    fn fault(&mut self, fault: Fault) -> Fault {
        self.stats.faults += 1;
        self.last_fault = Some(fault);
        fault
    }

    fn globally_enabled(&self) -> bool {
        GlobalCtrl::from_raw(self.global_ctrl).is_set(GlobalCtrl::EN)
    }

    pub(super) fn generic_enabled(&self, b: usize, i: usize) -> bool {
        self.globally_enabled() && PerfEvtSel::from_raw(self.evtsel[b][i]).is_set(PerfEvtSel::EN)
    }

    pub(super) fn fixed_enabled(&self) -> bool {
        self.globally_enabled() && FixedCtrl::from_raw(self.fixed_ctrl).is_set(FixedCtrl::CNT_EN)
    }

    /// The `GLOBAL_STATUS` overflow bit of box slot `b`.
    pub(super) fn status_bit(b: usize) -> u64 {
        if b == ARB_BOX {
            GlobalStatus::ARB_CTR_OVF.mask()
        } else {
            GlobalStatus::CBO_CTR_OVF.mask()
        }
    }

    /// Brings every counter up to `now_ns`. Time never runs backwards here.
    pub(crate) fn advance(&mut self, now_ns: u64) {
        let dt = now_ns.saturating_sub(self.now_ns);
        self.now_ns = self.now_ns.max(now_ns);
        if dt == 0 {
            return;
        }
        if self.fixed_enabled() {
            let inc = at_rate(self.rates.uclk_hz, dt, &mut self.fixed.frac);
            let bit = GlobalStatus::FIXED_CTR_OVF.mask();
            self.fixed
                .bump(inc, FIXED_CTR_WIDTH, &mut self.global_status, bit);
        }
        for b in 0..NR_GENERIC_BOXES {
            for i in 0..NR_GENERIC {
                if !self.generic_enabled(b, i) {
                    continue;
                }
                let sel = PerfEvtSel::from_raw(self.evtsel[b][i]);
                let c = &mut self.ctr[b][i];
                let events = at_rate(self.rates.generic[b], dt, &mut c.frac);
                // Cycles matter only to an inverted threshold: skip the division otherwise.
                let cycles = if sel.is_set(PerfEvtSel::INV) && sel.get(PerfEvtSel::THR) != 0 {
                    at_rate(self.rates.uclk_hz, dt, &mut c.cyc_frac)
                } else {
                    events
                };
                let inc = filtered_increment(sel, events, cycles, false);
                c.bump(
                    inc,
                    PERFCTR_WIDTH,
                    &mut self.global_status,
                    Self::status_bit(b),
                );
            }
        }
        if self.imc_present {
            for (c, &rate) in self.imc.iter_mut().zip(&self.rates.imc) {
                let inc = at_rate(rate, dt, &mut c.frac);
                // The IMC counters have no overflow status.
                c.bump(inc, IMC_CTR_WIDTH, &mut 0, 0);
            }
        }
    }

    /// RDMSR at time `now_ns`.
    pub(crate) fn rdmsr(&mut self, msr: u32, now_ns: u64) -> Result<u64, Fault> {
        self.stats.rdmsr += 1;
        self.advance(now_ns);
        let Some(reg) = self.decode(msr) else {
            return Err(self.fault(Fault::UnknownMsr(msr)));
        };
        if msr == self.read_faults {
            return Err(self.fault(Fault::ReadRefused(msr)));
        }
        Ok(match reg {
            Loc::GlobalCtrl => self.global_ctrl,
            Loc::GlobalStatus => self.global_status,
            Loc::FixedCtrl => self.fixed_ctrl,
            Loc::FixedCtr => self.fixed.value,
            Loc::CboConfig => self.cbo_config,
            Loc::EvtSel(b, i) => self.evtsel[b][i],
            Loc::Ctr(b, i) => self.ctr[b][i].value,
        })
    }

    /// WRMSR by the driver at time `now_ns`. A refused write changes nothing.
    pub(crate) fn wrmsr(&mut self, msr: u32, value: u64, now_ns: u64) -> Result<(), Fault> {
        self.stats.wrmsr += 1;
        self.write(msr, value, now_ns, Writer::Driver)
    }

    /// WRMSR by another tool (`wrmsr -a`, a second driver) at time `now_ns`: applied exactly
    /// like [`Self::wrmsr`], including refusals, but it is not the driver's access. Only
    /// `stats.foreign_wrmsr` counts it; a refusal is returned, not counted as a fault, and an
    /// event on the wrong counter is not a constraint violation.
    pub(crate) fn foreign_wrmsr(&mut self, msr: u32, value: u64, now_ns: u64) -> Result<(), Fault> {
        self.stats.foreign_wrmsr += 1;
        self.write(msr, value, now_ns, Writer::Foreign)
    }

    fn write(&mut self, msr: u32, value: u64, now_ns: u64, who: Writer) -> Result<(), Fault> {
        self.advance(now_ns);
        let refuse = |s: &mut Self, f: Fault| match who {
            Writer::Driver => s.fault(f),
            Writer::Foreign => f,
        };
        let Some(reg) = self.decode(msr) else {
            return Err(refuse(self, Fault::UnknownMsr(msr)));
        };
        let defined = match reg {
            Loc::GlobalCtrl => GlobalCtrl::DEFINED,
            Loc::GlobalStatus => GlobalStatus::DEFINED,
            Loc::FixedCtrl => FixedCtrl::DEFINED,
            Loc::FixedCtr => width_mask(FIXED_CTR_WIDTH),
            Loc::CboConfig => return Err(refuse(self, Fault::ReadOnly(msr))),
            Loc::EvtSel(..) => PerfEvtSel::DEFINED,
            Loc::Ctr(..) => width_mask(PERFCTR_WIDTH),
        };
        let en = PerfEvtSel::EN.mask();
        let defined = match reg {
            // A counter the part lacks, whose control register takes everything but EN.
            Loc::EvtSel(b, i) if b != ARB_BOX && i as u32 >= self.cbo_counters => defined & !en,
            _ => defined,
        };
        if value & !defined != 0 {
            let bits = value & !defined;
            return Err(refuse(self, Fault::ReservedBits { msr, bits }));
        }
        if msr == self.en_faults && value & Self::enable_bit(reg) != 0 {
            return Err(refuse(self, Fault::EnableRefused(msr)));
        }
        match reg {
            Loc::GlobalCtrl => self.global_ctrl = value,
            // RW1C: writing 1 clears.
            Loc::GlobalStatus => self.global_status &= !value,
            Loc::FixedCtrl => self.fixed_ctrl = value,
            Loc::FixedCtr => self.fixed.value = value,
            Loc::CboConfig => {}
            Loc::EvtSel(b, i) => {
                let sel = PerfEvtSel::from_raw(value);
                let unit = if b == ARB_BOX { &ARB } else { &CBOX };
                let event = sel.get(PerfEvtSel::EVT_SEL) as u8;
                if who == Writer::Driver
                    && sel.is_set(PerfEvtSel::EN)
                    && unit.allowed_counters(event, unit.nr_generic) & (1 << i) == 0
                {
                    self.stats.constraint_violations += 1;
                }
                self.evtsel[b][i] = value;
            }
            Loc::Ctr(b, i) => self.ctr[b][i].value = value,
        }
        Ok(())
    }

    /// Every register and counter back to its power-on value at `now_ns`, as after S3 or a
    /// package reset: all enables, selects, status bits and counters (the IMC's too) read 0.
    /// The manual gives no reset values; 0 is what the model starts with.
    ///
    /// What stays: the rates, the access counts, and each counter's running `total`. A total
    /// is every increment the hardware counted, across resets, so after a reset it is still
    /// the exact sum a driver must report for an event that was counting all along, provided
    /// the driver reprograms it: increments that arrive while the reset left the counter
    /// disabled are counted nowhere, total included.
    pub(crate) fn reset(&mut self, now_ns: u64) {
        self.reset_msrs(now_ns);
        for c in &mut self.imc {
            c.value = 0;
        }
    }

    /// Every uncore MSR to its power-on value, the IMC counters untouched: what firmware or
    /// another tool can do while the system runs (only a power transition resets MCHBAR's
    /// read-only counters).
    pub(crate) fn reset_msrs(&mut self, now_ns: u64) {
        self.advance(now_ns);
        self.global_ctrl = 0;
        self.global_status = 0;
        self.fixed_ctrl = 0;
        self.evtsel = [[0; NR_GENERIC]; NR_GENERIC_BOXES];
        for c in self.ctr.iter_mut().flatten().chain([&mut self.fixed]) {
            c.value = 0;
        }
        self.stats.resets += 1;
    }

    /// Makes MSR `msr` absent (reads and writes fault), as counters 2 and 3 are on some
    /// parts; 0 makes every register present again.
    pub(crate) fn set_absent(&mut self, msr: u32) {
        self.absent = msr;
    }

    /// Makes MSR `msr` refuse any write that sets its enable bit (`EN`, `CNT_EN`), as a
    /// hypervisor that lets the register exist but not count; 0: none.
    pub(crate) fn set_en_faults(&mut self, msr: u32) {
        self.en_faults = msr;
    }

    /// Makes reads of MSR `msr` fault while its writes work; 0: none.
    pub(crate) fn set_read_faults(&mut self, msr: u32) {
        self.read_faults = msr;
    }

    /// The bit of a control register that makes its counter(s) count; 0 for the others.
    fn enable_bit(reg: Loc) -> u64 {
        match reg {
            Loc::GlobalCtrl => GlobalCtrl::DRIVER_VALUE.into_raw(),
            Loc::FixedCtrl => FixedCtrl::DRIVER_VALUE.into_raw(),
            Loc::EvtSel(..) => PerfEvtSel::from_raw(0).with(PerfEvtSel::EN, 1).into_raw(),
            _ => 0,
        }
    }

    /// 32-bit MMIO read at MCHBAR + `offset`.
    pub(crate) fn mmio_read32(&mut self, offset: u32, now_ns: u64) -> Result<u32, Fault> {
        self.stats.mmio_reads += 1;
        self.advance(now_ns);
        match IMC_COUNTERS.iter().position(|c| c.offset == offset) {
            Some(i) if self.imc_present => Ok(self.imc[i].value as u32),
            _ => Err(self.fault(Fault::UnknownMmio(offset))),
        }
    }

    /// A 32-bit read of the host bridge's PCI configuration space (0:0.0): a Skylake-S
    /// quad-core bridge (0x191F) whose `MCHBAR` is enabled when the IMC is present.
    pub(crate) fn pci_config_read32(&mut self, offset: u16) -> u32 {
        self.stats.pci_reads += 1;
        match offset {
            0x00 => 0x191f_8086,
            PCI_MCHBAR_LO => SIM_MCHBAR_BASE as u32 | u32::from(self.imc_present),
            PCI_MCHBAR_HI => (SIM_MCHBAR_BASE >> 32) as u32,
            _ => 0,
        }
    }

    /// The state a driver must leave behind when it unloads.
    pub(crate) fn leftovers(&self) -> Leftovers {
        Leftovers {
            global_ctrl: self.global_ctrl,
            fixed_ctrl: self.fixed_ctrl,
            enabled_counters: self
                .evtsel
                .iter()
                .flatten()
                .filter(|&&sel| PerfEvtSel::from_raw(sel).is_set(PerfEvtSel::EN))
                .count(),
            faults: self.stats.faults,
            violations: self.stats.constraint_violations,
        }
    }
}

/// What [`SimUncore::leftovers`] reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Leftovers {
    /// `MSR_UNC_PERF_GLOBAL_CTRL`.
    pub(crate) global_ctrl: u64,
    /// `MSR_UNC_PERF_FIXED_CTRL`.
    pub(crate) fixed_ctrl: u64,
    /// Generic counters with `EN` set.
    pub(crate) enabled_counters: usize,
    /// Accesses refused.
    pub(crate) faults: u64,
    /// Constraint violations.
    pub(crate) violations: u64,
}
