// SPDX-License-Identifier: GPL-2.0

//! The generic PMU engine: one implementation drives every unit from its table.
//!
//! One perf PMU per box (`uncore_cbox_N`, `uncore_arb`, `uncore_clock`, `uncore_imc`). Each PMU
//! keeps per-package box state, owned by the package's collector CPU: perf calls the PMU
//! callbacks there with interrupts off, and the box's poll timer is pinned there, so the state
//! needs no lock ([`OwnedCell`]). Reads may also come from other CPUs of the package
//! (`PERF_EV_CAP_READ_ACTIVE_PKG`, no IPI); they only touch the event's atomics and the counter.

use kernel::{
    cpu::CpuId,
    new_mutex,
    prelude::*,
    str::CString,
    sync::{
        atomic::{ordering, Atomic},
        Arc, ArcBorrow, Mutex,
    },
    time::{
        hrtimer::{
            ArcHrTimerHandle, HrTimer, HrTimerCallback, HrTimerCallbackContext, HrTimerPointer,
            HrTimerRestart, RelativePinnedHardMode,
        },
        Delta, Monotonic,
    },
};

use crate::kabi::{
    cell::OwnedCell,
    cpuhp::{Hotplug, HotplugOps},
    perf::{
        Event, EventList, PmuOps, PmuRegistration, EF_START, EF_UPDATE, HES_STOPPED, HES_UPTODATE,
    },
    platform,
    sysfs::{CpumaskSource, PmuAttrs, StrAttr},
};
use crate::uncore::{
    counter,
    event::{decode, Target},
    regs::{
        FixedCtrl, GlobalCtrl, PerfEvtSel, FIXED_CTR_WIDTH, IMC_COUNTERS, IMC_CTR_WIDTH,
        MSR_UNC_PERF_FIXED_CTR, MSR_UNC_PERF_FIXED_CTRL, MSR_UNC_PERF_GLOBAL_CTRL, PERFCTR_WIDTH,
    },
    sched::{self, Request},
    units::{Unit, UnitKind, ARB, CBOX, CLOCK, IMC},
    Describe,
};

/// Access to the uncore registers: the real ones, or the simulator's.
pub(crate) trait Hw: Send + Sync {
    /// RDMSR on the calling CPU.
    fn rdmsr(&self, msr: u32) -> Result<u64>;
    /// WRMSR on the calling CPU.
    fn wrmsr(&self, msr: u32, val: u64) -> Result;
    /// WRMSR on `cpu`, from process context.
    fn wrmsr_on_cpu(&self, cpu: u32, msr: u32, val: u64) -> Result;
    /// 32-bit read of the IMC counter at MCHBAR + `offset`.
    fn imc_read(&self, offset: u32) -> Result<u32>;
}

/// `hw.idx` of an event without a counter.
const IDX_NONE: i32 = -1;
/// `hw.idx` of the fixed counter (Linux's `UNCORE_PMC_IDX_FIXED`).
const IDX_FIXED: i32 = 8;
/// `hw.idx` of an IMC free-running counter.
const IDX_FREE_RUNNING: i32 = 9;

/// Most events one box holds at once (generic counters are far fewer; shared fixed and
/// free-running counters take any number up to this). More are multiplexed by perf.
const MAX_BOX_EVENTS: usize = 16;

/// Per-package state shared by all PMUs.
struct Package {
    /// The CPU that collects this package's uncore events, -1 if none is online.
    collector: Atomic<i32>,
    /// `MSR_UNC_PERF_GLOBAL_CTRL.EN` has been set by us.
    global_en: Atomic<i32>,
    /// Events using the shared fixed counter (uncore_clock and uncore_cbox_0 clockticks).
    fixed_users: Atomic<i32>,
}

/// The whole driver state: the hardware, the packages and the registered PMUs.
#[pin_data]
pub(crate) struct Engine {
    hw: Arc<dyn Hw>,
    packages: KVec<Package>,
    #[pin]
    pmus: Mutex<KVec<Pin<KBox<PmuRegistration<UncorePmu>>>>>,
}

/// Logs why an event was refused (at most a few lines a second: fuzzers open millions) and
/// returns `err`.
fn refuse(pmu: PmuName, err: Error, why: impl kernel::fmt::Display) -> Error {
    if log_allowed() {
        pr_info!("{}: {}\n", pmu, why);
    }
    err
}

