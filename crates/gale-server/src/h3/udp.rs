//! The HTTP/3 endpoint's UDP socket for quinn: datagrams sent and received by quinn-udp (GSO, GRO, ECN, the
//! packet-info the kernel has), readiness from a uv_poll on Node's loop that watches only what a task waits for.

use std::ffi::{c_int, c_void};
use std::fmt;
use std::io::{self, IoSliceMut};
use std::net::{SocketAddr, UdpSocket};
use std::os::fd::AsRawFd;
use std::pin::Pin;
use std::rc::{Rc, Weak};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};

use quinn::udp::{RecvMeta, Transmit, UdpSocketState};

use super::exec::Exec;
use crate::uv::{self, UvHandle, UvLoop};

/// Who waits on the socket, and what the poll handle watches for them.
struct Waiters {
    read: Option<Waker>,
    /// Each of quinn's pollers notifies one task (its connection's driver, or the endpoint's).
    write: Vec<Waker>,
    /// `READABLE | WRITABLE` as the handle watches now.
    events: c_int,
    /// The uv_poll (as an address: wakers must be Send); 0 once closed.
    handle: usize,
    /// A send would have blocked: writers wait for the writable edge.
    blocked: bool,
}

pub(crate) struct UvUdp {
    sock: UdpSocket,
    state: UdpSocketState,
    /// Datagrams one receive may take (1: GRO off).
    gro_segments: usize,
    waiters: Mutex<Waiters>,
}

impl fmt::Debug for UvUdp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("UvUdp").field("sock", &self.sock).finish()
    }
}

/// What the poll handle's data points at.
struct PollCtx {
    udp: Arc<UvUdp>,
    exec: Weak<Exec>,
}

impl UvUdp {
    /// Wraps a bound socket (made non-blocking here) and starts its poll handle on `lp`, stopped until a task
    /// waits. `close` stops it. Without `offload`, GRO is turned off again (quinn-udp turns it on); quinn's
    /// transport config stops GSO.
    pub fn new(
        sock: UdpSocket,
        lp: UvLoop,
        exec: &Rc<Exec>,
        offload: bool,
    ) -> io::Result<Arc<UvUdp>> {
        sock.set_nonblocking(true)?;
        let state = UdpSocketState::new((&sock).into())?;
        let gro_segments = if offload {
            state.gro_segments()
        } else {
            gro_off(&sock);
            1
        };
        let udp = Arc::new(UvUdp {
            sock,
            state,
            gro_segments,
            waiters: Mutex::new(Waiters {
                read: None,
                write: Vec::new(),
                events: uv::READABLE,
                handle: 0,
                blocked: false,
            }),
        });
        let ctx = Box::into_raw(Box::new(PollCtx {
            udp: udp.clone(),
            exec: Rc::downgrade(exec),
        }));
        match uv::poll_new(lp, udp.sock.as_raw_fd(), ctx as *const c_void, on_poll) {
            Ok(h) => udp.waiters.lock().unwrap().handle = h as usize,
            Err(e) => {
                // SAFETY: no handle holds ctx (poll_new failed and freed its storage).
                drop(unsafe { Box::from_raw(ctx) });
                return Err(io::Error::other(e));
            }
        }
        Ok(udp)
    }

    /// Stops and closes the poll handle (the socket closes when quinn lets go of it).
    pub fn close(&self) {
        let h = std::mem::take(&mut self.waiters.lock().unwrap().handle);
        if h != 0 {
            // SAFETY: h is the live poll handle, taken out exactly once; the callback frees its PollCtx.
            unsafe { uv::close(h as UvHandle, uv::Kind::Poll, on_closed) };
        }
    }

    /// Watches what the waiters need.
    fn rewatch(w: &mut Waiters) {
        let want = if w.read.is_some() { uv::READABLE } else { 0 }
            | if w.write.is_empty() { 0 } else { uv::WRITABLE };
        if want != w.events && w.handle != 0 {
            w.events = want;
            // SAFETY: the handle is live while `handle` is set.
            unsafe { uv::poll_set(w.handle as UvHandle, want, on_poll) };
        }
    }
}

