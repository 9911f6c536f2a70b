//! How the Node loop learns that sockets are ready. On Unix, mio's epoll/kqueue fd is watched by one `uv_poll`
//! handle and drained without blocking on the JS thread. On Windows, IOCP has no descriptor libuv could watch, so
//! the mio `Poll` blocks on a thread of its own and wakes the JS thread with a `uv_async` handle; every socket
//! operation still happens on the JS thread (mio's registry and sockets are made for that split: tokio uses it).

use std::io;

use crate::uv::{self, UvHandle, UvLoop};

/// The uv handle kind that watches a `Poller`.
#[cfg(unix)]
pub(crate) const WATCH_KIND: uv::Kind = uv::Kind::Poll;
#[cfg(windows)]
pub(crate) const WATCH_KIND: uv::Kind = uv::Kind::Async;

/// A short read drains the receive queue, so the next data raises a new readiness edge. Not so on Windows,
/// where mio re-arms a socket only when one of its operations returns WouldBlock.
pub(crate) const SHORT_READ_DRAINS: bool = cfg!(unix);

/// What an accepted socket is registered for: both edges on Unix; on Windows readable only, with writability
/// asked for while output waits (output.rs, `watch_writable`, says why).
#[cfg(unix)]
pub(crate) const CONN_INTEREST: mio::Interest =
    mio::Interest::READABLE.add(mio::Interest::WRITABLE);
#[cfg(windows)]
pub(crate) const CONN_INTEREST: mio::Interest = mio::Interest::READABLE;

#[cfg(unix)]
pub(crate) use unix::*;
#[cfg(windows)]
pub(crate) use windows::*;

#[cfg(unix)]
mod unix {
    use super::*;
    use std::ffi::c_int;
    use std::os::fd::AsRawFd;
    use std::time::Duration;

    unsafe extern "C" fn on_poll(h: UvHandle, _status: c_int, _events: c_int) {
        // SAFETY: the handle's data is a strong Rc<Server> pointer, released only in its close callback.
        let server = unsafe { &*(uv::handle_data(h) as *const crate::Server) };
        server.on_ready();
    }

    /// Ready sockets from one drain.
    pub(crate) type Events = mio::Events;

    pub(crate) fn events() -> Events {
        mio::Events::with_capacity(1024)
    }

    pub(crate) struct Poller {
        poll: mio::Poll,
    }

    impl Poller {
        pub(crate) fn new() -> io::Result<Self> {
            Ok(Poller {
                poll: mio::Poll::new()?,
            })
        }

        pub(crate) fn registry(&self) -> &mio::Registry {
            self.poll.registry()
        }

        /// The sockets ready now, without blocking.
        pub(crate) fn drain(&mut self, events: &mut Events) -> io::Result<()> {
            self.poll.poll(events, Some(Duration::ZERO))
        }

        /// A `uv_poll` on the epoll/kqueue fd, draining the ready sockets when it is readable; `data` is the
        /// handle's strong `Rc<Server>` pointer.
        pub(crate) fn watch(
            &mut self,
            lp: UvLoop,
            data: *const std::ffi::c_void,
        ) -> Result<UvHandle, String> {
            uv::poll_new(lp, self.poll.as_raw_fd(), data, on_poll)
        }

        /// Called before the watch handle closes: nothing runs off the JS thread here.
        pub(crate) fn unwatch(&mut self) {}
    }
}

#[cfg(windows)]
mod windows {
    use super::*;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::{Arc, Mutex};
    use std::thread::JoinHandle;

    unsafe extern "C" fn on_async(h: UvHandle) {
        // SAFETY: the handle's data is a strong Rc<Server> pointer, released only in its close callback.
        let server = unsafe { &*(uv::handle_data(h) as *const crate::Server) };
        server.on_ready();
    }

    /// The token of the waker that stops the polling thread (sockets use slab keys, the listener usize::MAX).
    const STOP: mio::Token = mio::Token(usize::MAX - 1);

    /// One ready socket, as the polling thread saw it.
    #[derive(Clone, Copy, Debug)]
    pub(crate) struct Ready {
        token: mio::Token,
        flags: u8,
    }

    const READABLE: u8 = 1;
    const WRITABLE: u8 = 2;
    const READ_CLOSED: u8 = 4;
    const ERROR: u8 = 8;

    impl Ready {
        fn of(ev: &mio::event::Event) -> Ready {
            let mut flags = 0;
            for (on, bit) in [
                (ev.is_readable(), READABLE),
                (ev.is_writable(), WRITABLE),
                (ev.is_read_closed(), READ_CLOSED),
                (ev.is_error(), ERROR),
            ] {
                if on {
                    flags |= bit;
                }
            }
            Ready {
                token: ev.token(),
                flags,
            }
        }
        pub(crate) fn token(&self) -> mio::Token {
            self.token
        }
        pub(crate) fn is_readable(&self) -> bool {
            self.flags & READABLE != 0
        }
        pub(crate) fn is_writable(&self) -> bool {
            self.flags & WRITABLE != 0
        }
        pub(crate) fn is_read_closed(&self) -> bool {
            self.flags & READ_CLOSED != 0
        }
        pub(crate) fn is_error(&self) -> bool {
            self.flags & ERROR != 0
        }
    }