static LOG_BUDGET: Atomic<i64> = Atomic::new(0);

/// A crude rate limit for event_init messages: 10 per second.
fn log_allowed() -> bool {
    let second = (platform::now_ns() / 1_000_000_000) as i64;
    let slot = LOG_BUDGET.load(ordering::Relaxed);
    if slot / 16 != second {
        LOG_BUDGET.store(second * 16 + 1, ordering::Relaxed);
        return true;
    }
    if slot % 16 < 10 {
        LOG_BUDGET.store(slot + 1, ordering::Relaxed);
        return true;
    }
    false
}

impl Engine {
    /// Driver state over `hw`, with no PMU yet.
    pub(crate) fn new(hw: Arc<dyn Hw>) -> Result<Arc<Self>> {
        let n = platform::max_packages() as usize;
        let mut packages = KVec::with_capacity(n, GFP_KERNEL)?;
        for _ in 0..n {
            packages.push(
                Package {
                    collector: Atomic::new(-1),
                    global_en: Atomic::new(0),
                    fixed_users: Atomic::new(0),
                },
                GFP_KERNEL,
            )?;
        }
        Arc::pin_init(
            try_pin_init!(Self { hw, packages, pmus <- new_mutex!(KVec::new()) }),
            GFP_KERNEL,
        )
    }

    fn package(&self, cpu: u32) -> &Package {
        let pkg = platform::cpu_package(cpu) as usize;
        &self.packages[pkg.min(self.packages.len() - 1)]
    }

    /// Registers one PMU per box of `unit` (`nr_boxes` of them).
    fn register_unit(
        self: &Arc<Self>,
        unit: &'static Unit,
        nr_boxes: u32,
        module: &'static ThisModule,
    ) -> Result {
        for box_idx in 0..nr_boxes {
            let name = CString::try_from_fmt(fmt!("{}", PmuName(unit, box_idx)))?;
            let pmu = UncorePmu::new(self, unit, box_idx)?;
            let reg = KBox::pin_init(PmuRegistration::register(name, pmu, module), GFP_KERNEL)
                .inspect_err(|e| {
                    pr_err!(
                        "{}: perf_pmu_register failed: {:?}\n",
                        PmuName(unit, box_idx),
                        e
                    );
                })?;
            self.pmus.lock().push(reg, GFP_KERNEL)?;
        }
        Ok(())
    }

    /// Unregisters every PMU and clears the global enable of every package.
    fn shutdown(&self) {
        // Unregister outside the lock: perf may wait for CPU hotplug, which takes it.
        let pmus = core::mem::take(&mut *self.pmus.lock());
        drop(pmus);
        for p in self.packages.iter() {
            let cpu = p.collector.load(ordering::Relaxed);
            if p.global_en.xchg(0, ordering::Relaxed) != 0 && cpu >= 0 {
                let _ = self
                    .hw
                    .wrmsr_on_cpu(cpu as u32, MSR_UNC_PERF_GLOBAL_CTRL, 0);
            }
        }
    }

    /// Sets `MSR_UNC_PERF_GLOBAL_CTRL.EN` for the calling CPU's package, once.
    fn ensure_global_enable(&self, pkg: &Package) {
        if pkg.global_en.load(ordering::Relaxed) == 0 {
            if let Err(e) = self.hw.wrmsr(
                MSR_UNC_PERF_GLOBAL_CTRL,
                GlobalCtrl::DRIVER_VALUE.into_raw(),
            ) {
                pr_warn!("cannot enable the uncore counters: {:?}\n", e);
                return;
            }
            pkg.global_en.store(1, ordering::Relaxed);
        }
    }

    /// One more user of the shared fixed counter: enables it for the first.
    fn fixed_get(&self, pkg: &Package) {
        if pkg.fixed_users.fetch_add(1, ordering::Full) == 0 {
            let _ = self.hw.wrmsr(
                MSR_UNC_PERF_FIXED_CTRL,
                FixedCtrl::zeroed().with(FixedCtrl::CNT_EN, 1).into_raw(),
            );
        }
    }