/// Turns UDP GRO off on `sock` (Linux; elsewhere quinn-udp never turned it on). A kernel without UDP_GRO refuses
/// the option: GRO is off there already.
fn gro_off(sock: &UdpSocket) {
    #[cfg(target_os = "linux")]
    {
        let off: c_int = 0;
        // SAFETY: a valid fd and a c_int option value of the size given.
        unsafe {
            libc::setsockopt(
                sock.as_raw_fd(),
                libc::SOL_UDP,
                libc::UDP_GRO,
                (&off as *const c_int).cast(),
                std::mem::size_of::<c_int>() as libc::socklen_t,
            );
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = sock;
}

unsafe extern "C" fn on_poll(h: UvHandle, status: c_int, events: c_int) {
    // SAFETY: data is the PollCtx from UvUdp::new, freed only by on_closed.
    let ctx = unsafe { &*(uv::handle_data(h) as *const PollCtx) };
    let mut woken = Vec::new();
    {
        let mut w = ctx.udp.waiters.lock().unwrap();
        // An error (status < 0) wakes everyone: their next call sees it.
        if status < 0 || events & uv::READABLE != 0 {
            woken.extend(w.read.take());
        }
        if status < 0 || events & uv::WRITABLE != 0 {
            w.blocked = false;
            woken.append(&mut w.write);
        }
        UvUdp::rewatch(&mut w);
    }
    match ctx.exec.upgrade() {
        Some(exec) => exec.run_after(|| woken.into_iter().for_each(Waker::wake)),
        None => woken.into_iter().for_each(Waker::wake),
    }
}

unsafe extern "C" fn on_closed(h: UvHandle) {
    // SAFETY: libuv is done with h; its data is the PollCtx from UvUdp::new, freed here once.
    unsafe {
        drop(Box::from_raw(uv::handle_data(h) as *mut PollCtx));
        uv::free_handle(h, uv::Kind::Poll);
    }
}

impl quinn::AsyncUdpSocket for UvUdp {
    fn create_io_poller(self: Arc<Self>) -> Pin<Box<dyn quinn::UdpPoller>> {
        Box::pin(Writable { udp: self })
    }

    fn try_send(&self, transmit: &Transmit) -> io::Result<()> {
        let r = self.state.send((&self.sock).into(), transmit);
        if matches!(&r, Err(e) if e.kind() == io::ErrorKind::WouldBlock) {
            self.waiters.lock().unwrap().blocked = true;
        }
        r
    }

    fn poll_recv(
        &self,
        cx: &mut Context,
        bufs: &mut [IoSliceMut<'_>],
        meta: &mut [RecvMeta],
    ) -> Poll<io::Result<usize>> {
        match self.state.recv((&self.sock).into(), bufs, meta) {
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                // Level-triggered: if a datagram came since the call, the poll fires on this loop turn.
                let mut w = self.waiters.lock().unwrap();
                w.read = Some(cx.waker().clone());
                UvUdp::rewatch(&mut w);
                Poll::Pending
            }
            r => Poll::Ready(r),
        }
    }

    fn local_addr(&self) -> io::Result<SocketAddr> {
        self.sock.local_addr()
    }

    fn max_transmit_segments(&self) -> usize {
        self.state.max_gso_segments()
    }

    fn max_receive_segments(&self) -> usize {
        self.gro_segments
    }

    fn may_fragment(&self) -> bool {
        self.state.may_fragment()
    }
}

/// quinn's poller for writability, asked before every send: ready unless a send would have blocked since the
/// last writable edge.
struct Writable {
    udp: Arc<UvUdp>,
}

impl fmt::Debug for Writable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Writable")
    }
}

impl quinn::UdpPoller for Writable {
    fn poll_writable(self: Pin<&mut Self>, cx: &mut Context) -> Poll<io::Result<()>> {
        let mut w = self.udp.waiters.lock().unwrap();
        if !w.blocked {
            return Poll::Ready(Ok(()));
        }
        if !w.write.iter().any(|x| x.will_wake(cx.waker())) {
            w.write.push(cx.waker().clone());
        }
        UvUdp::rewatch(&mut w);
        Poll::Pending
    }
}
