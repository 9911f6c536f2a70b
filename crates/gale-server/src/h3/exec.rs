//! The HTTP/3 side's executor, on Node's loop: quinn's endpoint and connection drivers and the engine's HTTP/3
//! tasks are futures polled here, on the JS thread. A wake-up queues its task and, outside a run, sends a uv_async;
//! one uv_timer is armed for the earliest timer any task waits on. No Tokio runtime, no thread (quinn's `Runtime`).
//! Over 400 lines: the executor and quinn's `Runtime` on it (spawn, timers, the UDP socket's wrapper) are one unit: the
//! runtime's timers are the executor's deadlines.

use std::cell::{Cell, RefCell};
use std::ffi::c_void;
use std::fmt;
use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::pin::Pin;
use std::rc::{Rc, Weak};
use std::sync::atomic::{AtomicBool, AtomicPtr, Ordering};
use std::sync::{Arc, Mutex, Weak as ArcWeak};
use std::task::{Context, Poll, Wake, Waker};
use std::time::Instant;

use slab::Slab;

use crate::uv::{self, UvHandle, UvLoop};

/// Rounds of polling in one run before the loop gets its turn back (a task that keeps waking itself, as quinn's
/// drivers do past their per-poll budget, continues on the next turn).
const MAX_ROUNDS: usize = 32;

type LocalTask = Pin<Box<dyn Future<Output = ()>>>;
type SendTask = Pin<Box<dyn Future<Output = ()> + Send>>;

/// What wakers (which must be `Send + Sync`) and quinn's runtime share with the executor.
pub(super) struct Shared {
    /// Task keys woken since the last round.
    ready: Mutex<Vec<usize>>,
    /// Futures quinn spawned (its drivers), adopted at the next round.
    spawned: Mutex<Vec<SendTask>>,
    timers: Mutex<Vec<ArcWeak<TimerSlot>>>,
    /// A run is going on: a wake-up needs no uv_async.
    running: AtomicBool,
    /// The uv_async was sent and its callback has not run yet.
    scheduled: AtomicBool,
    /// The uv_async; null once it is closed.
    wake_handle: AtomicPtr<c_void>,
}

impl Shared {
    fn schedule(&self) {
        if self.running.load(Ordering::Acquire) || self.scheduled.swap(true, Ordering::AcqRel) {
            return;
        }
        let h = self.wake_handle.load(Ordering::Acquire);
        if !h.is_null() {
            // SAFETY: the handle is live while the pointer is set (cleared before uv_close).
            unsafe { uv::async_send(h) };
        }
    }

    fn wake(&self, key: usize) {
        self.ready.lock().unwrap().push(key);
        self.schedule();
    }
}

struct TaskWaker {
    key: usize,
    shared: Arc<Shared>,
}

impl Wake for TaskWaker {
    fn wake(self: Arc<Self>) {
        self.shared.wake(self.key);
    }
    fn wake_by_ref(self: &Arc<Self>) {
        self.shared.wake(self.key);
    }
}

struct Task {
    fut: Option<LocalTask>,
    waker: Waker,
}

/// The executor of one server's HTTP/3 endpoint.
pub(crate) struct Exec {
    shared: Arc<Shared>,
    tasks: RefCell<Slab<Task>>,
    /// The uv_async and uv_timer; None once closed.
    handles: Cell<Option<(UvHandle, UvHandle)>>,
    /// When the uv_timer is set to fire (None: stopped).
    armed: Cell<Option<Instant>>,
}