    /// One user less: the last one disables it.
    fn fixed_put(&self, pkg: &Package) {
        if pkg.fixed_users.fetch_sub(1, ordering::Full) == 1 {
            let _ = self.hw.wrmsr(MSR_UNC_PERF_FIXED_CTRL, 0);
            // A user that arrived meanwhile (another PMU, mid-migration) may have enabled it
            // before our write: make its enable stick.
            if pkg.fixed_users.load(ordering::Acquire) > 0 {
                let _ = self.hw.wrmsr(
                    MSR_UNC_PERF_FIXED_CTRL,
                    FixedCtrl::zeroed().with(FixedCtrl::CNT_EN, 1).into_raw(),
                );
            }
        }
    }
}

/// A loaded driver: the engine, its CPU hotplug instance and its PMUs. Dropping it unregisters
/// the PMUs, then the hotplug instance, and clears the global enables.
pub(crate) struct Driver {
    engine: Arc<Engine>,
    _hotplug: Pin<KBox<Hotplug<Collectors>>>,
    /// Dropped last: `intel_uncore` may load once our PMUs are gone.
    _claim: crate::clash::Claim,
}

impl Driver {
    /// Registers `nr_cbox` CBo PMUs, the ARB, the clock and, if `imc`, the IMC over `hw`.
    /// `hotplug_name` names the CPU hotplug state (`perf/<module>:online`).
    pub(crate) fn new(
        hw: Arc<dyn Hw>,
        hotplug_name: &'static CStr,
        module: &'static ThisModule,
        nr_cbox: u32,
        imc: bool,
    ) -> Result<Self> {
        let engine = Engine::new(hw)?;
        let hotplug = KBox::pin_init(
            Hotplug::new(hotplug_name, Collectors(engine.clone())),
            GFP_KERNEL,
        )?;
        let units: [(&'static Unit, u32); 4] = [
            (&CBOX, nr_cbox),
            (&ARB, 1),
            (&CLOCK, 1),
            (&IMC, u32::from(imc)),
        ];
        // Refuse before registering anything if another driver holds our names.
        let claim = crate::clash::refuse_if_taken(
            units
                .iter()
                .flat_map(|&(unit, n)| (0..n).map(move |box_idx| PmuName(unit, box_idx))),
        )?;
        // From here on, an error drops `this`, which unregisters whatever was registered.
        let this = Self {
            engine,
            _hotplug: hotplug,
            _claim: claim,
        };
        for (unit, nr_boxes) in units {
            this.engine.register_unit(unit, nr_boxes, module)?;
        }
        Ok(this)
    }
}

impl Drop for Driver {
    fn drop(&mut self) {
        self.engine.shutdown();
    }
}

impl CpumaskSource for Engine {
    fn fill(&self, mask: &mut kernel::cpumask::CpumaskVar) {
        for p in self.packages.iter() {
            let cpu = p.collector.load(ordering::Relaxed);
            if let Some(cpu) = kernel::cpu::CpuId::from_i32(cpu) {
                mask.set(cpu);
            }
        }
    }
}

/// CPU hotplug: keep one collector per package and move the events when it leaves.
struct Collectors(Arc<Engine>);

impl HotplugOps for Collectors {
    fn online(&self, cpu: u32) {
        let _ = self
            .0
            .package(cpu)
            .collector
            .cmpxchg(-1, cpu as i32, ordering::Full);
    }

