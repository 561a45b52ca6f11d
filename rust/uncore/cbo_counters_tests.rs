// SPDX-License-Identifier: GPL-2.0

//! The counter probe against mock packages: the exact access sequence, every way a counter
//! can be missing, and what is put back.

use super::*;
use crate::uncore::probe::{probe_package, uncore_answers, PackageProbe};
use std::collections::HashMap;

/// A package's MSRs: present ones hold a value. `drops` ignore writes, `en_refused` fault on a
/// write with `EN` set, `read_only` on every write. A `PERFCTR` whose `PERFEVTSEL` has `EN`
/// set counts one event per access, as a live counter moves under the probe.
#[derive(Default)]
struct Msrs {
    regs: HashMap<u32, u64>,
    drops: Vec<u32>,
    en_refused: Vec<u32>,
    read_only: Vec<u32>,
    log: Vec<(char, u32, u64)>,
}

const EN: u64 = 1 << 22;

impl Msrs {
    /// CBo 0 with `n` counters, each `PERFCTRi` at 0x1234 + i, and the ARB's `PERFEVTSEL0`.
    fn with(n: u32) -> Self {
        let mut m = Self::default();
        for i in 0..n {
            m.regs.insert(0x700 + i, 0);
            m.regs.insert(0x706 + i, 0x1234 + u64::from(i));
        }
        m.regs.insert(0x3b2, 0);
        m
    }

    fn tick(&mut self) {
        for i in 0..4 {
            if self.regs.get(&(0x700 + i)).is_some_and(|v| v & EN != 0) {
                *self.regs.get_mut(&(0x706 + i)).unwrap() += 1;
            }
        }
    }
}

impl ProbeMsr for Msrs {
    fn rdmsr(&mut self, msr: u32) -> Result<u64, Refused> {
        self.tick();
        let v = self.regs.get(&msr).copied().ok_or(Refused)?;
        self.log.push(('r', msr, v));
        Ok(v)
    }
    fn wrmsr(&mut self, msr: UncoreMsr, val: u64) -> Result<(), Refused> {
        self.tick();
        let a = msr.addr();
        let refused =
            self.read_only.contains(&a) || (val & EN != 0 && self.en_refused.contains(&a));
        let r = self.regs.get_mut(&a).filter(|_| !refused).ok_or(Refused)?;
        self.log.push(('w', a, val));
        if !self.drops.contains(&a) {
            *r = val;
        }
        Ok(())
    }
}

fn line(d: &impl crate::uncore::Describe) -> String {
    struct L<'a, D>(&'a D);
    impl<D: crate::uncore::Describe> std::fmt::Display for L<'_, D> {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            self.0.describe(f)
        }
    }
    L(d).to_string()
}

fn probe(m: &mut Msrs) -> CboCounters {
    let mut c = CboCounters::new();
    c.add(0, probe_counters(m));
    c
}

/// Counter `i` probed on a free register: both read, the event written with `EN`, read back,
/// then the values read put back, the counter's last (it counted while enabled).
fn free(i: u32, sel: u64, ctr: u64) -> [(char, u32, u64); 6] {
    [
        ('r', 0x700 + i, sel),
        ('r', 0x706 + i, ctr),
        ('w', 0x700 + i, 0x40_8f34),
        ('r', 0x700 + i, 0x40_8f34),
        ('w', 0x700 + i, sel),
        ('w', 0x706 + i, ctr),
    ]
}

#[test]
fn four_counters_write_en_read_back_restore() {
    let mut m = Msrs::with(4);
    let c = probe(&mut m);
    assert_eq!((c.n, c.missing, c.differ()), (4, None, false));
    assert_eq!(
        line(&c),
        "4 counters per CBo: MSR_UNC_CBO_0_PERFEVTSEL2 and PERFEVTSEL3 take an event with EN set"
    );
    // Exactly this, never counters 0 and 1, never GLOBAL_CTRL.
    assert_eq!(m.log, [free(2, 0, 0x1236), free(3, 0, 0x1237)].concat());
    // Everything as it was, the counts too (each counted while its event was enabled).
    assert_eq!(
        [0x702, 0x703, 0x708, 0x709].map(|a| m.regs[&a]),
        [0, 0, 0x1236, 0x1237]
    );
    assert_eq!(PROBE_VALUE, 0x40_8f34);
}