impl Exec {
    /// An executor on loop `lp`. Its handles point back at it weakly; `close` releases them.
    pub fn new(lp: UvLoop) -> Result<Rc<Exec>, String> {
        let exec = Rc::new(Exec {
            shared: Arc::new(Shared {
                ready: Mutex::new(Vec::new()),
                spawned: Mutex::new(Vec::new()),
                timers: Mutex::new(Vec::new()),
                running: AtomicBool::new(false),
                scheduled: AtomicBool::new(false),
                wake_handle: AtomicPtr::new(std::ptr::null_mut()),
            }),
            tasks: RefCell::new(Slab::new()),
            handles: Cell::new(None),
            armed: Cell::new(None),
        });
        let data = Weak::into_raw(Rc::downgrade(&exec)) as *const c_void;
        let wake = match uv::async_new(lp, data, on_wake) {
            Ok(h) => h,
            Err(e) => {
                // SAFETY: `data` came from Weak::into_raw just above and no handle holds it.
                drop(unsafe { Weak::from_raw(data as *const Exec) });
                return Err(e);
            }
        };
        // SAFETY: wake is live; an async handle only wakes work the UDP socket's poll keeps alive.
        unsafe { uv::unref(wake) };
        // The timer's data is a Weak of its own: each handle's close callback releases the one it holds (one shared
        // Weak released twice broke the Rc's weak count, and the heap, at close).
        let timer_data = Weak::into_raw(Rc::downgrade(&exec)) as *const c_void;
        let timer = match uv::timer_new(lp, timer_data, false) {
            Ok(h) => h,
            Err(e) => {
                // SAFETY: `timer_data` came from Weak::into_raw just above and no handle holds it; wake is live and
                // its close callback releases `data`.
                unsafe {
                    drop(Weak::from_raw(timer_data as *const Exec));
                    uv::close(wake, uv::Kind::Async, on_closed_async);
                }
                return Err(e);
            }
        };
        exec.shared.wake_handle.store(wake, Ordering::Release);
        exec.handles.set(Some((wake, timer)));
        Ok(exec)
    }

    /// quinn's view of this executor.
    pub fn runtime(&self) -> Arc<LoopRuntime> {
        Arc::new(LoopRuntime {
            shared: self.shared.clone(),
        })
    }

    /// Starts `fut`; it first runs at the end of this run, or on the next loop turn.
    pub fn spawn(&self, fut: impl Future<Output = ()> + 'static) {
        self.adopt(Box::pin(fut));
    }

    fn adopt(&self, fut: LocalTask) {
        let mut tasks = self.tasks.borrow_mut();
        let entry = tasks.vacant_entry();
        let key = entry.key();
        let waker = Waker::from(Arc::new(TaskWaker {
            key,
            shared: self.shared.clone(),
        }));
        entry.insert(Task {
            fut: Some(fut),
            waker,
        });
        self.shared.wake(key);
    }

    /// Polls every woken task until none is, or `MAX_ROUNDS`; then arms the timer for the earliest deadline.
    pub fn run(&self) {
        self.run_after(|| {});
    }

    /// `run`, after `wake` (which wakes tasks: no uv_async is sent for them, the run polls them now).
    pub fn run_after(&self, wake: impl FnOnce()) {
        if self.handles.get().is_none() || self.shared.running.swap(true, Ordering::AcqRel) {
            wake();
            return;
        }
        wake();
        self.shared.scheduled.store(false, Ordering::Release);
        let mut rounds = 0;
        loop {
            let spawned = std::mem::take(&mut *self.shared.spawned.lock().unwrap());
            for fut in spawned {
                self.adopt(fut);
            }
            let ready = std::mem::take(&mut *self.shared.ready.lock().unwrap());
            if ready.is_empty() {
                break;
            }
            rounds += 1;
            if rounds > MAX_ROUNDS {
                self.shared.ready.lock().unwrap().extend(ready);
                self.shared.running.store(false, Ordering::Release);
                self.shared.schedule();
                self.arm();
                return;
            }
            for key in ready {
                self.poll_task(key);
            }
        }
        self.shared.running.store(false, Ordering::Release);
        self.arm();
    }