    /// Ready sockets from one drain.
    pub(crate) struct Events(Vec<Ready>);

    impl Events {
        pub(crate) fn iter(&self) -> std::slice::Iter<'_, Ready> {
            self.0.iter()
        }
        pub(crate) fn clear(&mut self) {
            self.0.clear();
        }
    }

    pub(crate) fn events() -> Events {
        Events(Vec::with_capacity(1024))
    }

    /// What the polling thread hands to the JS thread.
    struct Shared {
        ready: Mutex<Vec<Ready>>,
        stop: AtomicBool,
    }

    /// The `uv_async_t` the polling thread signals; uv_async_send is the one libuv call safe off the loop thread.
    struct AsyncPtr(UvHandle);
    // SAFETY: only uv_async_send touches it from the polling thread, and the handle outlives the thread
    // (`unwatch` joins the thread before the handle is closed).
    unsafe impl Send for AsyncPtr {}

    pub(crate) struct Poller {
        registry: mio::Registry,
        /// Until `watch` moves it to the polling thread.
        poll: Option<mio::Poll>,
        shared: Arc<Shared>,
        waker: mio::Waker,
        thread: Option<JoinHandle<()>>,
    }

    impl Poller {
        pub(crate) fn new() -> io::Result<Self> {
            let poll = mio::Poll::new()?;
            let registry = poll.registry().try_clone()?;
            let waker = mio::Waker::new(poll.registry(), STOP)?;
            Ok(Poller {
                registry,
                poll: Some(poll),
                shared: Arc::new(Shared {
                    ready: Mutex::new(Vec::new()),
                    stop: AtomicBool::new(false),
                }),
                waker,
                thread: None,
            })
        }

        pub(crate) fn registry(&self) -> &mio::Registry {
            &self.registry
        }

        /// The sockets the polling thread found ready since the last drain.
        pub(crate) fn drain(&mut self, events: &mut Events) -> io::Result<()> {
            events.0.clear();
            let mut ready = self.shared.ready.lock().unwrap_or_else(|e| e.into_inner());
            std::mem::swap(&mut *ready, &mut events.0);
            Ok(())
        }

        /// A `uv_async` handle, signalled by a thread blocked in mio's poll, draining the ready sockets; `data` is
        /// the handle's strong `Rc<Server>` pointer.
        pub(crate) fn watch(
            &mut self,
            lp: UvLoop,
            data: *const std::ffi::c_void,
        ) -> Result<UvHandle, String> {
            let Some(mut poll) = self.poll.take() else {
                return Err("the poller is already watched".into());
            };
            let handle = uv::async_new(lp, data, on_async)?;
            let shared = self.shared.clone();
            let wake = AsyncPtr(handle);
            let spawned = std::thread::Builder::new()
                .name("gale-poll".into())
                .spawn(move || {
                    let wake = wake;
                    let mut events = mio::Events::with_capacity(1024);
                    loop {
                        if let Err(e) = poll.poll(&mut events, None) {
                            if e.kind() == io::ErrorKind::Interrupted {
                                continue;
                            }
                            break;
                        }
                        if shared.stop.load(Ordering::Acquire) {
                            break;
                        }
                        let mut any = false;
                        {
                            let mut ready = shared.ready.lock().unwrap_or_else(|e| e.into_inner());
                            for ev in events.iter().filter(|e| e.token() != STOP) {
                                ready.push(Ready::of(ev));
                                any = true;
                            }
                        }
                        if any {
                            // SAFETY: the handle lives until `unwatch` has joined this thread.
                            unsafe { uv::async_send(wake.0) };
                        }
                    }
                });
            match spawned {
                Ok(t) => {
                    self.thread = Some(t);
                    Ok(handle)
                }
                Err(e) => {
                    // SAFETY: the handle was initialised above and nothing else holds it; its data is the
                    // caller's, which the caller takes back on this error.
                    unsafe { uv::close(handle, uv::Kind::Async, uv::free_async) };
                    Err(format!("could not start the engine's polling thread: {e}"))
                }
            }
        }

        /// Stops the polling thread; the caller closes the watch handle after this.
        pub(crate) fn unwatch(&mut self) {
            self.shared.stop.store(true, Ordering::Release);
            let _ = self.waker.wake();
            if let Some(t) = self.thread.take() {
                let _ = t.join();
            }
        }
    }

    impl Drop for Poller {
        fn drop(&mut self) {
            self.unwatch();
        }
    }
}
