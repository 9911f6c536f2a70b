//! Reading through a transport: a socket's or the ring's received bytes into the connection's buffer or straight
//! into a request's body, and a TLS read's result as a read's.

use std::io::ErrorKind;

use super::ReadResult;
use crate::request::Req;

/// The most one receive of a streamed body asks for (what is waiting decides, up to this): 1 MiB against 256 KiB cost
/// 6 % less CPU per upload in `npm run bench -- arena upload` (Node 26, 6 alternating rounds).
const MAX_BODY_RECV: usize = 1024 * 1024;

/// One TLS read's result as a read's: the mapping every transport shares.
pub(super) fn tls_read(r: crate::tls::TlsRead) -> ReadResult {
    match r {
        crate::tls::TlsRead::More => ReadResult::Full,
        crate::tls::TlsRead::Drained(true) => ReadResult::Short,
        crate::tls::TlsRead::Drained(false) => ReadResult::WouldBlock,
        crate::tls::TlsRead::Eof => ReadResult::Eof,
        crate::tls::TlsRead::Failed => ReadResult::Error,
    }
}

/// A receive into uninitialised memory: a socket's, or what the io_uring backend received.
pub(super) trait Recv {
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

/// Reads into the spare capacity of `buf`, growing it when full.
pub(super) fn read_into(sock: &mut impl Recv, buf: &mut Vec<u8>) -> ReadResult {
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

/// One receive of body bytes into `req.body` (retried when interrupted by a signal): as many as are waiting, up to
/// what is left of the body and `MAX_BODY_RECV`, so the buffer is sized by what arrived, not by what may come.
/// (received, asked).
pub(super) fn recv_body(sock: &mut impl Recv, req: &mut Req) -> std::io::Result<(usize, usize)> {
    let waiting = sock.pending().unwrap_or(crate::engine::BODY_HIGH_WATER);
    let want = (req
        .body_in
        .left
        .min(waiting.clamp(16 * 1024, MAX_BODY_RECV) as u64)) as usize;
    if req.body_in.buf.capacity() == 0 && req.body_in.left >= crate::body_pool::MIN_KEEP as u64 {
        // A large body and nothing buffered (JS took the last piece): reuse a buffer JS handed back.
        if let Some(v) = crate::body_pool::take() {
            req.body_in.buf = v;
        }
    }
    req.body_in.buf.reserve(want);
    let spare = &mut req.body_in.buf.spare_capacity_mut()[..want];
    loop {
        match sock.recv(spare) {
            Err(e) if e.kind() == ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
            Ok(n) => {
                // SAFETY: the receive initialised exactly n bytes after len (n ≤ want ≤ the spare capacity).
                unsafe { req.body_in.buf.set_len(req.body_in.buf.len() + n) };
                return Ok((n, want));
            }
        }
    }
}