    fn offline(&self, cpu: u32) {
        let pkg = self.0.package(cpu);
        if pkg.collector.load(ordering::Acquire) != cpu as i32 {
            return;
        }
        let target = platform::other_online_cpu_in_package(cpu);
        // New events go to the new collector from now on.
        pkg.collector
            .store(target.map_or(-1, |t| t as i32), ordering::Release);
        match target {
            Some(t) => {
                for pmu in self.0.pmus.lock().iter() {
                    pmu.migrate(cpu, t);
                }
            }
            // The package is going away; its registers are reprogrammed when it returns.
            None => pkg.global_en.store(0, ordering::Release),
        }
    }
}

/// Width of the counter an event uses.
fn width_of(target: Target) -> u32 {
    match target {
        Target::Generic(_) => PERFCTR_WIDTH,
        Target::Fixed => FIXED_CTR_WIDTH,
        Target::FreeRunning(_) => IMC_CTR_WIDTH,
    }
}

/// Reads an event's counter.
fn read_counter(hw: &dyn Hw, ev: &Event, target: Target) -> Result<u64> {
    match target {
        Target::FreeRunning(_) => hw.imc_read(ev.counter_addr()).map(u64::from),
        _ => hw.rdmsr(ev.counter_addr()),
    }
}

/// Folds the counter's progress since the last read into the event's count.
///
/// Race-free against the poll timer and readers on other CPUs: whoever swaps `prev_count`
/// owns the delta between the old and the new value.
fn update(hw: &dyn Hw, ev: &Event) {
    let target = Target::from_raw(ev.hw_config());
    let prev_count = ev.prev_count();
    loop {
        let prev = prev_count.load(ordering::Relaxed);
        let Ok(now) = read_counter(hw, ev, target) else {
            return;
        };
        if prev_count.cmpxchg(prev, now as i64, ordering::Full).is_ok() {
            ev.add_count(counter::delta(prev as u64, now, width_of(target)));
            return;
        }
    }
}

/// Poll timer runs since load, for the simulator's statistics (timer wakeups per second).
static POLLS: Atomic<u64> = Atomic::new(0);

/// Poll timer runs since the module loaded.
#[cfg(skl_sim)]
pub(crate) fn polls() -> u64 {
    POLLS.load(ordering::Relaxed)
}

/// A box's state on one package.
///
/// Perf brackets scheduling with `pmu_disable`/`pmu_enable`: while disabled, `del` only
/// parks an event (its counter keeps running) and `add` only checks that the events fit;
/// `pmu_enable` then touches just the counters whose assignment changed. An event that perf
/// takes out and puts back (every other event's open, enable and close reschedules them all)
/// costs no register access at all, as in `arch/x86/events/core.c` for the core PMU.
struct BoxInner {
    /// Events perf has added, in order.
    events: EventList<MAX_BOX_EVENTS>,
    /// Events deleted in this disabled section whose counter still runs.
    parked: EventList<MAX_BOX_EVENTS>,
    /// Inside `pmu_disable` .. `pmu_enable`.
    disabled: bool,
    /// An event was added or started since the last reconcile: `pmu_enable` has work to do.
    /// (Perf enables a PMU after every scheduling pass, most of which change nothing here.)
    dirty: bool,
    act: Activity,
}

/// What runs in a box.
struct Activity {
    /// Events whose counter is programmed and counting (live).
    n_live: usize,
    /// The running poll timer, cancelled when dropped.
    timer: Option<ArcHrTimerHandle<BoxState>>,
}

/// One box (a PMU) on one package.
#[pin_data]
pub(crate) struct BoxState {
    #[pin]
    timer: HrTimer<BoxState>,
    hw: Arc<dyn Hw>,
    poll: Delta,
    inner: OwnedCell<BoxInner>,
}

kernel::impl_has_hr_timer! {
    impl HasHrTimer<Self> for BoxState {
        mode: RelativePinnedHardMode<Monotonic>,
        field: self.timer
    }
}

impl HrTimerCallback for BoxState {
    type Pointer<'a> = Arc<Self>;

    /// Reads every running counter of the box before it can wrap.
    fn run(this: ArcBorrow<'_, Self>, mut ctx: HrTimerCallbackContext<'_, Self>) -> HrTimerRestart {
        POLLS.add(1, ordering::Relaxed);
        let active = this
            .inner
            .with(|inner| {
                for ev in inner.events.iter().filter(|e| e.is_live()) {
                    update(&*this.hw, ev);
                }
                inner.act.n_live > 0
            })
            .unwrap_or(false);
        if active {
            ctx.forward_now(this.poll);
            HrTimerRestart::Restart
        } else {
            HrTimerRestart::NoRestart
        }
    }
}

/// The PMU of one box of one unit.
pub(crate) struct UncorePmu {
    engine: Arc<Engine>,
    unit: &'static Unit,
    box_idx: u32,
    /// Per package.
    boxes: KVec<Arc<BoxState>>,
    attrs: Pin<KBox<PmuAttrs>>,
}

impl UncorePmu {
    fn new(engine: &Arc<Engine>, unit: &'static Unit, box_idx: u32) -> Result<Self> {
        let mut boxes = KVec::with_capacity(engine.packages.len(), GFP_KERNEL)?;
        for _ in 0..engine.packages.len() {
            boxes.push(
                Arc::pin_init(
                    pin_init!(BoxState {
                        timer <- HrTimer::new(),
                        hw: engine.hw.clone(),
                        poll: Delta::from_millis(unit.poll_ms as i64),
                        inner: OwnedCell::new(BoxInner {
                            events: EventList::new(),
                            parked: EventList::new(),
                            disabled: false,
                            dirty: false,
                            act: Activity {
                                n_live: 0,
                                timer: None,
                            },
                        }),
                    }),
                    GFP_KERNEL,
                )?,
                GFP_KERNEL,
            )?;
        }
        let mut formats = KVec::with_capacity(unit.formats.len(), GFP_KERNEL)?;
        for f in unit.formats {
            formats.push(
                StrAttr {
                    name: f.name,
                    value: f.spec,
                },
                GFP_KERNEL,
            )?;
        }
        let mut events = KVec::new();
        for e in unit.events.iter().filter(|e| !e.box0_only || box_idx == 0) {
            events.push(
                StrAttr {
                    name: e.name,
                    value: e.config,
                },
                GFP_KERNEL,
            )?;
            // The `.scale` and `.unit` files of events that have them.
            for (name, value) in [e.scale, e.unit].into_iter().flatten() {
                events.push(StrAttr { name, value }, GFP_KERNEL)?;
            }
        }
        let attrs = PmuAttrs::new(&formats, &events, &**engine)?;
        Ok(Self {
            engine: engine.clone(),
            unit,
            box_idx,
            boxes,
            attrs,
        })
    }

