// SPDX-License-Identifier: GPL-2.0

//! The simulator's late IPI, a test hook: a call made some milliseconds later, from a work
//! item, instead of now, as when the IPI's target is a preempted virtual CPU; one at a time,
//! and waited for before the module's text goes.

use kernel::{
    ffi::c_void,
    impl_has_delayed_work, new_delayed_work,
    prelude::*,
    sync::{
        atomic::{ordering, Atomic},
        Arc, ArcBorrow,
    },
    time::msecs_to_jiffies,
    workqueue::{self, DelayedWork, WorkItem},
};

use super::delayed_work_flush::DelayedWorkFlush as _;
use super::raw_spinlock::{new_raw_spinlock_irqsave, RawSpinLockIrqSave};

/// A call for later: `f(info)`.
#[derive(Clone, Copy)]
struct Call {
    f: unsafe extern "C" fn(*mut c_void),
    info: *mut c_void,
}

// SAFETY: [`defer`]'s caller promises that `f(info)` may run later, from a work item: on
// another thread.
unsafe impl Send for Call {}

/// The work item, the call it makes when it runs (`None`: no call pending), and how late.
#[pin_data]
struct LateCall {
    delay_ms: u32,
    #[pin]
    work: DelayedWork<LateCall>,
    #[pin]
    pending: RawSpinLockIrqSave<Option<Call>>,
}

impl_has_delayed_work! {
    impl HasDelayedWork<Self> for LateCall { self.work }
}

impl WorkItem for LateCall {
    type Pointer = Arc<LateCall>;

    fn run(this: Arc<LateCall>) {
        if let Some(call) = this.pending.lock().take() {
            // SAFETY: `defer`'s caller promised that `f(info)` may be called once, later;
            // taking the call out of `pending` makes this the once.
            unsafe { (call.f)(call.info) };
        }
    }
}

/// The hook in use, while a [`Hold`] holds it: what [`defer`] reaches from an IPI.
static HELD: Atomic<*mut LateCall> = Atomic::new(core::ptr::null_mut());

/// Publishes a [`LateCall`] for [`defer`] while it lives; on drop, unpublishes it and waits
/// for its work item to return (its function is this module's text).
///
/// # Invariants
///
/// `HELD` is `call`'s address from `new` to `drop`, and only one `Hold` exists.
pub(crate) struct Hold {
    call: Arc<LateCall>,
}

impl Hold {
    /// Takes the hook, making [`defer`] call `delay_ms` milliseconds late (0: never); `EBUSY`
    /// if another `Hold` has it. Process context.
    pub(crate) fn new(delay_ms: u32) -> Result<Self> {
        let call = Arc::pin_init(
            pin_init!(LateCall {
                delay_ms,
                work <- new_delayed_work!("LateCall::work"),
                pending <- new_raw_spinlock_irqsave!(None, "LateCall::pending"),
            }),
            GFP_KERNEL,
        )?;
        let ptr = Arc::as_ptr(&call).cast_mut();
        HELD.cmpxchg(core::ptr::null_mut(), ptr, ordering::Release)
            .map_err(|_| EBUSY)?;
        // INVARIANT: `HELD` is `call`'s address until `drop`, and was null before.
        Ok(Self { call })
    }
}

impl Drop for Hold {
    fn drop(&mut self) {
        HELD.store(core::ptr::null_mut(), ordering::Relaxed);
        self.call.work.flush();
    }
}

/// Calls `f(info)` the [`Hold`]'s delay from now, from a work item, if a `Hold` with a delay is
/// held and no call is pending; otherwise returns `false` and does nothing (the caller calls
/// now).
///
/// # Safety
///
/// The [`Hold`] held now, if any, is not dropped before this returns, and `f(info)` is sound
/// to call once, from process context on any CPU, at any time until that `Hold` is dropped
/// (its drop waits for the call).
pub(crate) unsafe fn defer(f: unsafe extern "C" fn(*mut c_void), info: *mut c_void) -> bool {
    let ptr = HELD.load(ordering::Acquire);
    if ptr.is_null() {
        return false;
    }
    // SAFETY: A non-null `HELD` is the `LateCall` its `Hold` keeps alive (invariant), and
    // the caller keeps that `Hold` until this returns.
    let call = unsafe { ArcBorrow::from_raw(ptr) };
    if call.delay_ms == 0 {
        return false;
    }
    let delay = msecs_to_jiffies(call.delay_ms);
    let call: Arc<LateCall> = call.into();
    {
        let mut pending = call.pending.lock();
        if pending.is_some() {
            return false;
        }
        *pending = Some(Call { f, info });
    }
    match workqueue::system().enqueue_delayed(call, delay) {
        Ok(()) => true,
        // Already queued: cannot be, as the item is queued only with a call in `pending`,
        // which its run takes first. Then it is not made at all.
        Err(call) => {
            call.pending.lock().take();
            false
        }
    }
}
