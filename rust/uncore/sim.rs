// SPDX-License-Identifier: GPL-2.0

//! A register-file model of the uncore PMU, for the simulator build and the host tests.
//!
//! It holds every MSR of chapter 2 and the IMC counters of the MCHBAR window. Counters advance
//! with time at configurable rates, only while enabled locally and globally (the IMC counters
//! always run), wrap at their hardware width and set the overflow status bits. Writes to
//! reserved bits or read-only registers, and accesses to addresses that do not exist, are
//! refused the way the hardware refuses them (#GP) and counted as faults. Every access is
//! counted, so tests and benchmarks can see exactly what the driver did.
//!
//! The model is passive: the caller supplies the time (ns) with each access.

use super::counter::width_mask;
use super::regs::*;
use super::units::{UnitKind, ARB, CBOX, MAX_CBOX};

/// Boxes with generic counters: CBo 0..MAX_CBOX, then the ARB.
const NR_GENERIC_BOXES: usize = MAX_CBOX as usize + 1;
const ARB_BOX: usize = MAX_CBOX as usize;
const NS_PER_S: u64 = 1_000_000_000;

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
}

/// A counter and the fractional counts carried between time steps, so that counting at a rate
/// is exact over any split of time.
#[derive(Clone, Copy, Debug, Default)]
struct Ctr {
    value: u64,
    /// Remainder of `rate * ns`, below `NS_PER_S`.
    frac: u64,
    /// Remainder for the UCLK cycles an inverted threshold counts.
    cyc_frac: u64,
    /// Every increment ever counted, without wrapping: what a perfect driver reports.
    total: u64,
}

/// Increments over `dt` ns at `rate` per second, carrying the remainder in `frac`.
fn at_rate(rate: u64, dt: u64, frac: &mut u64) -> u64 {
    if rate == 0 {
        return 0;
    }
    // rate * (dt % 1e9) < 1e9 * rate: fits u64 for rates below 1.8e10.
    let whole = rate.wrapping_mul(dt / NS_PER_S);
    let part = rate.saturating_mul(dt % NS_PER_S) + *frac;
    *frac = part % NS_PER_S;
    whole + part / NS_PER_S
}

/// Increment of a generic counter programmed with `sel` for an event asserted in `events` of
/// `cycles` UCLK cycles, one increment per asserted cycle (Table 2-7 semantics):
/// `THR` = 0 passes increments through; otherwise a cycle counts when its increment is
/// `>= THR` (or `< THR` with `INV`); `E` counts de-asserted to asserted transitions instead.
///
/// `burst` says the asserted cycles are consecutive (an injection) rather than isolated
/// (background traffic), which matters only for edges.
pub(crate) fn filtered_increment(sel: PerfEvtSel, events: u64, cycles: u64, burst: bool) -> u64 {
    let thr = sel.get(PerfEvtSel::THR);
    let cycles = cycles.max(events);
    // Cycles in which the compared condition holds.
    let (hits, runs) = if thr == 0 {
        (events, if burst { u64::from(events > 0) } else { events })
    } else if sel.is_set(PerfEvtSel::INV) {
        // An asserted cycle increments by 1: it passes `< THR` only when THR > 1.
        if thr > 1 {
            (cycles, u64::from(cycles > 0))
        } else {
            let idle = cycles - events;
            (
                idle,
                if burst {
                    u64::from(idle > 0)
                } else {
                    events.min(idle)
                },
            )
        }
    } else if thr == 1 {
        (events, if burst { u64::from(events > 0) } else { events })
    } else {
        (0, 0)
    };
    if sel.is_set(PerfEvtSel::E) {
        runs
    } else {
        hits
    }
}

/// Background rates, per second.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Rates {
    /// UCLK: the fixed counter's rate, and the cycles inverted thresholds count.
    pub(crate) uclk_hz: u64,
    /// Events per second seen by every enabled generic counter of a box (CBo 0..7, ARB).
    pub(crate) generic: [u64; NR_GENERIC_BOXES],
    /// IMC counters, indexed like [`IMC_COUNTERS`].
    pub(crate) imc: [u64; 5],
}

/// The simulated uncore.
#[derive(Debug)]
pub(crate) struct SimUncore {
    nr_cbox: u32,
    imc_present: bool,
    global_ctrl: u64,
    global_status: u64,
    fixed_ctrl: u64,
    fixed: Ctr,
    evtsel: [[u64; 2]; NR_GENERIC_BOXES],
    ctr: [[Ctr; 2]; NR_GENERIC_BOXES],
    imc: [Ctr; 5],
    /// Background rates; changing them takes effect from the next access on.
    pub(crate) rates: Rates,
    now_ns: u64,
    /// Access and fault counts.
    pub(crate) stats: Stats,
    /// The last fault, for the debugfs dump.
    pub(crate) last_fault: Option<Fault>,
}