    fn poll_task(&self, key: usize) {
        // Taken out while polled: the task may spawn, or reach the engine, which may wake other tasks.
        let (fut, waker) = {
            let mut tasks = self.tasks.borrow_mut();
            let Some(t) = tasks.get_mut(key) else { return };
            let Some(fut) = t.fut.take() else { return };
            (fut, t.waker.clone())
        };
        let mut fut = fut;
        let mut cx = Context::from_waker(&waker);
        // A panic in QUIC or HTTP/3 code ends that task (a request, a connection), never the process: it would
        // otherwise unwind into libuv's C frames, which aborts.
        let polled = std::panic::catch_unwind(AssertUnwindSafe(|| fut.as_mut().poll(&mut cx)));
        let done = match polled {
            Ok(p) => p.is_ready(),
            Err(_) => {
                eprintln!("gale: an HTTP/3 task panicked (a bug in Gale or its QUIC libraries); it was dropped");
                true
            }
        };
        let mut tasks = self.tasks.borrow_mut();
        if done {
            tasks.remove(key);
        } else if let Some(t) = tasks.get_mut(key) {
            t.fut = Some(fut);
        }
    }

    /// Sets the uv_timer to the earliest deadline a pending timer waits for.
    fn arm(&self) {
        let Some((_, timer)) = self.handles.get() else {
            return;
        };
        let mut earliest: Option<Instant> = None;
        self.shared.timers.lock().unwrap().retain(|w| {
            let Some(slot) = w.upgrade() else {
                return false;
            };
            let s = slot.state.lock().unwrap();
            if s.waker.is_some() && earliest.is_none_or(|e| s.deadline < e) {
                earliest = Some(s.deadline);
            }
            true
        });
        if earliest == self.armed.get() {
            return;
        }
        self.armed.set(earliest);
        match earliest {
            // SAFETY: the timer is live while `handles` holds it.
            None => unsafe { uv::timer_stop(timer) },
            Some(at) => {
                // Rounded up: firing early would only re-arm for the same deadline.
                let us = at.saturating_duration_since(Instant::now()).as_micros() as u64;
                // SAFETY: as above.
                unsafe { uv::timer_start(timer, on_timer, us.div_ceil(1000), 0) };
            }
        }
    }

    /// Wakes the timers that are due, then runs.
    fn fire(&self) {
        self.armed.set(None);
        let now = Instant::now();
        let mut due = Vec::new();
        for w in self.shared.timers.lock().unwrap().iter() {
            if let Some(slot) = w.upgrade() {
                let mut s = slot.state.lock().unwrap();
                if s.deadline <= now {
                    if let Some(waker) = s.waker.take() {
                        due.push(waker);
                    }
                }
            }
        }
        self.run_after(|| due.into_iter().for_each(Waker::wake));
    }

    /// Closes the handles and drops every task (quinn's drivers included). Call with no engine borrow held: a
    /// dropped request task lets go of its request record and connection record.
    pub fn close(&self) {
        let Some((wake, timer)) = self.handles.take() else {
            return;
        };
        self.shared
            .wake_handle
            .store(std::ptr::null_mut(), Ordering::Release);
        // SAFETY: both handles are live (taken out of `handles` exactly once); each close callback releases
        // the Weak the handle's data holds.
        unsafe {
            uv::close(wake, uv::Kind::Async, on_closed_async);
            uv::close(timer, uv::Kind::Timer, on_closed_timer);
        }
        self.shared.spawned.lock().unwrap().clear();
        let tasks = std::mem::take(&mut *self.tasks.borrow_mut());
        drop(tasks);
    }
}

/// The executor a handle's data points at, if it is still alive.
///
/// # Safety
/// `h` must be one of an `Exec`'s live handles.
unsafe fn exec_of(h: UvHandle) -> Option<Rc<Exec>> {
    // SAFETY: data is a Weak<Exec> from Weak::into_raw, released only by the close callback.
    let weak =
        unsafe { &*std::mem::ManuallyDrop::new(Weak::from_raw(uv::handle_data(h) as *const Exec)) };
    weak.upgrade()
}

