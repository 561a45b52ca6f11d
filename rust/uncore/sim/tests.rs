// SPDX-License-Identifier: GPL-2.0

//! Host tests of the model: counting, faults, wraps, reset and foreign writes.

use super::count::{at_rate, filtered_increment, Rates};
use super::drive::InjectError;
use super::model::{Fault, Stats};
use super::*;
use crate::uncore::regs::*;
use crate::uncore::units::UnitKind;
use proptest::prelude::*;

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
    let rates = Rates {
        uclk_hz: 1_000_000_000,
        imc: [100, 200, 300, 400, 500],
        ..Rates::default()
    };
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
            foreign_wrmsr: 0,
            resets: 0,
            probe_faults: 0,
        }
    );
}

/// Counters 2 and 3 of every CBo exist only on a part with four (the i7-6700K); elsewhere they
/// fault like any absent MSR, except inside the driver's probe.
#[test]
fn cbo_counters_2_and_3_as_the_part_has_them() {
    let mut s = sim();
    for a in [0x702, 0x703, 0x708, 0x739, 0xF79] {
        assert_eq!(s.rdmsr(a, 0), Err(Fault::UnknownMsr(a)), "{a:#x}");
    }
    assert_eq!(s.stats.faults, 5);
    let r = s.probing(|s| s.wrmsr(0x712, 0x8f34, 0));
    assert_eq!(r, Err(Fault::UnknownMsr(0x712)));
    assert_eq!((s.stats.faults, s.stats.probe_faults), (5, 1));
    s.set_cbo_counters(4);
    s.wrmsr(0x733, 0x40_8f34, 0).unwrap();
    s.wrmsr(MSR_UNC_PERF_GLOBAL_CTRL, 1 << 29, 0).unwrap();
    assert_eq!(s.inject(UnitKind::Cbox, 3, 0x34, 0x8f, 9, 1), Ok(1));
    assert_eq!(s.rdmsr(0x739, 2), Ok(9));
    assert_eq!(s.stats.faults, 5);
}

/// The driver's probe (one package) on every way the model makes counters missing: each is
/// told apart, the probe's faults are its own, and every register is left as it was, an
/// event another tool programmed in `PERFEVTSEL2` included.
#[test]
fn the_probe_on_every_missing_counter_profile() {
    use super::model::MissingAs;
    use crate::uncore::cbo_counters::{Missing, ProbeMsr, Refused};
    use crate::uncore::probe::probe_package;

    struct On<'a>(&'a mut SimUncore);
    impl ProbeMsr for On<'_> {
        fn rdmsr(&mut self, msr: u32) -> Result<u64, Refused> {
            self.0.rdmsr(msr, 0).map_err(|_| Refused)
        }
        fn wrmsr(&mut self, msr: UncoreMsr, val: u64) -> Result<(), Refused> {
            self.0.wrmsr(msr.addr(), val, 0).map_err(|_| Refused)
        }
    }
    let cases = [
        (2, MissingAs::Absent, 2, Some(Missing::ReadFaults(0x702)), 1),
        (
            2,
            MissingAs::EnRefused,
            2,
            Some(Missing::EnRefused(0x702)),
            1,
        ),
        (
            3,
            MissingAs::SelAbsent,
            3,
            Some(Missing::ReadFaults(0x703)),
            1,
        ),
        (
            2,
            MissingAs::CtrAbsent,
            2,
            Some(Missing::ReadFaults(0x708)),
            1,
        ),
        (4, MissingAs::Absent, 4, None, 0),
    ];
    for (n, how, want_n, want_missing, probe_faults) in cases {
        let mut s = sim();
        s.set_cbo_counters(n);
        s.set_missing_as(how);
        // Another tool's event, not enabled, on counter 2 where its register is there.
        let theirs = s.foreign_wrmsr(0x702, 0x1134, 0).is_ok();
        let before: Vec<_> = (0x700..0x70a).map(|a| s.rdmsr(a, 0)).collect();
        let faults = s.stats.faults;
        let p = s.probing(|s| probe_package(&mut On(s), true));
        let found = p.counters.unwrap();
        assert_eq!(
            (found.n, found.missing),
            (want_n, want_missing),
            "{n} {how:?}"
        );
        assert_eq!(
            (s.stats.faults, s.stats.probe_faults),
            (faults, probe_faults),
            "{n} {how:?}"
        );
        let after: Vec<_> = (0x700..0x70a).map(|a| s.rdmsr(a, 0)).collect();
        assert_eq!(before, after, "{n} {how:?}");
        assert_eq!(
            theirs,
            how != MissingAs::Absent && how != MissingAs::SelAbsent || n > 2
        );
    }
    // EN refused: the register takes the same event without EN.
    let mut s = sim();
    s.set_missing_as(MissingAs::EnRefused);
    assert_eq!(s.wrmsr(0x703, 0x8f34, 0), Ok(()));
    assert_eq!(
        s.wrmsr(0x703, 0x40_8f34, 0),
        Err(Fault::ReservedBits {
            msr: 0x703,
            bits: 1 << 22
        })
    );
    assert_eq!(s.rdmsr(0x703, 0), Ok(0x8f34));
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
    enabled_arb(&mut s);
    s.preset(UnitKind::Arb, 0, 0, (1 << 44) - 1, 0).unwrap();
    s.inject(UnitKind::Arb, 0, 0x81, 0x01, 10, 0).unwrap();
    assert_eq!(s.ctr[ARB_BOX][0].total, 10);
    assert_eq!(s.ctr[ARB_BOX][0].value, 9);
}