/// What an MSR address names.
#[derive(Clone, Copy)]
enum Reg {
    GlobalCtrl,
    GlobalStatus,
    FixedCtrl,
    FixedCtr,
    CboConfig,
    EvtSel(usize, usize),
    Ctr(usize, usize),
}

impl SimUncore {
    /// A powered-on uncore with `nr_cbox` CBos (at most [`MAX_CBOX`]) and an IMC if
    /// `imc_present`. All registers read zero; no counter runs.
    pub(crate) fn new(nr_cbox: u32, imc_present: bool, rates: Rates) -> Self {
        Self {
            nr_cbox: nr_cbox.min(MAX_CBOX),
            imc_present,
            global_ctrl: 0,
            global_status: 0,
            fixed_ctrl: 0,
            fixed: Ctr::default(),
            evtsel: [[0; 2]; NR_GENERIC_BOXES],
            ctr: [[Ctr::default(); 2]; NR_GENERIC_BOXES],
            imc: [Ctr::default(); 5],
            rates,
            now_ns: 0,
            stats: Stats::default(),
            last_fault: None,
        }
    }

    fn decode(&self, msr: u32) -> Option<Reg> {
        match msr {
            MSR_UNC_PERF_GLOBAL_CTRL => return Some(Reg::GlobalCtrl),
            MSR_UNC_PERF_GLOBAL_STATUS => return Some(Reg::GlobalStatus),
            MSR_UNC_PERF_FIXED_CTRL => return Some(Reg::FixedCtrl),
            MSR_UNC_PERF_FIXED_CTR => return Some(Reg::FixedCtr),
            MSR_UNC_CBO_CONFIG => return Some(Reg::CboConfig),
            _ => {}
        }
        let boxes = (0..self.nr_cbox)
            .map(|b| (&CBOX, b, b as usize))
            .chain([(&ARB, 0, ARB_BOX)]);
        for (unit, b, slot) in boxes {
            for i in 0..unit.nr_generic {
                if msr == unit.evtsel(b, i) {
                    return Some(Reg::EvtSel(slot, i as usize));
                }
                if msr == unit.ctr(b, i) {
                    return Some(Reg::Ctr(slot, i as usize));
                }
            }
        }
        None
    }

    fn fault(&mut self, fault: Fault) -> Fault {
        self.stats.faults += 1;
        self.last_fault = Some(fault);
        fault
    }

    fn globally_enabled(&self) -> bool {
        GlobalCtrl::from_raw(self.global_ctrl).is_set(GlobalCtrl::EN)
    }

    fn generic_enabled(&self, b: usize, i: usize) -> bool {
        self.globally_enabled() && PerfEvtSel::from_raw(self.evtsel[b][i]).is_set(PerfEvtSel::EN)
    }

    fn fixed_enabled(&self) -> bool {
        self.globally_enabled() && FixedCtrl::from_raw(self.fixed_ctrl).is_set(FixedCtrl::CNT_EN)
    }

    /// Adds `inc` to a counter of `width` bits, setting `status_bit` on a wrap.
    fn bump(ctr: &mut Ctr, inc: u64, width: u32, status: &mut u64, status_bit: u64) {
        let mask = width_mask(width);
        let old = ctr.value & mask;
        ctr.value = old.wrapping_add(inc) & mask;
        ctr.total = ctr.total.wrapping_add(inc);
        // A wrap happened when the increment reached past the top, even several times over.
        if inc > mask - old {
            *status |= status_bit;
        }
    }

