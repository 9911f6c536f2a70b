//! The read path on the JS thread: the watch callback (poller.rs) drains ready sockets, reads into pooled
//! buffers and runs the parse loop, calling JS for each routed request with no engine borrow held.

use std::io::ErrorKind;

use crate::conn::Io;
use crate::engine::{Step, LISTENER};
use crate::Server;

/// A receive into uninitialised memory: a socket's, or what the io_uring backend received.
trait Recv {
    fn recv(&mut self, buf: &mut [std::mem::MaybeUninit<u8>]) -> std::io::Result<usize>;
    /// Bytes ready to be received now, when known.
    fn pending(&self) -> Option<usize>;
}

impl Recv for mio::net::TcpStream {
    fn recv(&mut self, buf: &mut [std::mem::MaybeUninit<u8>]) -> std::io::Result<usize> {
        crate::sys::recv(self, buf)
    }
    fn pending(&self) -> Option<usize> {
        crate::sys::pending(self)
    }
}

#[cfg(target_os = "linux")]
impl Recv for crate::uring::RingRx<'_> {
    fn recv(&mut self, buf: &mut [std::mem::MaybeUninit<u8>]) -> std::io::Result<usize> {
        let n = buf.len().min(self.available().len());
        if n == 0 {
            return self.at_end();
        }
        // SAFETY: both ranges are valid for n bytes and are different allocations (the ring's staging, the
        // engine's read buffer); MaybeUninit<u8> has u8's layout.
        unsafe {
            std::ptr::copy_nonoverlapping(
                self.available().as_ptr(),
                buf.as_mut_ptr().cast::<u8>(),
                n,
            )
        };
        self.consume(n);
        Ok(n)
    }
    fn pending(&self) -> Option<usize> {
        Some(self.available().len())
    }
}

/// Result of one read attempt.
pub(crate) enum ReadResult {
    /// Filled the whole spare capacity: there may be more.
    Full,
    /// Read less than asked: the receive queue was empty at that moment.
    Short,
    WouldBlock,
    Eof,
    Error,
}

/// Reads into the spare capacity of `buf`, growing it when full.
fn read_into(sock: &mut impl Recv, buf: &mut Vec<u8>) -> ReadResult {
    if buf.capacity() - buf.len() < 4096 {
        buf.reserve(16 * 1024);
    }
    let spare = buf.spare_capacity_mut();
    let room = spare.len();
    loop {
        match sock.recv(spare) {
            Ok(0) => return ReadResult::Eof,
            Ok(n) => {
                // SAFETY: recv (the kernel, or the ring's staging copy) initialised exactly n bytes after len.
                unsafe { buf.set_len(buf.len() + n) };
                return if n == room {
                    ReadResult::Full
                } else {
                    ReadResult::Short
                };
            }
            Err(e) => match e.kind() {
                ErrorKind::WouldBlock => return ReadResult::WouldBlock,
                ErrorKind::Interrupted => continue,
                _ => return ReadResult::Error,
            },
        }
    }
}

/// Receives a streamed request body straight into the request's own buffer when the engine may
/// (`Inner::direct_body`): the kernel's copy is the only one, where going through the connection's read buffer adds
/// a second, and the request's buffer grows once per receive instead of doubling. None: not such a request now, or
/// a transport this does not serve (in-process pipes), so the read buffer is used.
fn read_body_direct(inner: &mut crate::engine::Inner, cid: usize) -> Option<ReadResult> {
    let idx = inner.direct_body(cid)?;
    let r = {
        let crate::engine::Inner { conns, reqs, .. } = &mut *inner;
        let req = reqs.get_mut(idx);
        let got = match &mut conns[cid].io {
            Io::Tcp(sock) => recv_body(sock, req),
            #[cfg(target_os = "linux")]
            Io::Ring(r) => recv_body(&mut crate::uring::RingRx(r), req),
            Io::Mem(_) => return None,
        };
        got
    };
    Some(match r {
        Ok((0, _)) => ReadResult::Eof,
        Ok((n, want)) => {
            // Step::Continue (the body ended) or Stop: the parse loop that follows sees the new phase.
            let _ = inner.body_received(idx, n);
            if n == want {
                ReadResult::Full
            } else {
                ReadResult::Short
            }
        }
        Err(e) if e.kind() == ErrorKind::WouldBlock => ReadResult::WouldBlock,
        Err(_) => ReadResult::Error,
    })
}