#[test]
fn register_absent_read_faults() {
    let mut m = Msrs::with(2);
    let c = probe(&mut m);
    assert_eq!((c.n, c.missing), (2, Some((Missing::ReadFaults(0x702), 0))));
    assert_eq!(
        line(&c),
        "2 counters per CBo: MSR_UNC_CBO_0_PERFEVTSEL2 (0x702) faults when read"
    );
    assert_eq!(m.log, []);
}

#[test]
fn en_refused_is_told_from_read_only() {
    // PCM issue 337's part, if its register is there: EN refused on counter 2, no write kept.
    let mut m = Msrs::with(4);
    m.regs.insert(0x702, 0x1134);
    m.en_refused.extend([0x702, 0x703]);
    let c = probe(&mut m);
    assert_eq!(
        line(&c),
        "2 counters per CBo: MSR_UNC_CBO_0_PERFEVTSEL2 (0x702) faults when written with EN set"
    );
    assert_eq!(
        m.log,
        [
            ('r', 0x702, 0x1134),
            ('r', 0x708, 0x1236),
            // The EN write faulted (not logged); without EN it is taken: then put back.
            ('w', 0x702, 0x8f34),
            ('w', 0x702, 0x1134),
        ]
    );
    assert_eq!((m.regs[&0x702], m.regs[&0x708]), (0x1134, 0x1236));
    // Read only: both writes fault, nothing to put back.
    let mut m = Msrs::with(4);
    m.read_only.push(0x702);
    let c = probe(&mut m);
    assert_eq!(
        line(&c),
        "2 counters per CBo: MSR_UNC_CBO_0_PERFEVTSEL2 (0x702) faults when written"
    );
    assert_eq!(m.log, [('r', 0x702, 0), ('r', 0x708, 0x1236)]);
}

#[test]
fn only_perfevtsel3_absent_or_a_counter_that_faults() {
    let mut m = Msrs::with(4);
    m.regs.remove(&0x703);
    let c = probe(&mut m);
    assert_eq!(
        line(&c),
        "3 counters per CBo: MSR_UNC_CBO_0_PERFEVTSEL3 (0x703) faults when read"
    );
    assert_eq!(m.log, free(2, 0, 0x1236));
    // PERFCTR2 faults when read: counter 3 is never asked.
    let mut m = Msrs::with(4);
    m.regs.remove(&0x708);
    let c = probe(&mut m);
    assert_eq!(
        line(&c),
        "2 counters per CBo: MSR_UNC_CBO_0_PERFCTR2 (0x708) faults when read"
    );
    assert_eq!(m.log, [('r', 0x702, 0)]);
}

#[test]
fn dropped_writes() {
    let mut m = Msrs::with(4);
    m.drops.push(0x703);
    let c = probe(&mut m);
    assert_eq!(c.n, 3);
    assert_eq!(
        line(&c),
        "3 counters per CBo: MSR_UNC_CBO_0_PERFEVTSEL3 (0x703) does not keep an event with EN set"
    );
}

#[test]
fn another_tools_values_are_put_back() {
    // Programmed, not enabled: probed, then its event and its count put back exactly.
    let mut m = Msrs::with(4);
    m.regs.insert(0x702, 0x43_1134 & !EN);
    m.regs.insert(0x708, 0xfff_ffff_fff0);
    let c = probe(&mut m);
    assert_eq!(c.n, 4);
    assert_eq!(m.log[..6], free(2, 0x03_1134, 0xfff_ffff_fff0));
    assert_eq!(
        (m.regs[&0x702], m.regs[&0x708]),
        (0x03_1134, 0xfff_ffff_fff0)
    );
    // Enabled: it counts for another tool, so the register takes EN; never written.
    let mut m = Msrs::with(4);
    m.regs.insert(0x702, 0x43_1134);
    let c = probe(&mut m);
    assert_eq!(c.n, 4);
    assert_eq!(m.regs[&0x702], 0x43_1134);
    assert!(m
        .log
        .iter()
        .all(|&(k, a, _)| !(k == 'w' && (a == 0x702 || a == 0x708))));
}