    fn name(&self) -> PmuName {
        PmuName(self.unit, self.box_idx)
    }

    /// The box of the calling CPU's package (perf's `pmu_enable`/`pmu_disable` name no event).
    fn box_here(&self) -> &Arc<BoxState> {
        let pkg = platform::cpu_package(CpuId::current().as_u32()) as usize;
        &self.boxes[pkg.min(self.boxes.len() - 1)]
    }

    fn box_of(&self, ev: &Event) -> &Arc<BoxState> {
        let pkg = platform::cpu_package(ev.cpu().max(0) as u32) as usize;
        &self.boxes[pkg.min(self.boxes.len() - 1)]
    }

    /// What a generic event asks of the scheduler: the counters its event code may use, and the
    /// one it holds now. `None` for events on shared counters.
    fn request(&self, e: &Event) -> Option<Request> {
        match Target::from_raw(e.hw_config()) {
            Target::Generic(sel) => Some(Request {
                allowed: self
                    .unit
                    .allowed_counters(sel.get(PerfEvtSel::EVT_SEL) as u8),
                current: u8::try_from(e.idx()).ok(),
            }),
            _ => None,
        }
    }

    /// Checks that `ev` and the rest of its group fit this PMU's counters.
    fn validate_group(&self, ev: &Event) -> Result {
        let leader = ev.leader();
        let mut reqs = [Request {
            allowed: 0,
            current: None,
        }; sched::MAX_COUNTERS + 1];
        let mut n_generic = 0;
        let mut n_all = 0;
        let mut collect = |e: &Event| {
            if !e.same_pmu(ev) {
                return;
            }
            n_all += 1;
            if let Some(req) = self.request(e) {
                if n_generic < reqs.len() {
                    reqs[n_generic] = req;
                }
                n_generic += 1;
            }
        };
        collect(leader);
        leader.for_each_live_sibling(&mut collect);
        collect(ev);
        let mut out = [0u8; sched::MAX_COUNTERS + 1];
        if n_all > MAX_BOX_EVENTS
            || n_generic > self.unit.nr_generic as usize
            || !sched::assign(&reqs[..n_generic], self.unit.nr_generic as usize, &mut out)
        {
            return Err(refuse(
                self.name(),
                EINVAL,
                "the group does not fit the counters",
            ));
        }
        Ok(())
    }

    /// Programs `ev`'s counter and takes its baseline: the event counts from now on.
    fn hw_start(&self, b: &Arc<BoxState>, act: &mut Activity, ev: &Event) {
        let target = Target::from_raw(ev.hw_config());
        let pkg = self.engine.package(ev.cpu().max(0) as u32);
        // Baseline first: a generic counter does not move until enabled.
        if let Ok(now) = read_counter(&*b.hw, ev, target) {
            ev.prev_count().store(now as i64, ordering::Relaxed);
        }
        match target {
            Target::Generic(sel) => {
                self.engine.ensure_global_enable(pkg);
                let _ =
                    b.hw.wrmsr(ev.control_addr(), sel.with(PerfEvtSel::EN, 1).into_raw());
            }
            Target::Fixed => {
                self.engine.ensure_global_enable(pkg);
                self.engine.fixed_get(pkg);
            }
            Target::FreeRunning(_) => {}
        }
        ev.set_live(true);
        act.n_live += 1;
        if act.n_live == 1 {
            act.timer = Some(b.clone().start(b.poll));
        }
    }