/// One receive of body bytes into `req.body` (retried when interrupted by a signal): as many as are waiting, up to
/// what is left of the body and `MAX_BODY_RECV`, so the buffer is sized by what arrived, not by what may come.
/// (received, asked).
fn recv_body(
    sock: &mut impl Recv,
    req: &mut crate::request::Req,
) -> std::io::Result<(usize, usize)> {
    let waiting = sock.pending().unwrap_or(crate::engine::BODY_HIGH_WATER);
    let want = (req
        .body_left
        .min(waiting.clamp(16 * 1024, MAX_BODY_RECV) as u64)) as usize;
    if req.body.capacity() == 0 && req.body_left >= crate::body_pool::MIN_KEEP as u64 {
        // A large body and nothing buffered (JS took the last piece): reuse a buffer JS handed back.
        if let Some(v) = crate::body_pool::take() {
            req.body = v;
        }
    }
    req.body.reserve(want);
    let spare = &mut req.body.spare_capacity_mut()[..want];
    loop {
        match sock.recv(spare) {
            Err(e) if e.kind() == ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
            Ok(n) => {
                // SAFETY: the receive initialised exactly n bytes after len (n ≤ want ≤ the spare capacity).
                unsafe { req.body.set_len(req.body.len() + n) };
                return Ok((n, want));
            }
        }
    }
}

/// The most one receive of a streamed body asks for (what is waiting decides, up to this): 1 MiB against 256 KiB cost
/// 6 % less CPU per upload in `npm run bench -- arena upload` (Node 26, 6 alternating rounds).
const MAX_BODY_RECV: usize = 1024 * 1024;

impl Server {
    /// The uv_poll callback: drain every ready socket in one batch, inside one JS scope.
    pub(crate) fn on_ready(&self) {
        self.begin_batch();
        let mut events = self.events_buf.borrow_mut();
        {
            let mut inner = self.inner.borrow_mut();
            inner.refresh_clock();
            if inner.poll.drain(&mut events).is_err() {
                events.clear();
            }
        }
        for ev in events.iter() {
            let token = ev.token();
            if token == LISTENER {
                self.inner.borrow_mut().accept();
                continue;
            }
            let cid = token.0;
            if ev.is_writable() || ev.is_error() {
                let mut inner = self.inner.borrow_mut();
                if inner.conns.get(cid).is_some_and(|c| c.want_write) {
                    inner.flush(cid);
                }
            }
            if ev.is_readable() || ev.is_read_closed() || ev.is_error() {
                // A short read empties the queue and new data raises a new edge, so only a FIN or
                // an error needs reading until EAGAIN (the read that sees it).
                self.read_and_process(cid, ev.is_read_closed() || ev.is_error());
            }
        }
        drop(events);
        self.end_batch();
    }