#[test]
fn wrap_of_a_44_bit_counter_sets_status() {
    let mut s = sim();
    enabled_arb(&mut s);
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

fn enabled_arb(s: &mut SimUncore) {
    s.wrmsr(
        MSR_UNC_PERF_GLOBAL_CTRL,
        GlobalCtrl::DRIVER_VALUE.into_raw(),
        0,
    )
    .unwrap();
    s.wrmsr(0x3B2, PerfEvtSel::EN.mask() | 0x181, 0).unwrap();
}

#[test]
fn reset_clears_every_register_and_keeps_the_totals() {
    let mut s = sim();
    enabled_arb(&mut s);
    s.wrmsr(MSR_UNC_PERF_FIXED_CTRL, FixedCtrl::CNT_EN.mask(), 0)
        .unwrap();
    s.wrmsr(0x700, PerfEvtSel::EN.mask() | 0x8f34, 0).unwrap();
    s.inject(UnitKind::Arb, 0, 0x81, 0x01, 10, 0).unwrap();
    s.wrmsr(MSR_UNC_PERF_GLOBAL_STATUS, 0, 0).unwrap();
    s.preset(UnitKind::Cbox, 3, 1, 77, 0).unwrap();
    let before = s.stats;
    s.reset(S);
    assert_eq!(
        s.stats,
        Stats {
            resets: 1,
            ..before
        }
    );
    // The fixed counter ran for 1 s at 1 GHz before the reset: in its total, not its value.
    assert_eq!(s.fixed.total, 1_000_000_000);
    for msr in [0xE01, 0xE02, 0x394, 0x395, 0x3B0, 0x3B1, 0x3B2, 0x3B3] {
        assert_eq!(s.rdmsr(msr, S), Ok(0), "{msr:#x}");
    }
    for b in 0..4 {
        for msr in [0x700, 0x701, 0x706, 0x707] {
            assert_eq!(s.rdmsr(msr + 0x10 * b, S), Ok(0), "{:#x}", msr + 0x10 * b);
        }
    }
    assert_eq!(s.mmio_read32(0x5050, S), Ok(0));
    assert_eq!(s.rdmsr(MSR_UNC_CBO_CONFIG, S), Ok(5));
    // Nothing counts until the driver reprograms; then the total goes on from 10.
    assert_eq!(s.inject(UnitKind::Arb, 0, 0x81, 0x01, 1000, S), Ok(0));
    enabled_arb(&mut s);
    s.inject(UnitKind::Arb, 0, 0x81, 0x01, 5, S).unwrap();
    assert_eq!(s.rdmsr(0x3B0, S), Ok(5));
    assert_eq!(s.ctr[ARB_BOX][0].total, 15);
    // The IMC keeps running from 0.
    assert_eq!(s.mmio_read32(0x5050, 2 * S), Ok(100));
}

#[test]
fn foreign_writes_apply_but_are_not_the_drivers() {
    let mut s = sim();
    enabled_arb(&mut s);
    let before = s.stats;
    assert_eq!(s.foreign_wrmsr(MSR_UNC_PERF_GLOBAL_CTRL, 0, 0), Ok(()));
    assert_eq!(s.inject(UnitKind::Arb, 0, 0x81, 0x01, 10, 0), Ok(0));
    // Refusals are returned, and neither counted nor remembered as the driver's faults.
    assert_eq!(
        s.foreign_wrmsr(0x3B2, 1 << 40, 0),
        Err(Fault::ReservedBits {
            msr: 0x3B2,
            bits: 1 << 40
        })
    );
    assert_eq!(s.foreign_wrmsr(0x740, 0, 0), Err(Fault::UnknownMsr(0x740)));
    assert_eq!(
        s.foreign_wrmsr(MSR_UNC_CBO_CONFIG, 0, 0),
        Err(Fault::ReadOnly(0x396))
    );
    // Occupancy on ARB counter 1 is the other tool's mistake, not a driver violation.
    s.foreign_wrmsr(0x3B3, PerfEvtSel::EN.mask() | 0x180, 0)
        .unwrap();
    s.foreign_wrmsr(0x3B0, 0x1234, 0).unwrap();
    assert_eq!(
        s.stats,
        Stats {
            foreign_wrmsr: 6,
            ..before
        }
    );
    assert_eq!(s.last_fault, None);
    assert_eq!(s.rdmsr(0x3B0, 0), Ok(0x1234));
    assert_eq!(s.rdmsr(0x3B3, 0), Ok(PerfEvtSel::EN.mask() | 0x180));
}

#[test]
fn cbo_config_reads_what_it_is_told_and_the_8th_cbo_moved() {
    let mut s = SimUncore::new(8, false, Rates::default());
    assert_eq!(s.rdmsr(MSR_UNC_CBO_CONFIG, 0), Ok(9));
    s.set_cbo_config(0xf);
    assert_eq!(s.rdmsr(MSR_UNC_CBO_CONFIG, 0), Ok(0xf));
    s.reset(0);
    assert_eq!(s.rdmsr(MSR_UNC_CBO_CONFIG, 0), Ok(0xf));
    assert_eq!(s.rdmsr(0xF76, 0), Ok(0));
    assert_eq!(s.rdmsr(0x770, 0), Err(Fault::UnknownMsr(0x770)));
    assert_eq!(s.rdmsr(0x776, 0), Err(Fault::UnknownMsr(0x776)));
}