    /// Brings every counter up to `now_ns`. Time never runs backwards here.
    pub(crate) fn advance(&mut self, now_ns: u64) {
        let dt = now_ns.saturating_sub(self.now_ns);
        self.now_ns = self.now_ns.max(now_ns);
        if dt == 0 {
            return;
        }
        let status_fixed = GlobalStatus::FIXED_CTR_OVF.mask();
        if self.fixed_enabled() {
            let inc = at_rate(self.rates.uclk_hz, dt, &mut self.fixed.frac);
            Self::bump(
                &mut self.fixed,
                inc,
                FIXED_CTR_WIDTH,
                &mut self.global_status,
                status_fixed,
            );
        }
        for b in 0..NR_GENERIC_BOXES {
            let status_bit = if b == ARB_BOX {
                GlobalStatus::ARB_CTR_OVF.mask()
            } else {
                GlobalStatus::CBO_CTR_OVF.mask()
            };
            for i in 0..2 {
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
                Self::bump(c, inc, PERFCTR_WIDTH, &mut self.global_status, status_bit);
            }
        }
        if self.imc_present {
            for (c, &rate) in self.imc.iter_mut().zip(&self.rates.imc) {
                let inc = at_rate(rate, dt, &mut c.frac);
                // The IMC counters have no overflow status.
                let mut ignored = 0;
                Self::bump(c, inc, IMC_CTR_WIDTH, &mut ignored, 0);
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
        Ok(match reg {
            Reg::GlobalCtrl => self.global_ctrl,
            Reg::GlobalStatus => self.global_status,
            Reg::FixedCtrl => self.fixed_ctrl,
            Reg::FixedCtr => self.fixed.value,
            Reg::CboConfig => u64::from(self.nr_cbox) + 1,
            Reg::EvtSel(b, i) => self.evtsel[b][i],
            Reg::Ctr(b, i) => self.ctr[b][i].value,
        })
    }

    /// WRMSR at time `now_ns`. A refused write changes nothing.
    pub(crate) fn wrmsr(&mut self, msr: u32, value: u64, now_ns: u64) -> Result<(), Fault> {
        self.stats.wrmsr += 1;
        self.advance(now_ns);
        let Some(reg) = self.decode(msr) else {
            return Err(self.fault(Fault::UnknownMsr(msr)));
        };
        let defined = match reg {
            Reg::GlobalCtrl => GlobalCtrl::DEFINED,
            Reg::GlobalStatus => GlobalStatus::DEFINED,
            Reg::FixedCtrl => FixedCtrl::DEFINED,
            Reg::FixedCtr => width_mask(FIXED_CTR_WIDTH),
            Reg::CboConfig => return Err(self.fault(Fault::ReadOnly(msr))),
            Reg::EvtSel(..) => PerfEvtSel::DEFINED,
            Reg::Ctr(..) => width_mask(PERFCTR_WIDTH),
        };
        if value & !defined != 0 {
            return Err(self.fault(Fault::ReservedBits {
                msr,
                bits: value & !defined,
            }));
        }
        match reg {
            Reg::GlobalCtrl => self.global_ctrl = value,
            // RW1C: writing 1 clears.
            Reg::GlobalStatus => self.global_status &= !value,
            Reg::FixedCtrl => self.fixed_ctrl = value,
            Reg::FixedCtr => self.fixed.value = value,
            Reg::CboConfig => {}
            Reg::EvtSel(b, i) => {
                let sel = PerfEvtSel::from_raw(value);
                let unit = if b == ARB_BOX { &ARB } else { &CBOX };
                let event = sel.get(PerfEvtSel::EVT_SEL) as u8;
                if sel.is_set(PerfEvtSel::EN) && unit.allowed_counters(event) & (1 << i) == 0 {
                    self.stats.constraint_violations += 1;
                }
                self.evtsel[b][i] = value;
            }
            Reg::Ctr(b, i) => self.ctr[b][i].value = value,
        }
        Ok(())
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

    /// Sets a background rate (per second): `counter` is 0 for a CBo or ARB box (all its
    /// generic counters), 0 for the clock (UCLK), or the IMC event code (1..5).
    pub(crate) fn set_rate(
        &mut self,
        unit: UnitKind,
        box_idx: u32,
        counter: u32,
        rate: u64,
        now_ns: u64,
    ) -> Result<(), InjectError> {
        if rate > MAX_RATE {
            return Err(InjectError::BadValue);
        }
        self.advance(now_ns);
        let slot = match unit {
            UnitKind::Cbox if box_idx < self.nr_cbox && counter == 0 => {
                &mut self.rates.generic[box_idx as usize]
            }
            UnitKind::Arb if box_idx == 0 && counter == 0 => &mut self.rates.generic[ARB_BOX],
            UnitKind::Clock if box_idx == 0 && counter == 0 => &mut self.rates.uclk_hz,
            UnitKind::Imc if self.imc_present && box_idx == 0 && (1..=5).contains(&counter) => {
                &mut self.rates.imc[counter as usize - 1]
            }
            _ => return Err(InjectError::NoSuchBox),
        };
        *slot = rate;
        Ok(())
    }

    /// Simulates a burst of `count` events (`count` consecutive cycles with an increment of 1)
    /// and returns how many counters saw it.
    ///
    /// CBo and ARB: every enabled generic counter of the box whose `EVT_SEL` is `event` and whose
    /// `UMASK` holds all bits of `umask` counts it through its threshold and edge logic.
    /// Clock: the fixed counter, if enabled. IMC: free-running counter `event` (1..5).
    pub(crate) fn inject(
        &mut self,
        unit: UnitKind,
        box_idx: u32,
        event: u8,
        umask: u8,
        count: u64,
        now_ns: u64,
    ) -> Result<u32, InjectError> {
        self.advance(now_ns);
        match unit {
            UnitKind::Cbox | UnitKind::Arb => {
                let b = match unit {
                    UnitKind::Cbox if box_idx < self.nr_cbox => box_idx as usize,
                    UnitKind::Arb if box_idx == 0 => ARB_BOX,
                    _ => return Err(InjectError::NoSuchBox),
                };
                let status_bit = if b == ARB_BOX {
                    GlobalStatus::ARB_CTR_OVF.mask()
                } else {
                    GlobalStatus::CBO_CTR_OVF.mask()
                };
                let mut hit = 0;
                for i in 0..2 {
                    let sel = PerfEvtSel::from_raw(self.evtsel[b][i]);
                    let umask = u64::from(umask);
                    if !self.generic_enabled(b, i)
                        || sel.get(PerfEvtSel::EVT_SEL) != u64::from(event)
                        || sel.get(PerfEvtSel::UMASK) & umask != umask
                    {
                        continue;
                    }
                    let inc = filtered_increment(sel, count, count, true);
                    Self::bump(
                        &mut self.ctr[b][i],
                        inc,
                        PERFCTR_WIDTH,
                        &mut self.global_status,
                        status_bit,
                    );
                    hit += 1;
                }
                Ok(hit)
            }
            UnitKind::Clock => {
                if box_idx != 0 {
                    return Err(InjectError::NoSuchBox);
                }
                if !self.fixed_enabled() {
                    return Ok(0);
                }
                let bit = GlobalStatus::FIXED_CTR_OVF.mask();
                Self::bump(
                    &mut self.fixed,
                    count,
                    FIXED_CTR_WIDTH,
                    &mut self.global_status,
                    bit,
                );
                Ok(1)
            }
            UnitKind::Imc => {
                if box_idx != 0 || !self.imc_present {
                    return Err(InjectError::NoSuchBox);
                }
                if umask != 0 || !(1..=5).contains(&event) {
                    return Err(InjectError::BadEvent);
                }
                let mut ignored = 0;
                Self::bump(
                    &mut self.imc[usize::from(event) - 1],
                    count,
                    IMC_CTR_WIDTH,
                    &mut ignored,
                    0,
                );
                Ok(1)
            }
        }
    }

    /// Every register and counter back to its power-on value, as after S3 (the unwrapped
    /// totals stay).
    pub(crate) fn reset(&mut self, now_ns: u64) {
        self.advance(now_ns);
        self.global_ctrl = 0;
        self.global_status = 0;
        self.fixed_ctrl = 0;
        self.fixed.value = 0;
        self.evtsel = [[0; 2]; NR_GENERIC_BOXES];
        for b in self.ctr.iter_mut() {
            for c in b.iter_mut() {
                c.value = 0;
            }
        }
        for c in self.imc.iter_mut() {
            c.value = 0;
        }
    }

    /// Sets a counter's value directly, bypassing the access counts: presets near the wrap
    /// point for tests. `idx` is the generic counter (CBo, ARB) or IMC event code (1..5).
    pub(crate) fn preset(
        &mut self,
        unit: UnitKind,
        box_idx: u32,
        idx: u32,
        value: u64,
        now_ns: u64,
    ) -> Result<(), InjectError> {
        self.advance(now_ns);
        let slot = match unit {
            UnitKind::Cbox if box_idx < self.nr_cbox && idx < 2 => {
                &mut self.ctr[box_idx as usize][idx as usize].value
            }
            UnitKind::Arb if box_idx == 0 && idx < 2 => &mut self.ctr[ARB_BOX][idx as usize].value,
            UnitKind::Clock if box_idx == 0 && idx == 0 => &mut self.fixed.value,
            UnitKind::Imc if self.imc_present && box_idx == 0 && (1..=5).contains(&idx) => {
                &mut self.imc[idx as usize - 1].value
            }
            _ => return Err(InjectError::NoSuchBox),
        };
        let width = match unit {
            UnitKind::Cbox | UnitKind::Arb => PERFCTR_WIDTH,
            UnitKind::Clock => FIXED_CTR_WIDTH,
            UnitKind::Imc => IMC_CTR_WIDTH,
        };
        *slot = value & width_mask(width);
        Ok(())
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

    /// Writes a human-readable dump of the register file.
    pub(crate) fn dump(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        writeln!(f, "time_ns {}", self.now_ns)?;
        writeln!(
            f,
            "MSR_UNC_PERF_GLOBAL_CTRL   0xe01 = {:#018x}",
            self.global_ctrl
        )?;
        writeln!(
            f,
            "MSR_UNC_PERF_GLOBAL_STATUS 0xe02 = {:#018x}",
            self.global_status
        )?;
        writeln!(
            f,
            "MSR_UNC_PERF_FIXED_CTRL    0x394 = {:#018x}",
            self.fixed_ctrl
        )?;
        writeln!(
            f,
            "MSR_UNC_PERF_FIXED_CTR     0x395 = {:#018x}",
            self.fixed.value
        )?;
        writeln!(
            f,
            "MSR_UNC_CBO_CONFIG         0x396 = {:#018x}",
            u64::from(self.nr_cbox) + 1
        )?;
        for b in 0..self.nr_cbox {
            for i in 0..2 {
                writeln!(
                    f,
                    "MSR_UNC_CBO_{b}_PERFEVTSEL{i}  {:#05x} = {:#018x}  PERFCTR{i} {:#05x} = {:#018x}",
                    CBOX.evtsel(b, i),
                    self.evtsel[b as usize][i as usize],
                    CBOX.ctr(b, i),
                    self.ctr[b as usize][i as usize].value
                )?;
            }
        }
        for i in 0..2 {
            writeln!(
                f,
                "MSR_UNC_ARB_PERFEVTSEL{i}    {:#05x} = {:#018x}  PERFCTR{i} {:#05x} = {:#018x}",
                ARB.evtsel(0, i),
                self.evtsel[ARB_BOX][i as usize],
                ARB.ctr(0, i),
                self.ctr[ARB_BOX][i as usize].value
            )?;
        }
        if self.imc_present {
            for (c, v) in IMC_COUNTERS.iter().zip(&self.imc) {
                writeln!(
                    f,
                    "MCHBAR+{:#06x} {:<17} = {:#010x}",
                    c.offset, c.name, v.value
                )?;
            }
        }
        writeln!(
            f,
            "rates uclk {} generic {:?} imc {:?}",
            self.rates.uclk_hz, self.rates.generic, self.rates.imc
        )?;
        // Every increment the counters took, unwrapped: a driver's counts must add up to these.
        write!(
            f,
            "totals fixed {} arb {} {}",
            self.fixed.total, self.ctr[ARB_BOX][0].total, self.ctr[ARB_BOX][1].total
        )?;
        for b in 0..self.nr_cbox as usize {
            write!(
                f,
                " cbox{b} {} {}",
                self.ctr[b][0].total, self.ctr[b][1].total
            )?;
        }
        writeln!(f)?;
        writeln!(f, "violations {}", self.stats.constraint_violations)?;
        writeln!(
            f,
            "accesses rdmsr {} wrmsr {} mmio {} pci {} faults {}",
            self.stats.rdmsr,
            self.stats.wrmsr,
            self.stats.mmio_reads,
            self.stats.pci_reads,
            self.stats.faults
        )?;
        if let Some(fault) = self.last_fault {
            writeln!(f, "last_fault {fault:?}")?;
        }
        Ok(())
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

/// Why an injection, preset or rate change was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum InjectError {
    /// The unit has no such box or counter.
    NoSuchBox,
    /// IMC events are 1..5 with umask 0.
    BadEvent,
    /// A rate above [`MAX_RATE`].
    BadValue,
}

/// Highest background rate the model takes: 1e10 per second keeps its exact arithmetic in
/// 64 bits, and is twice the fastest UCLK.
pub(crate) const MAX_RATE: u64 = 10_000_000_000;

/// Physical address the simulated `MCHBAR` reports (never mapped: the model serves the reads).
pub(crate) const SIM_MCHBAR_BASE: u64 = 0xfed1_0000;

/// A parsed `inject` command: `UNIT BOX EVENT UMASK COUNT`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct InjectCmd {
    /// cbox, arb, clock or imc.
    pub(crate) unit: UnitKind,
    /// Box number within the unit.
    pub(crate) box_idx: u32,
    /// Event select code (IMC: 1..5).
    pub(crate) event: u8,
    /// Umask bits that must all be set in the counter's `UMASK`.
    pub(crate) umask: u8,
    /// Events to add.
    pub(crate) count: u64,
}

/// Why an `inject` line was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ParseError {
    /// Not five fields.
    FieldCount,
    /// Unit is not cbox, arb, clock or imc.
    Unit,
    /// A field is not a number (decimal or 0x hex) or does not fit.
    Number,
}

fn parse_num(s: &str) -> Result<u64, ParseError> {
    let r = match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        Some(hex) => u64::from_str_radix(hex, 16),
        None => s.parse(),
    };
    r.map_err(|_| ParseError::Number)
}

fn parse_unit(s: &str) -> Result<UnitKind, ParseError> {
    match s {
        "cbox" => Ok(UnitKind::Cbox),
        "arb" => Ok(UnitKind::Arb),
        "clock" => Ok(UnitKind::Clock),
        "imc" => Ok(UnitKind::Imc),
        _ => Err(ParseError::Unit),
    }
}

/// Splits `UNIT N1 .. NK` into the unit and exactly `K` numbers (decimal or 0x hex).
pub(crate) fn parse_line<const K: usize>(line: &str) -> Result<(UnitKind, [u64; K]), ParseError> {
    let mut f = line.split_ascii_whitespace();
    let unit = parse_unit(f.next().ok_or(ParseError::FieldCount)?)?;
    let mut nums = [0u64; K];
    for n in nums.iter_mut() {
        *n = parse_num(f.next().ok_or(ParseError::FieldCount)?)?;
    }
    if f.next().is_some() {
        return Err(ParseError::FieldCount);
    }
    Ok((unit, nums))
}

fn narrow<T: TryFrom<u64>>(v: u64) -> Result<T, ParseError> {
    T::try_from(v).map_err(|_| ParseError::Number)
}

/// Parses one `inject` line.
pub(crate) fn parse_inject(line: &str) -> Result<InjectCmd, ParseError> {
    let (unit, [box_idx, event, umask, count]) = parse_line::<4>(line)?;
    Ok(InjectCmd {
        unit,
        box_idx: narrow(box_idx)?,
        event: narrow(event)?,
        umask: narrow(umask)?,
        count,
    })
}

/// A `preset` or `rate` line: `UNIT BOX COUNTER VALUE`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct CounterCmd {
    /// cbox, arb, clock or imc.
    pub(crate) unit: UnitKind,
    /// Box number within the unit.
    pub(crate) box_idx: u32,
    /// Generic counter index; 0 for the clock; the IMC event code (1..5).
    pub(crate) counter: u32,
    /// The value or rate.
    pub(crate) value: u64,
}

/// Parses a `preset` or `rate` line.
pub(crate) fn parse_counter_cmd(line: &str) -> Result<CounterCmd, ParseError> {
    let (unit, [box_idx, counter, value]) = parse_line::<3>(line)?;
    Ok(CounterCmd {
        unit,
        box_idx: narrow(box_idx)?,
        counter: narrow(counter)?,
        value,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn inject_lines() {
        assert_eq!(
            parse_inject("cbox 0 0x34 0x8f 12345\n"),
            Ok(InjectCmd {
                unit: UnitKind::Cbox,
                box_idx: 0,
                event: 0x34,
                umask: 0x8f,
                count: 12345
            })
        );
        assert_eq!(parse_inject("imc 0 1 0 7").map(|c| c.event), Ok(1));
        assert_eq!(
            parse_inject("cbox 0 0x34 0x8f"),
            Err(ParseError::FieldCount)
        );
        assert_eq!(
            parse_inject("cbox 0 0x34 0x8f 1 2"),
            Err(ParseError::FieldCount)
        );
        assert_eq!(parse_inject("pcu 0 1 0 7"), Err(ParseError::Unit));
        assert_eq!(parse_inject("arb 0 0x100 0 7"), Err(ParseError::Number));
        assert_eq!(parse_inject("arb 0 x 0 7"), Err(ParseError::Number));
        assert_eq!(parse_inject(""), Err(ParseError::FieldCount));
        assert_eq!(
            parse_counter_cmd("imc 0 1 0x12345678"),
            Ok(CounterCmd {
                unit: UnitKind::Imc,
                box_idx: 0,
                counter: 1,
                value: 0x1234_5678
            })
        );
        assert_eq!(parse_counter_cmd("arb 0 0"), Err(ParseError::FieldCount));
    }

    #[test]
    fn pci_config_and_rates() {
        let mut s = sim();
        assert_eq!(s.pci_config_read32(0), 0x191f_8086);
        assert_eq!(s.pci_config_read32(0x48), 0xfed1_0001);
        assert_eq!(
            SimUncore::new(1, false, Rates::default()).pci_config_read32(0x48),
            0xfed1_0000
        );
        assert_eq!(
            s.set_rate(UnitKind::Imc, 0, 6, 1, 0),
            Err(InjectError::NoSuchBox)
        );
        assert_eq!(
            s.set_rate(UnitKind::Imc, 0, 1, MAX_RATE + 1, 0),
            Err(InjectError::BadValue)
        );
        s.set_rate(UnitKind::Imc, 0, 1, 1_000, 0).unwrap();
        assert_eq!(s.mmio_read32(0x5050, S), Ok(1_000));
    }

    #[test]
    fn arb_occupancy_on_counter_1_is_a_violation() {
        let mut s = sim();
        s.wrmsr(0x3B3, PerfEvtSel::EN.mask() | 0x180, 0).unwrap();
        s.wrmsr(0x3B2, PerfEvtSel::EN.mask() | 0x180, 0).unwrap();
        s.wrmsr(0x3B3, 0x180, 0).unwrap();
        assert_eq!(s.stats.constraint_violations, 1);
    }

    const S: u64 = NS_PER_S;

    fn sim() -> SimUncore {
        let mut rates = Rates::default();
        rates.uclk_hz = 1_000_000_000;
        rates.imc = [100, 200, 300, 400, 500];
        SimUncore::new(4, true, rates)
    }

    #[test]
    fn fixed_counts_only_when_both_enables_are_set() {
        let mut s = sim();
        s.wrmsr(MSR_UNC_PERF_FIXED_CTRL, FixedCtrl::CNT_EN.mask(), 0)
            .unwrap();
        assert_eq!(s.rdmsr(MSR_UNC_PERF_FIXED_CTR, S).unwrap(), 0);
        s.wrmsr(
            MSR_UNC_PERF_GLOBAL_CTRL,
            GlobalCtrl::DRIVER_VALUE.into_raw(),
            S,
        )
        .unwrap();
        assert_eq!(
            s.rdmsr(MSR_UNC_PERF_FIXED_CTR, 2 * S).unwrap(),
            1_000_000_000
        );
        s.wrmsr(MSR_UNC_PERF_FIXED_CTRL, 0, 2 * S).unwrap();
        assert_eq!(
            s.rdmsr(MSR_UNC_PERF_FIXED_CTR, 3 * S).unwrap(),
            1_000_000_000
        );
        assert_eq!(
            s.stats,
            Stats {
                rdmsr: 3,
                wrmsr: 3,
                mmio_reads: 0,
                faults: 0,
                pci_reads: 0,
                constraint_violations: 0,
            }
        );
    }

    #[test]
    fn faults_are_counted_and_change_nothing() {
        let mut s = sim();
        assert_eq!(
            s.wrmsr(MSR_UNC_PERF_GLOBAL_CTRL, 0x2000_001f, 0),
            Err(Fault::ReservedBits {
                msr: 0xe01,
                bits: 0x10
            })
        );
        assert_eq!(s.rdmsr(MSR_UNC_PERF_GLOBAL_CTRL, 0), Ok(0));
        assert_eq!(
            s.wrmsr(MSR_UNC_CBO_CONFIG, 0, 0),
            Err(Fault::ReadOnly(0x396))
        );
        assert_eq!(s.rdmsr(0x740, 0), Err(Fault::UnknownMsr(0x740))); // CBo 4 of 4
        assert_eq!(
            s.wrmsr(0x706, 1 << 44, 0),
            Err(Fault::ReservedBits {
                msr: 0x706,
                bits: 1 << 44
            })
        );
        assert_eq!(s.mmio_read32(0x5058, 0), Err(Fault::UnknownMmio(0x5058)));
        assert_eq!(s.stats.faults, 5);
        assert_eq!(s.rdmsr(MSR_UNC_CBO_CONFIG, 0), Ok(5));
    }

    #[test]
    fn imc_free_runs_and_wraps_at_32_bits() {
        let mut s = sim();
        assert_eq!(s.mmio_read32(0x5050, 10 * S), Ok(1000));
        assert_eq!(s.mmio_read32(0x5048, 10 * S), Ok(5000));
        s.preset(UnitKind::Imc, 0, 1, 0xffff_ffff, 10 * S).unwrap();
        assert_eq!(s.mmio_read32(0x5050, 11 * S), Ok(99));
    }

    #[test]
    fn injection_matches_event_and_umask_subset() {
        let mut s = sim();
        s.wrmsr(
            MSR_UNC_PERF_GLOBAL_CTRL,
            GlobalCtrl::DRIVER_VALUE.into_raw(),
            0,
        )
        .unwrap();
        let en = PerfEvtSel::EN.mask();
        s.wrmsr(0x700, en | 0x8f34, 0).unwrap();
        s.wrmsr(0x701, en | 0x2134, 0).unwrap();
        assert_eq!(s.inject(UnitKind::Cbox, 0, 0x34, 0x81, 12345, 0), Ok(1));
        assert_eq!(s.inject(UnitKind::Cbox, 0, 0x34, 0x01, 5, 0), Ok(2));
        assert_eq!(s.rdmsr(0x706, 0), Ok(12350));
        assert_eq!(s.rdmsr(0x707, 0), Ok(5));
        assert_eq!(
            s.inject(UnitKind::Cbox, 4, 0x34, 0x01, 5, 0),
            Err(InjectError::NoSuchBox)
        );
    }

    #[test]
    fn totals_do_not_wrap() {
        let mut s = sim();
        s.wrmsr(
            MSR_UNC_PERF_GLOBAL_CTRL,
            GlobalCtrl::DRIVER_VALUE.into_raw(),
            0,
        )
        .unwrap();
        s.wrmsr(0x3B2, PerfEvtSel::EN.mask() | 0x181, 0).unwrap();
        s.preset(UnitKind::Arb, 0, 0, (1 << 44) - 1, 0).unwrap();
        s.inject(UnitKind::Arb, 0, 0x81, 0x01, 10, 0).unwrap();
        assert_eq!(s.ctr[ARB_BOX][0].total, 10);
        assert_eq!(s.ctr[ARB_BOX][0].value, 9);
    }

    #[test]
    fn wrap_of_a_44_bit_counter_sets_status() {
        let mut s = sim();
        s.wrmsr(
            MSR_UNC_PERF_GLOBAL_CTRL,
            GlobalCtrl::DRIVER_VALUE.into_raw(),
            0,
        )
        .unwrap();
        s.wrmsr(0x3B2, PerfEvtSel::EN.mask() | 0x181, 0).unwrap();
        s.preset(UnitKind::Arb, 0, 0, (1 << 44) - 1000, 0).unwrap();
        s.inject(UnitKind::Arb, 0, 0x81, 0x01, 5000, 0).unwrap();
        assert_eq!(s.rdmsr(0x3B0, 0), Ok(4000));
        assert_eq!(
            s.rdmsr(MSR_UNC_PERF_GLOBAL_STATUS, 0),
            Ok(GlobalStatus::ARB_CTR_OVF.mask())
        );
        s.wrmsr(
            MSR_UNC_PERF_GLOBAL_STATUS,
            GlobalStatus::ARB_CTR_OVF.mask(),
            0,
        )
        .unwrap();
        assert_eq!(s.rdmsr(MSR_UNC_PERF_GLOBAL_STATUS, 0), Ok(0));
    }

    #[test]
    fn threshold_invert_edge() {
        let sel = |thr: u64, inv: u64, e: u64| {
            PerfEvtSel::zeroed()
                .with(PerfEvtSel::THR, thr)
                .with(PerfEvtSel::INV, inv)
                .with(PerfEvtSel::E, e)
        };
        assert_eq!(filtered_increment(sel(0, 0, 0), 100, 1000, true), 100);
        assert_eq!(filtered_increment(sel(1, 0, 0), 100, 1000, true), 100);
        assert_eq!(filtered_increment(sel(2, 0, 0), 100, 1000, true), 0);
        assert_eq!(filtered_increment(sel(1, 1, 0), 100, 1000, true), 900);
        assert_eq!(filtered_increment(sel(2, 1, 0), 100, 1000, true), 1000);
        assert_eq!(filtered_increment(sel(0, 0, 1), 100, 1000, true), 1);
        assert_eq!(filtered_increment(sel(1, 0, 1), 100, 1000, false), 100);
        assert_eq!(filtered_increment(sel(0, 0, 0), 0, 1000, true), 0);
    }

    proptest! {
        /// Counting at a rate is exact whatever the access pattern.
        #[test]
        fn rate_is_exact_over_any_split(rate in 0u64..10_000_000_000, steps in prop::collection::vec(0u64..3 * S, 1..20)) {
            let mut frac = 0;
            let total: u64 = steps.iter().map(|&dt| at_rate(rate, dt, &mut frac)).sum();
            let ns: u64 = steps.iter().sum();
            prop_assert_eq!(u128::from(total), u128::from(rate) * u128::from(ns) / u128::from(S));
        }
    }
}
