//! The few libuv calls Gale needs, resolved at run time from the Node process that loaded us.
//! We never build or link a second libuv: Node exports its `uv_*` symbols, so `dlsym` (Unix) or `GetProcAddress`
//! (Windows) finds them.
//! Handles are opaque blocks sized by `uv_handle_size`; only `data` (documented as the first field) is touched.

use std::ffi::{c_int, c_void, CStr};
use std::sync::OnceLock;

/// Opaque libuv loop pointer (`uv_loop_t*`), as handed over by `napi_get_uv_event_loop`.
pub type UvLoop = *mut c_void;
/// Opaque libuv handle pointer (`uv_handle_t*`, `uv_poll_t*`, `uv_async_t*`, `uv_timer_t*`).
pub type UvHandle = *mut c_void;

pub type PollCb = unsafe extern "C" fn(handle: UvHandle, status: c_int, events: c_int);
pub type AsyncCb = unsafe extern "C" fn(handle: UvHandle);
pub type TimerCb = unsafe extern "C" fn(handle: UvHandle);
pub type CloseCb = unsafe extern "C" fn(handle: UvHandle);

/// `UV_READABLE` from uv.h.
#[cfg(unix)]
pub const READABLE: c_int = 1;
/// `UV_WRITABLE` from uv.h.
#[cfg(unix)]
pub const WRITABLE: c_int = 2;

/// The handle kinds Gale creates, as uv.h numbers them (UV_HANDLE_TYPE_MAP order, starting at 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(i32)]
pub enum Kind {
    Async = 1,
    #[cfg_attr(windows, allow(dead_code))]
    Poll = 8,
    Timer = 13,
}

type HandleSizeFn = unsafe extern "C" fn(c_int) -> usize;
type PollInitFn = unsafe extern "C" fn(UvLoop, UvHandle, c_int) -> c_int;
type PollStartFn = unsafe extern "C" fn(UvHandle, c_int, PollCb) -> c_int;
type HandleFn = unsafe extern "C" fn(UvHandle) -> c_int;
type AsyncInitFn = unsafe extern "C" fn(UvLoop, UvHandle, AsyncCb) -> c_int;
type TimerInitFn = unsafe extern "C" fn(UvLoop, UvHandle) -> c_int;
type TimerStartFn = unsafe extern "C" fn(UvHandle, TimerCb, u64, u64) -> c_int;
type CloseFn = unsafe extern "C" fn(UvHandle, CloseCb);
type UnrefFn = unsafe extern "C" fn(UvHandle);

#[cfg_attr(windows, allow(dead_code))] // the uv_poll functions: Windows watches the engine with uv_async
struct Api {
    handle_size: HandleSizeFn,
    poll_init: PollInitFn,
    poll_start: PollStartFn,
    poll_stop: HandleFn,
    async_init: AsyncInitFn,
    async_send: HandleFn,
    timer_init: TimerInitFn,
    timer_start: TimerStartFn,
    timer_stop: HandleFn,
    close: CloseFn,
    unref: UnrefFn,
}

fn sym(name: &CStr) -> Result<*mut c_void, String> {
    let p = crate::sys::node_symbol(name);
    if p.is_null() {
        Err(format!(
            "libuv symbol {} not found: Gale must be loaded inside Node.js",
            name.to_string_lossy()
        ))
    } else {
        Ok(p)
    }
}

fn api() -> Result<&'static Api, String> {
    static API: OnceLock<Result<Api, String>> = OnceLock::new();
    API.get_or_init(|| {
        // SAFETY: each symbol is the libuv function of that name, whose C signature matches the field's type.
        unsafe {
            Ok(Api {
                handle_size: std::mem::transmute::<*mut c_void, HandleSizeFn>(sym(
                    c"uv_handle_size",
                )?),
                poll_init: std::mem::transmute::<*mut c_void, PollInitFn>(sym(c"uv_poll_init")?),
                poll_start: std::mem::transmute::<*mut c_void, PollStartFn>(sym(c"uv_poll_start")?),
                poll_stop: std::mem::transmute::<*mut c_void, HandleFn>(sym(c"uv_poll_stop")?),
                async_init: std::mem::transmute::<*mut c_void, AsyncInitFn>(sym(c"uv_async_init")?),
                async_send: std::mem::transmute::<*mut c_void, HandleFn>(sym(c"uv_async_send")?),
                timer_init: std::mem::transmute::<*mut c_void, TimerInitFn>(sym(c"uv_timer_init")?),
                timer_start: std::mem::transmute::<*mut c_void, TimerStartFn>(sym(
                    c"uv_timer_start",
                )?),
                timer_stop: std::mem::transmute::<*mut c_void, HandleFn>(sym(c"uv_timer_stop")?),
                close: std::mem::transmute::<*mut c_void, CloseFn>(sym(c"uv_close")?),
                unref: std::mem::transmute::<*mut c_void, UnrefFn>(sym(c"uv_unref")?),
            })
        }
    })
    .as_ref()
    .map_err(Clone::clone)
}