#[test]
fn the_fewest_of_all_packages_and_a_line_each_when_they_differ() {
    let mut c = CboCounters::new();
    c.add(0, probe_counters(&mut Msrs::with(4)));
    assert!(!c.differ());
    let mut m = Msrs::with(4);
    m.en_refused.push(0x703);
    c.add(1, probe_counters(&mut m));
    c.add(2, probe_counters(&mut Msrs::with(2)));
    assert_eq!((c.n, c.packages, c.differ()), (2, 3, true));
    assert_eq!(
        line(&c),
        "2 counters per CBo: MSR_UNC_CBO_0_PERFEVTSEL2 (0x702) faults when read on package 2"
    );
    let lines: Vec<String> = c.per_package().map(|l| line(&l)).collect();
    assert_eq!(
        lines,
        [
            "package 0: 4 counters per CBo: MSR_UNC_CBO_0_PERFEVTSEL2 and PERFEVTSEL3 take an \
             event with EN set",
            "package 1: 3 counters per CBo: MSR_UNC_CBO_0_PERFEVTSEL3 (0x703) faults when \
             written with EN set",
            "package 2: 2 counters per CBo: MSR_UNC_CBO_0_PERFEVTSEL2 (0x702) faults when read",
        ]
    );
    // A later package with the same count keeps the first one named.
    c.add(3, probe_counters(&mut Msrs::with(2)));
    assert_eq!(c.missing, Some((Missing::ReadFaults(0x702), 2)));
    // All alike: no per-package lines needed.
    let mut c = CboCounters::new();
    c.add(0, probe_counters(&mut Msrs::with(2)));
    c.add(1, probe_counters(&mut Msrs::with(2)));
    assert!(!c.differ());
    // Nothing probed: the tables' four.
    assert_eq!(CboCounters::new().n, 4);
}

#[test]
fn arb_answers_and_the_whole_package() {
    // Written, read back, the value read put back.
    let mut m = Msrs::with(4);
    assert!(uncore_answers(&mut m));
    assert_eq!(
        m.log,
        [
            ('r', 0x3b2, 0),
            ('w', 0x3b2, 0x181),
            ('r', 0x3b2, 0x181),
            ('w', 0x3b2, 0)
        ]
    );
    // Another tool's value: real, left alone.
    let mut m = Msrs::with(4);
    m.regs.insert(0x3b2, 0x40_0181);
    assert!(uncore_answers(&mut m));
    assert_eq!(m.log, [('r', 0x3b2, 0x40_0181)]);
    // An emulator: the write dropped (or the register absent): no uncore, no CBo probe.
    let mut m = Msrs::with(4);
    m.drops.push(0x3b2);
    assert_eq!(
        probe_package(&mut m, true),
        PackageProbe {
            answers: false,
            counters: None
        }
    );
    assert!(m.log.iter().all(|&(_, a, _)| a == 0x3b2));
    m.regs.remove(&0x3b2);
    assert!(!uncore_answers(&mut m));
    // No CBo PMU: the counters are not asked.
    let mut m = Msrs::with(4);
    let p = probe_package(&mut m, false);
    assert_eq!((p.answers, p.counters), (true, None));
    assert_eq!(m.log.len(), 4);
    let p = probe_package(&mut Msrs::with(4), true);
    assert_eq!(p.counters.map(|f| f.n), Some(4));
}

#[test]
fn every_package_once_and_only_online_ones() {
    use crate::uncore::probe::probe_all;
    let mut asked = Vec::new();
    let all = probe_all(3, |pkg| {
        asked.push(pkg);
        // Package 1 has no CPU online.
        (pkg != 1).then(|| probe_package(&mut Msrs::with(if pkg == 2 { 2 } else { 4 }), true))
    });
    assert_eq!(asked, [0, 1, 2]);
    assert!(all.answers);
    assert_eq!((all.counters.n, all.counters.packages), (2, 2));
    assert_eq!(all.counters.missing, Some((Missing::ReadFaults(0x702), 2)));
    // Package 1 is left for its first event.
    assert_eq!(
        (0..4).map(|p| all.probed(p)).collect::<Vec<_>>(),
        [true, false, true, false]
    );
    assert!(all.probed(64));
    // One package whose uncore does not answer refuses the module.
    let all = probe_all(2, |pkg| {
        let mut m = Msrs::with(4);
        if pkg == 1 {
            m.drops.push(0x3b2);
        }
        Some(probe_package(&mut m, true))
    });
    assert!(!all.answers);
    // None probed: nothing answered.
    assert!(!probe_all(2, |_| None).answers);
}
