//! A connection's side of the io_uring backend: its socket, the output queued behind the send in flight, received
//! ciphertext for rustls, and the Read/Write adapters that let the TLS code run unchanged over the ring.

use std::io::{self, ErrorKind, Read, Write};
use std::os::fd::{AsRawFd, RawFd};

use super::{tag, Op, Ring};

/// Output a connection may hold unsent (queued plus in flight) before writing reports a full socket, as a kernel
/// send buffer would: the engine's backpressure (`pending`, the high-water mark, the send timeout) reads it.
pub(crate) const RING_CAP: usize = 256 * 1024;

pub(crate) struct RingSock {
    /// A blocking socket: io_uring waits for it in the kernel; the engine's own calls pass MSG_DONTWAIT.
    pub sock: mio::net::TcpStream,
    pub gen: u32,
    /// A multishot receive is armed (until its last completion, a cancelled one too).
    pub recv: bool,
    /// The peer's EOF, or a receive error, arrived.
    pub eof: bool,
    pub failed: bool,
    /// Bytes received and not yet read by the engine (ciphertext for TLS). The parse loop reads them as it reads a
    /// socket, up to its buffer's room at a time, so a request in many pieces is parsed as the epoll path parses it.
    pub rx: Vec<u8>,
    pub rx_pos: usize,
    /// Output behind the send in flight.
    pub tx: Vec<u8>,
    /// The send in flight: the kernel reads this buffer until its completion.
    pub sending: Vec<u8>,
    pub sent: usize,
    /// Shut the write side down once everything is sent (a lingering close waits for its last bytes).
    pub shut_pending: bool,
    /// Listed to have its input parsed once this reap's completions are in (uring/serve.rs).
    pub ready: bool,
}

impl RingSock {
    pub fn new(sock: mio::net::TcpStream, gen: u32) -> RingSock {
        RingSock {
            sock,
            gen,
            recv: false,
            eof: false,
            failed: false,
            rx: Vec::new(),
            rx_pos: 0,
            tx: Vec::new(),
            sending: Vec::new(),
            sent: 0,
            shut_pending: false,
            ready: false,
        }
    }

    pub fn fd(&self) -> RawFd {
        self.sock.as_raw_fd()
    }

    /// Output accepted and not yet taken by the kernel.
    pub fn unsent(&self) -> usize {
        self.tx.len() + self.sending.len() - self.sent
    }

    /// Queues `out` behind what is in flight: moved when nothing is queued (no copy), appended otherwise.
    pub fn queue_out(&mut self, out: &mut Vec<u8>) {
        if self.tx.is_empty() {
            std::mem::swap(&mut self.tx, out);
        } else {
            self.tx.extend_from_slice(out);
        }
        out.clear();
    }

    /// The connection closes: cancel what the kernel holds, keeping the send buffer alive until it lets go.
    pub fn release(&mut self, ring: &mut Ring, cid: usize) {
        if self.recv {
            ring.cancel(tag(Op::Recv, self.gen, cid));
        }
        if !self.sending.is_empty() {
            let ud = tag(Op::Send, self.gen, cid);
            ring.orphan(ud, std::mem::take(&mut self.sending));
            ring.cancel(ud);
        }
        // Now, not at the end of the turn: the socket closes only when the kernel lets go of it.
        ring.submit();
    }
}

/// Sends what the socket takes now, without waiting (MSG_DONTWAIT: the socket itself blocks): the bytes sent.
pub(crate) fn send_now(r: &RingSock, out: &[u8]) -> io::Result<usize> {
    let mut sent = 0;
    while sent < out.len() {
        let rest = &out[sent..];
        // SAFETY: rest is a valid slice for the call's duration.
        let n = unsafe {
            libc::send(
                r.fd(),
                rest.as_ptr().cast(),
                rest.len(),
                libc::MSG_DONTWAIT | libc::MSG_NOSIGNAL,
            )
        };
        if n >= 0 {
            sent += n as usize;
            continue;
        }
        let e = io::Error::last_os_error();
        match e.kind() {
            ErrorKind::WouldBlock => break,
            ErrorKind::Interrupted => {}
            _ => return Err(e),
        }
    }
    Ok(sent)
}