fn check(rc: c_int, what: &str) -> Result<(), String> {
    if rc == 0 {
        Ok(())
    } else {
        Err(format!("{what} failed with libuv error {rc}"))
    }
}

/// Allocates zeroed, 16-byte aligned storage for a handle of `kind` and stores `data` in its first field.
fn alloc_handle(kind: Kind, data: *const c_void) -> Result<UvHandle, String> {
    let api = api()?;
    // SAFETY: uv_handle_size is a pure function of the handle type.
    let size = unsafe { (api.handle_size)(kind as c_int) };
    let layout =
        std::alloc::Layout::from_size_align(size.max(16), 16).map_err(|e| e.to_string())?;
    // SAFETY: layout has a non-zero size.
    let p = unsafe { std::alloc::alloc_zeroed(layout) };
    if p.is_null() {
        return Err("out of memory allocating a libuv handle".into());
    }
    // SAFETY: `void* data` is the first, public field of every uv handle; p is aligned and large enough.
    unsafe { *(p as *mut *const c_void) = data };
    Ok(p as UvHandle)
}

/// Frees storage from `alloc_handle`; call only from the handle's close callback.
///
/// # Safety
/// `h` must come from `alloc_handle(kind, …)` and libuv must be done with it (close callback ran).
pub unsafe fn free_handle(h: UvHandle, kind: Kind) {
    let Ok(api) = api() else { return };
    // SAFETY: same size computation as in alloc_handle.
    let size = unsafe { (api.handle_size)(kind as c_int) };
    let layout = std::alloc::Layout::from_size_align(size.max(16), 16).expect("valid layout");
    // SAFETY: h was allocated with this layout by alloc_handle (caller's contract).
    unsafe { std::alloc::dealloc(h as *mut u8, layout) };
}

/// Reads the `data` field of a handle.
///
/// # Safety
/// `h` must be a live handle from `alloc_handle`.
pub unsafe fn handle_data(h: UvHandle) -> *const c_void {
    // SAFETY: data is the first field (caller guarantees h is a live handle).
    unsafe { *(h as *const *const c_void) }
}

/// A `uv_poll_t` watching `fd` for readability on `lp`.
#[cfg(unix)]
pub fn poll_new(
    lp: UvLoop,
    fd: c_int,
    data: *const c_void,
    cb: PollCb,
) -> Result<UvHandle, String> {
    let api = api()?;
    let h = alloc_handle(Kind::Poll, data)?;
    // SAFETY: lp is Node's loop (from napi_get_uv_event_loop) and h is fresh handle storage.
    init_or_free(
        h,
        Kind::Poll,
        unsafe { (api.poll_init)(lp, h, fd) },
        "uv_poll_init",
    )?;
    // SAFETY: h was initialised just above.
    if let Err(e) = check(
        unsafe { (api.poll_start)(h, READABLE, cb) },
        "uv_poll_start",
    ) {
        // SAFETY: h is initialised, so libuv must close it before its storage goes.
        unsafe { close(h, Kind::Poll, free_poll) };
        return Err(e);
    }
    Ok(h)
}

/// Changes what a poll handle watches (`READABLE | WRITABLE`; 0 stops it until the next call).
///
/// # Safety
/// `h` must be a live handle from `poll_new`, not yet closed.
#[cfg(unix)]
pub unsafe fn poll_set(h: UvHandle, events: c_int, cb: PollCb) {
    if let Ok(api) = api() {
        // SAFETY: caller guarantees h is a live poll handle.
        unsafe {
            if events == 0 {
                (api.poll_stop)(h);
            } else {
                (api.poll_start)(h, events, cb);
            }
        }
    }
}

/// Lets the loop exit while `h` is the only thing left on it (an async handle that only ever wakes work
/// something else keeps alive).
///
/// # Safety
/// `h` must be a live handle.
#[cfg(unix)]
pub unsafe fn unref(h: UvHandle) {
    if let Ok(api) = api() {
        // SAFETY: caller guarantees h is live.
        unsafe { (api.unref)(h) };
    }
}