    /// Stops `ev`'s counter and folds its last counts into the event.
    fn hw_stop(&self, act: &mut Activity, ev: &Event) {
        match Target::from_raw(ev.hw_config()) {
            Target::Generic(_) => {
                let _ = self.engine.hw.wrmsr(ev.control_addr(), 0);
            }
            Target::Fixed => self
                .engine
                .fixed_put(self.engine.package(ev.cpu().max(0) as u32)),
            Target::FreeRunning(_) => {}
        }
        // Disabled first: nothing counts between this read and the counter's next user.
        update(&*self.engine.hw, ev);
        ev.set_state(ev.state() | HES_UPTODATE);
        ev.set_live(false);
        act.n_live -= 1;
        if act.n_live == 0 {
            // Cancels the timer: it is pinned to this CPU, so not running now.
            act.timer = None;
        }
    }

    /// Whether the generic events of `events`, plus `new`, fit the counters.
    fn fits(&self, events: &EventList<MAX_BOX_EVENTS>, new: &Event) -> bool {
        let Some(new_req) = self.request(new) else {
            // Fixed and free-running counters are shared.
            return true;
        };
        let mut reqs = [new_req; sched::MAX_COUNTERS];
        let mut n = 1;
        for req in events.iter().filter_map(|e| self.request(e)) {
            if n == reqs.len() {
                return false;
            }
            reqs[n] = req;
            n += 1;
        }
        let mut out = [0u8; sched::MAX_COUNTERS];
        sched::assign(&reqs[..n], self.unit.nr_generic as usize, &mut out[..n])
    }

    /// Brings the hardware in line with the box: stops parked events, gives every generic
    /// event a counter (keeping live ones where they are unless a constraint forces a move),
    /// and starts every event perf wants running. Only what changed touches a register.
    fn reconcile(&self, b: &Arc<BoxState>, inner: &mut BoxInner) {
        inner.dirty = false;
        let BoxInner {
            events,
            parked,
            act,
            ..
        } = inner;
        for ev in parked.iter() {
            self.hw_stop(act, ev);
        }
        parked.clear();

        let mut reqs = [Request {
            allowed: 0,
            current: None,
        }; sched::MAX_COUNTERS];
        let mut who = [0usize; sched::MAX_COUNTERS];
        let mut n = 0;
        for (i, e) in events.iter().enumerate() {
            if let Some(req) = self.request(e) {
                if n < reqs.len() {
                    reqs[n] = Request {
                        current: if e.is_live() { req.current } else { None },
                        ..req
                    };
                    who[n] = i;
                }
                n += 1;
            }
        }
        let mut out = [0u8; sched::MAX_COUNTERS];
        if n > reqs.len()
            || !sched::assign(&reqs[..n], self.unit.nr_generic as usize, &mut out[..n])
        {
            // `add` admits only events that fit: this cannot happen.
            kernel::warn_on!(true);
            return;
        }
        // Events perf stopped, or that lost their counter: stop, keeping the count.
        for e in events.iter() {
            if e.is_live() && e.state() & HES_STOPPED != 0 {
                self.hw_stop(act, e);
            }
        }
        for k in 0..n {
            let e = events.get(who[k]);
            let c = i32::from(out[k]);
            if e.idx() != c {
                if e.is_live() {
                    self.hw_stop(act, e);
                }
                self.assign_generic(e, c);
            }
        }
        for e in events.iter() {
            if e.state() & HES_STOPPED == 0 && !e.is_live() {
                self.hw_start(b, act, e);
            }
        }
    }

