// SPDX-License-Identifier: GPL-2.0

//! The PMU of one box of one unit: perf's callbacks, routed to the box of the event's package.

use kernel::{cpu::CpuId, prelude::*, sync::Arc};

use super::{
    attrs,
    log::refuse,
    package::{Package, PackageExt},
    Engine, Why,
};
use crate::kabi::{
    perf::{
        sysfs::{Events, PmuAttrs},
        Capability, Event, EventFlag, EventFlags, GroupMember, HwConfig, HwState, HwStateFlag,
        InitEvent, PmuOps, ReadEvent, Scope,
    },
    platform, topology,
};
use crate::uncore::{
    event::{decode, Target},
    pmubox::{AddError, MAX_BOX_EVENTS},
    units::{Unit, UnitKind},
};

/// A PMU's name: `uncore_cbox_N` or `uncore_<unit>`.
pub(crate) struct PmuName(pub(crate) &'static Unit, pub(crate) u32);

impl kernel::fmt::Display for PmuName {
    fn fmt(&self, f: &mut kernel::fmt::Formatter<'_>) -> kernel::fmt::Result {
        if matches!(self.0.kind, UnitKind::Cbox) {
            write!(f, "uncore_{}_{}", self.0.name, self.1)
        } else {
            write!(f, "uncore_{}", self.0.name)
        }
    }
}

/// The PMU of one box of one unit.
pub(crate) struct UncorePmu {
    engine: Arc<Engine>,
    unit: &'static Unit,
    box_idx: u32,
    /// This PMU's box in every package's `boxes`.
    slot: usize,
    attrs: Pin<KBox<PmuAttrs>>,
}

impl UncorePmu {
    pub(super) fn new(
        engine: &Arc<Engine>,
        unit: &'static Unit,
        box_idx: u32,
        slot: usize,
    ) -> Result<Self> {
        Ok(Self {
            engine: engine.clone(),
            unit,
            box_idx,
            slot,
            attrs: PmuAttrs::new(
                attrs::format(unit.kind),
                Events::Static(attrs::events(unit.kind, box_idx)),
            )?,
        })
    }

    fn name(&self) -> PmuName {
        PmuName(self.unit, self.box_idx)
    }

    /// The PMU's scope. A real machine has one MCHBAR, which one context must count once. The
    /// simulator keeps a context per package (its hotplug tests move an IMC event within
    /// package 1), each reading the machine's one simulated IMC.
    pub(super) fn scope(&self) -> Scope {
        if !cfg!(skl_sim) && self.unit.kind.machine_wide() {
            Scope::System
        } else {
            Scope::Package
        }
    }

    /// The package of an event (on its package's scope CPU since `event_init`).
    fn package_of(&self, ev: &Event<Target>) -> &Arc<Package> {
        self.package_of_cpu(ev.cpu())
    }

    /// The package of CPU `cpu` (the current one's if it is not a CPU).
    fn package_of_cpu(&self, cpu: i32) -> &Arc<Package> {
        let cpu = CpuId::from_i32(cpu).unwrap_or_else(CpuId::current);
        self.engine.package(topology::logical_package_id(cpu))
    }

    /// Checks that `ev`, counting `target`, and the rest of its group fit this PMU's
    /// counters: the box's lock taken once for the whole group.
    fn validate_group(&self, ev: &InitEvent<Target>, target: Target) -> Result {
        // One more than a box holds: a group that large is refused on its size alone.
        let mut targets = [Target::Fixed; MAX_BOX_EVENTS + 1];
        let mut n = 0;
        let mut collect = |t: Target| {
            if n < targets.len() {
                targets[n] = t;
                n += 1;
            }
        };
        ev.for_each_in_group(|e: &GroupMember<Target>| collect(e.hw_config()));
        collect(target);
        if !self
            .package_of_cpu(ev.cpu())
            .group_fits(self.slot, &targets[..n])
        {
            return Err(refuse(
                self.name(),
                EINVAL,
                "the group does not fit the counters",
            ));
        }
        Ok(())
    }
}

/// An event's target, kept in `hw.config` from `event_init` to its end.
impl HwConfig for Target {
    fn into_raw(self) -> u64 {
        self.to_raw()
    }
    fn from_raw(raw: u64) -> Self {
        Target::from_raw(raw)
    }
}

#[vtable]
impl PmuOps for UncorePmu {
    type Config = Target;
    /// Perf refuses `exclude_*` bits (after `event_init`, which refuses them first to say
    /// why): the uncore counts for every core at once.
    const CAPABILITIES: &'static [Capability] = &[Capability::NoExclude];

    fn attrs(&self) -> &PmuAttrs {
        &self.attrs
    }

    fn event_init(&self, ev: &InitEvent<Target>) -> Result<Target> {
        if ev.is_sampling() {
            return Err(refuse(
                self.name(),
                EINVAL,
                "sampling is not supported (no overflow interrupt)",
            ));
        }
        if ev.cpu() < 0 {
            return Err(refuse(
                self.name(),
                EINVAL,
                "per-task events are not supported; use -a or a CPU",
            ));
        }
        if ev.excludes_anything() {
            return Err(refuse(
                self.name(),
                EINVAL,
                "exclude_* filters are not supported",
            ));
        }
        let target = decode(
            self.unit,
            self.box_idx,
            ev.config(),
            ev.config1(),
            ev.config2(),
        )
        .map_err(|e| refuse(self.name(), EINVAL, Why(e)))?;
        let pkg = self.package_of_cpu(ev.cpu());
        self.engine.probe_late(pkg)?;
        // A register this event needs faulted before (said then, once): it cannot count.
        if !pkg.can_count(self.slot, target) {
            return Err(EIO);
        }
        if !ev.is_leader() {
            self.validate_group(ev, target)?;
        }
        // Every event of a package in the one context perf moves at hotplug, whatever CPU
        // the user named: there perf rotates them fairly over the box's counters.
        ev.move_to_scope_cpu()
            .map_err(|e| refuse(self.name(), e, "no CPU of the package in the PMU's cpumask"))?;
        Ok(target)
    }

    fn add(&self, ev: &Event<Target>, flags: EventFlags) -> Result {
        let target = ev.hw_config();
        let start = flags.contains(EventFlag::Start);
        ev.set_state(if start {
            HwState::empty()
        } else {
            HwState::STOPPED_UPTODATE
        });
        let pkg = self.package_of(ev);
        let res = pkg.with_box(self.slot, |b, cx| {
            match b.add(cx, ev.handle(), target, start) {
                Ok(()) => (Ok(()), None),
                // Perf multiplexes it.
                Err(AddError::Busy) => (Err(EBUSY), None),
                // Said once, when found; perf reports the error to the user.
                Err(AddError::Fault(n)) => (Err(EIO), Some(n)),
                Err(AddError::Faulted) => (Err(EIO), None),
            }
        });
        if res.is_err() {
            ev.set_state(HwState::STOPPED_UPTODATE);
        }
        res
    }

    fn del(&self, ev: &Event<Target>, _flags: EventFlags) {
        // On a CPU going offline, perf is moving the event to another CPU of the package:
        // its counter counts on for it until that `add`. Not if no other CPU of the package
        // is active: the package goes offline, and perf puts the event back only when it
        // comes back.
        let moving = platform::this_cpu_leaving()
            && platform::online_cpu_in_package(platform::current_package()).is_some();
        self.package_of(ev).with_box(self.slot, |b, cx| {
            if moving {
                b.depart(cx, ev.handle());
            } else {
                b.del(cx, ev.handle());
            }
            ((), None)
        });
        ev.set_state(HwState::STOPPED_UPTODATE);
    }

    fn start(&self, ev: &Event<Target>, _flags: EventFlags) {
        ev.set_state(HwState::empty());
        self.package_of(ev)
            .with_box(self.slot, |b, cx| ((), b.start(cx, ev.handle())));
    }

    fn stop(&self, ev: &Event<Target>, flags: EventFlags) {
        self.package_of(ev).with_box(self.slot, |b, cx| {
            b.stop(cx, ev.handle());
            ((), None)
        });
        let mut state = ev.state() | HwStateFlag::Stopped;
        if flags.contains(EventFlag::Update) {
            state |= HwStateFlag::UpToDate;
        }
        ev.set_state(state);
    }

    fn read(&self, ev: &ReadEvent) {
        // Perf reads on a CPU of the event's package (this one's or, by IPI, the event's).
        self.engine.package_here().read(self.slot, ev);
    }

    fn pmu_disable(&self) {
        self.engine.package_here().with_box(self.slot, |b, _| {
            b.disable();
            ((), None)
        });
    }

    fn pmu_enable(&self) {
        self.engine
            .package_here()
            .with_box(self.slot, |b, cx| ((), b.enable(cx)));
    }
}