    /// Reads what the socket has and runs the parse loop over it. `greedy` reads until EAGAIN or EOF;
    /// otherwise a short read ends the round (edge-triggered: more data will raise a new edge).
    pub(crate) fn read_and_process(&self, cid: usize, greedy: bool) {
        let mut buf = {
            let mut inner = self.inner.borrow_mut();
            let Some(conn) = inner.conns.get_mut(cid) else {
                return;
            };
            if conn.read_paused {
                return;
            }
            let b = std::mem::take(&mut conn.rbuf);
            let b = if b.capacity() == 0 {
                inner.take_buf()
            } else {
                b
            };
            // A paused io_uring connection's receive starts again (nothing to do on epoll).
            #[cfg(target_os = "linux")]
            if inner.ring.is_some() {
                inner.ring_resume(cid);
            }
            b
        };
        let mut eof = false;
        // Leftover input from a pause is processed before reading more.
        let mut need_read = buf.is_empty();
        loop {
            let mut last = false;
            if need_read {
                let r = 'read: {
                    let mut inner = self.inner.borrow_mut();
                    let inner = &mut *inner;
                    if buf.is_empty() {
                        if let Some(r) = read_body_direct(inner, cid) {
                            break 'read r;
                        }
                    }
                    match inner.conns.get_mut(cid) {
                        Some(c) => match (&mut c.io, c.tls.as_mut()) {
                            (Io::Tcp(sock), None) => read_into(sock, &mut buf),
                            (Io::Mem(p), _) => {
                                inner.pipes[*p].read_into(*p, &mut buf, &mut inner.events)
                            }
                            #[cfg(target_os = "linux")]
                            (Io::Ring(r), None) => {
                                read_into(&mut crate::uring::RingRx(r), &mut buf)
                            }
                            #[cfg(target_os = "linux")]
                            (Io::Ring(r), Some(tls)) => {
                                let res =
                                    crate::tls::read(&mut crate::uring::RingRx(r), tls, &mut buf);
                                let r = match res {
                                    crate::tls::TlsRead::More => ReadResult::Full,
                                    crate::tls::TlsRead::Drained(true) => ReadResult::Short,
                                    crate::tls::TlsRead::Drained(false) => ReadResult::WouldBlock,
                                    crate::tls::TlsRead::Eof => ReadResult::Eof,
                                    crate::tls::TlsRead::Failed => {
                                        // Send the alert rustls queued, then close.
                                        crate::tls::push_out(&mut crate::uring::RingTx(r), tls);
                                        if let Some(ring) = inner.ring.as_mut() {
                                            crate::uring::queue(ring, r, cid);
                                        }
                                        ReadResult::Error
                                    }
                                };
                                if tls.wants_write() && !matches!(r, ReadResult::Error) {
                                    inner.touch(cid);
                                }
                                r
                            }
                            (Io::Tcp(sock), Some(tls)) => {
                                let r = match crate::tls::read(sock, tls, &mut buf) {
                                    crate::tls::TlsRead::More => ReadResult::Full,
                                    crate::tls::TlsRead::Drained(true) => ReadResult::Short,
                                    crate::tls::TlsRead::Drained(false) => ReadResult::WouldBlock,
                                    crate::tls::TlsRead::Eof => ReadResult::Eof,
                                    crate::tls::TlsRead::Failed => {
                                        // Send the alert rustls queued, then close.
                                        crate::tls::push_out(sock, tls);
                                        ReadResult::Error
                                    }
                                };
                                // Handshake messages (and alerts) wait in rustls for the flush.
                                if tls.wants_write() && !matches!(r, ReadResult::Error) {
                                    inner.touch(cid);
                                }
                                r
                            }
                        },
                        None => ReadResult::Error,
                    }
                };
                match r {
                    ReadResult::Full => {}
                    ReadResult::Short => last = !greedy && crate::poller::SHORT_READ_DRAINS,
                    ReadResult::WouldBlock => break,
                    ReadResult::Eof => {
                        eof = true;
                        break;
                    }
                    ReadResult::Error => {
                        self.inner.borrow_mut().close_conn(cid);
                        break;
                    }
                }
            }
            need_read = true;
            let used = self.process(cid, &buf);
            buf.drain(..used);
            let inner = self.inner.borrow();
            match inner.conns.get(cid) {
                None => break,
                Some(c) if c.read_paused => break,
                Some(_) if last => break,
                Some(_) => {}
            }
        }
        let mut inner = self.inner.borrow_mut();
        match inner.conns.get_mut(cid) {
            Some(c) if !buf.is_empty() => c.rbuf = buf,
            _ => inner.give_buf(buf),
        }
        if eof {
            inner.on_eof(cid);
        }
    }

    /// Runs the parse loop over `buf`, calling JS for each routed request. Returns bytes consumed.
    fn process(&self, cid: usize, buf: &[u8]) -> usize {
        let mut pos = 0;
        loop {
            let step = self.inner.borrow_mut().step(cid, buf, &mut pos);
            match step {
                Step::Dispatch(id, route) => {
                    self.handler.request(self, id, route);
                    self.counted_js_call();
                }
                Step::WsMessage {
                    cid,
                    sid,
                    binary,
                    payload,
                } => {
                    self.handler.ws_message(self, sid, &payload, binary);
                    self.inner.borrow_mut().ws_restore(cid, sid, payload);
                    self.counted_js_call();
                }
                Step::Continue => {}
                Step::Stop => return pos,
            }
        }
    }
}