    fn assign_generic(&self, ev: &Event, idx: i32) {
        ev.set_idx(idx);
        ev.set_addrs(
            self.unit.ctr(self.box_idx, idx as u32),
            self.unit.evtsel(self.box_idx, idx as u32),
        );
    }
}

struct PmuName(&'static Unit, u32);

impl kernel::fmt::Display for PmuName {
    fn fmt(&self, f: &mut kernel::fmt::Formatter<'_>) -> kernel::fmt::Result {
        if matches!(self.0.kind, UnitKind::Cbox) {
            write!(f, "uncore_{}_{}", self.0.name, self.1)
        } else {
            write!(f, "uncore_{}", self.0.name)
        }
    }
}

impl PmuOps for UncorePmu {
    fn attrs(&self) -> &PmuAttrs {
        &self.attrs
    }

    fn event_init(&self, ev: &Event) -> Result {
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
        let collector = self
            .engine
            .package(ev.cpu() as u32)
            .collector
            .load(ordering::Relaxed);
        let collector = u32::try_from(collector)
            .map_err(|_| refuse(self.name(), ENODEV, "no online CPU collects this package"))?;
        ev.set_hw_config(target.to_raw());
        match target {
            Target::Generic(_) => {
                ev.set_idx(IDX_NONE);
                ev.set_addrs(0, 0);
            }
            Target::Fixed => {
                ev.set_idx(IDX_FIXED);
                ev.set_addrs(MSR_UNC_PERF_FIXED_CTR, MSR_UNC_PERF_FIXED_CTRL);
            }
            Target::FreeRunning(i) => {
                ev.set_idx(IDX_FREE_RUNNING);
                ev.set_addrs(IMC_COUNTERS[usize::from(i)].offset, 0);
            }
        }
        if !ev.is_leader() {
            self.validate_group(ev)?;
        }
        ev.retarget(collector);
        Ok(())
    }

    fn add(&self, ev: &Event, flags: u32) -> Result {
        let b = self.box_of(ev);
        b.inner
            .with(|inner| {
                if inner.events.len() == MAX_BOX_EVENTS || !self.fits(&inner.events, ev) {
                    // Perf multiplexes it.
                    return Err(EBUSY);
                }
                // A parked event comes back with its counter still running.
                inner.parked.remove(ev);
                inner.events.push(ev);
                ev.set_state(if flags & EF_START != 0 {
                    0
                } else {
                    HES_STOPPED | HES_UPTODATE
                });
                inner.dirty = true;
                if !inner.disabled {
                    self.reconcile(b, inner);
                }
                Ok(())
            })
            .unwrap_or(Err(EBUSY))
    }

    fn del(&self, ev: &Event, _flags: u32) {
        let b = self.box_of(ev);
        b.inner.with(|inner| {
            inner.events.remove(ev);
            if ev.is_live() {
                if inner.disabled {
                    // Stopped at pmu_enable, unless perf adds it back before.
                    inner.parked.push(ev);
                } else {
                    self.hw_stop(&mut inner.act, ev);
                }
            }
            ev.set_state(HES_STOPPED | HES_UPTODATE);
        });
    }

    fn start(&self, ev: &Event, _flags: u32) {
        let b = self.box_of(ev);
        b.inner.with(|inner| {
            ev.set_state(0);
            inner.dirty = true;
            if !inner.disabled {
                self.reconcile(b, inner);
            }
        });
    }

    fn stop(&self, ev: &Event, flags: u32) {
        self.box_of(ev).inner.with(|inner| {
            if ev.is_live() {
                self.hw_stop(&mut inner.act, ev);
            } else if flags & EF_UPDATE != 0 {
                ev.set_state(ev.state() | HES_UPTODATE);
            }
            ev.set_state(ev.state() | HES_STOPPED);
        });
    }

    fn read(&self, ev: &Event) {
        // Perf reads active events only, under the context lock, so a live event cannot
        // change counters meanwhile; an event between add and pmu_enable has nothing to add.
        if ev.is_live() {
            update(&*self.engine.hw, ev);
        }
    }

    fn pmu_disable(&self) {
        let b = self.box_here();
        b.inner.with(|inner| inner.disabled = true);
    }

    fn pmu_enable(&self) {
        let b = self.box_here();
        b.inner.with(|inner| {
            inner.disabled = false;
            if inner.dirty || inner.parked.len() > 0 {
                self.reconcile(b, inner);
            }
        });
    }
}

/// Prints a [`Describe`] with the kernel's `fmt!`.
pub(crate) struct Why<T: Describe>(pub(crate) T);

impl<T: Describe> kernel::fmt::Display for Why<T> {
    fn fmt(&self, f: &mut kernel::fmt::Formatter<'_>) -> kernel::fmt::Result {
        self.0.describe(f)
    }
}