/// Stops a timer (it stays usable).
///
/// # Safety
/// `h` must be a live timer from `timer_new`.
#[cfg(unix)]
pub unsafe fn timer_stop(h: UvHandle) {
    if let Ok(api) = api() {
        // SAFETY: caller guarantees h is a live timer handle.
        unsafe { (api.timer_stop)(h) };
    }
}

/// A close callback that only frees a poll handle's storage (for handles whose `data` owns nothing).
#[cfg(unix)]
unsafe extern "C" fn free_poll(h: UvHandle) {
    // SAFETY: libuv is done with h, allocated by alloc_handle(Kind::Poll, …).
    unsafe { free_handle(h, Kind::Poll) };
}

/// The close callback of an async handle whose `data` owns nothing: frees its storage.
#[cfg_attr(unix, allow(dead_code))]
pub unsafe extern "C" fn free_async(h: UvHandle) {
    // SAFETY: libuv is done with h, allocated by alloc_handle(Kind::Async, …).
    unsafe { free_handle(h, Kind::Async) };
}

/// `check` for a `uv_*_init` call: on failure libuv has not registered the handle, so its storage is freed here.
fn init_or_free(h: UvHandle, kind: Kind, rc: c_int, what: &str) -> Result<(), String> {
    let r = check(rc, what);
    if r.is_err() {
        // SAFETY: h came from alloc_handle(kind, …) and a failed init left libuv without a reference to it.
        unsafe { free_handle(h, kind) };
    }
    r
}

/// A `uv_async_t` on `lp` calling `cb` on the loop thread after any `async_send` (several coalesce into one call).
#[cfg_attr(unix, allow(dead_code))]
pub fn async_new(lp: UvLoop, data: *const c_void, cb: AsyncCb) -> Result<UvHandle, String> {
    let api = api()?;
    let h = alloc_handle(Kind::Async, data)?;
    // SAFETY: lp is Node's loop and h is fresh handle storage.
    init_or_free(
        h,
        Kind::Async,
        unsafe { (api.async_init)(lp, h, cb) },
        "uv_async_init",
    )?;
    Ok(h)
}

/// Wakes the loop to run an async handle's callback; the one libuv call that is safe from any thread.
///
/// # Safety
/// `h` must be a live handle from `async_new`, not yet closed.
#[cfg_attr(unix, allow(dead_code))]
pub unsafe fn async_send(h: UvHandle) {
    if let Ok(api) = api() {
        // SAFETY: caller guarantees h is a live async handle.
        unsafe { (api.async_send)(h) };
    }
}

/// A `uv_timer_t`; with `keep_alive` false it does not keep the loop alive on its own.
pub fn timer_new(lp: UvLoop, data: *const c_void, keep_alive: bool) -> Result<UvHandle, String> {
    let api = api()?;
    let h = alloc_handle(Kind::Timer, data)?;
    // SAFETY: lp is Node's loop and h is fresh handle storage.
    init_or_free(
        h,
        Kind::Timer,
        unsafe { (api.timer_init)(lp, h) },
        "uv_timer_init",
    )?;
    if !keep_alive {
        // SAFETY: h is an initialised handle.
        unsafe { (api.unref)(h) };
    }
    Ok(h)
}

/// Starts (or restarts) a timer.
///
/// # Safety
/// `h` must be a live timer from `timer_new`.
pub unsafe fn timer_start(h: UvHandle, cb: TimerCb, timeout_ms: u64, repeat_ms: u64) {
    if let Ok(api) = api() {
        // SAFETY: caller guarantees h is a live timer handle.
        unsafe { (api.timer_start)(h, cb, timeout_ms, repeat_ms) };
    }
}

/// Stops and closes a handle; `cb` runs on a later loop turn and must free it.
///
/// # Safety
/// `h` must be a live handle that has not been closed yet.
pub unsafe fn close(h: UvHandle, kind: Kind, cb: CloseCb) {
    if let Ok(api) = api() {
        // SAFETY: caller guarantees h is live and not yet closing.
        unsafe {
            match kind {
                Kind::Poll => (api.poll_stop)(h),
                Kind::Timer => (api.timer_stop)(h),
                Kind::Async => 0,
            };
            (api.close)(h, cb);
        }
    }
}