unsafe extern "C" fn on_wake(h: UvHandle) {
    // SAFETY: libuv calls this with the live async handle.
    if let Some(exec) = unsafe { exec_of(h) } {
        exec.run();
    }
}

unsafe extern "C" fn on_timer(h: UvHandle) {
    // SAFETY: libuv calls this with the live timer handle.
    if let Some(exec) = unsafe { exec_of(h) } {
        exec.fire();
    }
}

unsafe extern "C" fn on_closed_async(h: UvHandle) {
    // SAFETY: libuv is done with h; its data is the Weak from Exec::new, released here once.
    unsafe {
        drop(Weak::from_raw(uv::handle_data(h) as *const Exec));
        uv::free_handle(h, uv::Kind::Async);
    }
}

unsafe extern "C" fn on_closed_timer(h: UvHandle) {
    // SAFETY: as on_closed_async, for the timer.
    unsafe {
        drop(Weak::from_raw(uv::handle_data(h) as *const Exec));
        uv::free_handle(h, uv::Kind::Timer);
    }
}

/// quinn's `Runtime` over the executor: its drivers are spawned here and its timers are the executor's.
pub(crate) struct LoopRuntime {
    shared: Arc<Shared>,
}

impl fmt::Debug for LoopRuntime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("LoopRuntime")
    }
}

impl Exec {
    /// A timer for the engine's own tasks, the kind quinn's get.
    pub fn timer(&self, at: Instant) -> Pin<Box<dyn quinn::AsyncTimer>> {
        new_timer(&self.shared, at)
    }
}

fn new_timer(shared: &Shared, at: Instant) -> Pin<Box<dyn quinn::AsyncTimer>> {
    let slot = Arc::new(TimerSlot {
        state: Mutex::new(TimerState {
            deadline: at,
            waker: None,
        }),
    });
    shared.timers.lock().unwrap().push(Arc::downgrade(&slot));
    Box::pin(Timer { slot })
}

impl quinn::Runtime for LoopRuntime {
    fn new_timer(&self, at: Instant) -> Pin<Box<dyn quinn::AsyncTimer>> {
        new_timer(&self.shared, at)
    }

    fn spawn(&self, future: Pin<Box<dyn Future<Output = ()> + Send>>) {
        self.shared.spawned.lock().unwrap().push(future);
        self.shared.schedule();
    }

    fn wrap_udp_socket(
        &self,
        _sock: std::net::UdpSocket,
    ) -> std::io::Result<Arc<dyn quinn::AsyncUdpSocket>> {
        // Only `Endpoint::rebind` asks for this; the engine makes its socket itself (udp.rs) and never rebinds.
        Err(std::io::Error::other(
            "the engine's HTTP/3 endpoint cannot be rebound",
        ))
    }
}

struct TimerState {
    deadline: Instant,
    /// The task waiting for the deadline.
    waker: Option<Waker>,
}

pub(super) struct TimerSlot {
    state: Mutex<TimerState>,
}

/// A quinn timer: a deadline and the task waiting on it, seen by `Exec::arm` and `Exec::fire`.
struct Timer {
    slot: Arc<TimerSlot>,
}

impl fmt::Debug for Timer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Timer")
    }
}

impl quinn::AsyncTimer for Timer {
    fn reset(self: Pin<&mut Self>, at: Instant) {
        self.slot.state.lock().unwrap().deadline = at;
    }

    fn poll(self: Pin<&mut Self>, cx: &mut Context) -> Poll<()> {
        let mut s = self.slot.state.lock().unwrap();
        if s.deadline <= Instant::now() {
            s.waker = None;
            return Poll::Ready(());
        }
        match &s.waker {
            Some(w) if w.will_wake(cx.waker()) => {}
            _ => s.waker = Some(cx.waker().clone()),
        }
        Poll::Pending
    }
}