/// Starts the next send when none is in flight and output is queued.
pub(crate) fn queue(ring: &mut Ring, r: &mut RingSock, cid: usize) {
    if r.sending.is_empty() && !r.tx.is_empty() {
        std::mem::swap(&mut r.sending, &mut r.tx);
        r.sent = 0;
        // SAFETY: `sending` is neither touched nor freed until the completion (conn.rs `release` orphans it).
        unsafe { ring.send(r.fd(), &r.sending, r.gen, cid) };
    }
}

/// What a connection received, read as a socket is (rustls reads ciphertext through it; `read_into` plaintext).
pub(crate) struct RingRx<'a>(pub &'a mut RingSock);

impl RingRx<'_> {
    /// The received bytes not yet read.
    pub fn available(&self) -> &[u8] {
        &self.0.rx[self.0.rx_pos..]
    }

    /// `n` bytes of `available()` were read.
    pub fn consume(&mut self, n: usize) {
        let r = &mut *self.0;
        r.rx_pos += n;
        if r.rx_pos == r.rx.len() {
            r.rx_pos = 0;
            if r.rx.capacity() > 16 * 1024 {
                // An upload's staging goes; an idle connection keeps no large buffer.
                r.rx = Vec::new();
            } else {
                r.rx.clear();
            }
        }
    }

    /// What a read returns with nothing left: the peer's EOF, the receive's error, or "wait".
    pub fn at_end(&self) -> io::Result<usize> {
        if self.0.failed {
            Err(ErrorKind::ConnectionReset.into())
        } else if self.0.eof {
            Ok(0)
        } else {
            Err(ErrorKind::WouldBlock.into())
        }
    }
}

impl Read for RingRx<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = buf.len().min(self.available().len());
        if n == 0 {
            return self.at_end();
        }
        buf[..n].copy_from_slice(&self.available()[..n]);
        self.consume(n);
        Ok(n)
    }
}

/// Output (rustls records, file pieces) queued for the ring, refused past `RING_CAP` like a full socket.
pub(crate) struct RingTx<'a>(pub &'a mut RingSock);

impl Write for RingTx<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.0.unsent() >= RING_CAP {
            return Err(ErrorKind::WouldBlock.into());
        }
        self.0.tx.extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Sends a file or cached body over the ring: pieces are copied into the queue until it holds `RING_CAP`. Ok(true)
/// when all of it is queued.
pub(crate) fn send_body(r: &mut RingSock, body: &mut crate::reply::FileBody) -> io::Result<bool> {
    use crate::sys::ReadAt;
    while body.remaining > 0 {
        let room = RING_CAP.saturating_sub(r.unsent());
        if room == 0 {
            return Ok(false);
        }
        let want = body.remaining.min(room.min(64 * 1024) as u64) as usize;
        match &body.source {
            crate::reply::BodySource::Memory(bytes) => {
                let start = body.offset as usize;
                r.tx.extend_from_slice(&bytes[start..start + want]);
                body.offset += want as u64;
                body.remaining -= want as u64;
            }
            crate::reply::BodySource::File(file) => {
                let at = r.tx.len();
                r.tx.resize(at + want, 0);
                let n = match file.read_at(&mut r.tx[at..], body.offset) {
                    Ok(n) => n,
                    Err(e) => {
                        r.tx.truncate(at);
                        return Err(e);
                    }
                };
                r.tx.truncate(at + n);
                if n == 0 {
                    // The file shrank after its length was sent: the response cannot be completed.
                    return Err(ErrorKind::UnexpectedEof.into());
                }
                body.offset += n as u64;
                body.remaining -= n as u64;
            }
        }
    }
    Ok(true)
}
