// SPDX-License-Identifier: GPL-2.0

//! The test controls of the model: background rates, injected events and preset counters.
//! None of them is a driver access.

use super::count::filtered_increment;
use super::{SimUncore, ARB_BOX, MAX_RATE, NR_GENERIC};
use crate::uncore::counter::width_mask;
use crate::uncore::regs::*;
use crate::uncore::units::UnitKind;

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

impl SimUncore {
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
                let status_bit = Self::status_bit(b);
                let mut hit = 0;
                for i in 0..NR_GENERIC {
                    let sel = PerfEvtSel::from_raw(self.evtsel[b][i]);
                    let umask = u64::from(umask);
                    if !self.generic_enabled(b, i)
                        || sel.get(PerfEvtSel::EVT_SEL) != u64::from(event)
                        || sel.get(PerfEvtSel::UMASK) & umask != umask
                    {
                        continue;
                    }
                    let inc = filtered_increment(sel, count, count, true);
                    self.ctr[b][i].bump(inc, PERFCTR_WIDTH, &mut self.global_status, status_bit);
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
                self.fixed
                    .bump(count, FIXED_CTR_WIDTH, &mut self.global_status, bit);
                Ok(1)
            }
            UnitKind::Imc => {
                if box_idx != 0 || !self.imc_present {
                    return Err(InjectError::NoSuchBox);
                }
                if umask != 0 || !(1..=5).contains(&event) {
                    return Err(InjectError::BadEvent);
                }
                self.imc[usize::from(event) - 1].bump(count, IMC_CTR_WIDTH, &mut 0, 0);
                Ok(1)
            }
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
            UnitKind::Cbox if box_idx < self.nr_cbox && idx < self.cbo_counters => {
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
}
