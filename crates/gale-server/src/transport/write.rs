//! Writing a connection's output through its transport: a socket's writes (through rustls under TLS), a pipe's
//! hand-over, the ring's queue; and Windows' writable interest.

use std::io::{ErrorKind, Write};

use rustls::ServerConnection;

use super::{Io, Reach, Wrote};

/// Output buffers above this size are not kept by an idle connection (a large response's).
const KEEP_WBUF: usize = 256 * 1024;

/// A connection's transport and output, borrowed from its `Conn` (conn.rs, `Conn::out`) apart from the rest.
pub(crate) struct Out<'a> {
    pub io: &'a mut Io,
    pub tls: Option<&'a mut ServerConnection>,
    /// Output accepted and not yet written, from `wpos`.
    pub wbuf: &'a mut Vec<u8>,
    pub wpos: &'a mut usize,
    /// Waiting for the writable edge (or, on the ring, for queued bytes to leave).
    pub want_write: &'a mut bool,
    /// Since when the client has taken nothing (the send timeout; the ring's: a socket's is conn.rs's own).
    #[cfg_attr(not(target_os = "linux"), allow(dead_code))]
    pub stalled_since: &'a mut u64,
    /// The connection closes once its output left (the ring waits for its queue to empty).
    #[cfg_attr(not(target_os = "linux"), allow(dead_code))]
    pub closing: bool,
}

/// Writes `wbuf[wpos..]` (through rustls for TLS; `file_follows`: a file body goes by sendfile right after, so the
/// bytes are held back to leave with its first ones). `hwm`: past it the ring writes straight to the socket.
pub(crate) fn write_out(
    c: Out,
    reach: &mut Reach,
    file_follows: bool,
    hwm: usize,
    now: u64,
    progressed: &mut bool,
) -> Wrote {
    #[cfg(target_os = "linux")]
    if matches!(c.io, Io::Ring(_)) {
        return ring_write_out(c, reach, hwm, now, progressed);
    }
    let _ = (hwm, now);
    let (io, wbuf, wpos, want_write) = (c.io, c.wbuf, c.wpos, c.want_write);
    if let (Some(tls), Io::Tcp(sock)) = (c.tls, &mut *io) {
        // TLS: the plaintext goes into rustls, its records onto the socket.
        match crate::tls::flush(sock, tls, wbuf, wpos, progressed) {
            crate::tls::TlsFlush::Done => {}
            crate::tls::TlsFlush::Blocked => return Wrote::Full,
            crate::tls::TlsFlush::Failed => return Wrote::Failed,
        }
    }
    while *wpos < wbuf.len() {
        let out = &wbuf[*wpos..];
        let written = match &mut *io {
            Io::Tcp(sock) if file_follows => crate::sys::send_more(sock, out),
            Io::Tcp(sock) => sock.write(out),
            Io::Mem(p) => reach.pipes[*p].write(*p, out, reach.events),
            #[cfg(target_os = "linux")]
            Io::Ring(_) => unreachable!("ring output is queued above"),
        };
        match written {
            Ok(0) => return Wrote::Failed,
            Ok(n) => {
                *wpos += n;
                *progressed = true;
            }
            Err(e) if e.kind() == ErrorKind::WouldBlock => return Wrote::Full,
            Err(e) if e.kind() == ErrorKind::Interrupted => {}
            Err(_) => return Wrote::Failed,
        }
    }
    wbuf.clear();
    *wpos = 0;
    if *want_write {
        watch_writable(io, reach.registry, reach.cid, false);
    }
    *want_write = false;
    if wbuf.capacity() > KEEP_WBUF {
        *wbuf = Vec::new();
    }
    Wrote::Done
}

/// The ring's write: output is queued behind the send in flight (moved, not copied, when nothing is queued).
#[cfg(target_os = "linux")]
fn ring_write_out(c: Out, reach: &mut Reach, hwm: usize, now: u64, progressed: &mut bool) -> Wrote {
    let Out {
        io,
        tls,
        wbuf,
        wpos,
        want_write,
        stalled_since,
        closing,
    } = c;
    let Io::Ring(r) = io else {
        unreachable!("write_out sends only the ring's output here");
    };
    let Some(ring) = reach.ring.as_deref_mut() else {
        return Wrote::Queued;
    };
    let mut blocked = false;
    if let Some(tls) = tls {
        let r = crate::tls::flush(&mut crate::uring::RingTx(r), tls, wbuf, wpos, progressed);
        match r {
            crate::tls::TlsFlush::Done => {}
            crate::tls::TlsFlush::Blocked => blocked = true,
            crate::tls::TlsFlush::Failed => return Wrote::Failed,
        }
        if *wpos >= wbuf.len() {
            wbuf.clear();
            *wpos = 0;
        }
    } else {
        if r.unsent() == 0 && wbuf.len() - *wpos > hwm {
            // Past the high-water mark with nothing queued: straight to the socket, as the epoll backend
            // writes, so write() reports backpressure when the socket, not the ring's turn, is full.
            match crate::uring::send_now(r, &wbuf[*wpos..]) {
                Ok(n) => {
                    *wpos += n;
                    *progressed |= n > 0;
                }
                Err(_) => return Wrote::Failed,
            }
        }
        if *wpos > 0 {
            wbuf.drain(..*wpos);
            *wpos = 0;
        }
        r.queue_out(wbuf);
    }
    if wbuf.is_empty() && wbuf.capacity() > KEEP_WBUF {
        // What came back from the queue was a large response's buffer: not kept while idle.
        *wbuf = Vec::new();
    }
    crate::uring::queue(ring, r, reach.cid);
    // Output in the ring waits on the client, as output the socket did not take does on epoll: the send
    // timeout runs from the last completion that moved bytes (uring/serve.rs).
    let unsent = r.unsent();
    if unsent > 0 {
        if !*want_write || *progressed {
            *stalled_since = now;
        }
        *want_write = true;
    } else {
        *want_write = false;
    }
    // Queued output stands for the socket's buffer: past RING_CAP it is full; a closing connection
    // waits for its last bytes to leave.
    if blocked || unsent >= crate::uring::RING_CAP || (closing && unsent > 0) {
        return Wrote::Queued;
    }
    Wrote::Done
}

/// Windows only: a socket is registered readable-only (`poller::CONN_INTEREST`) and asks for writability while
/// output waits. mio emulates edge triggering there by re-arming a socket whenever one of its operations would
/// block, so a standing WRITABLE interest on a writable socket would complete at once after every read: a wasted
/// wakeup per read (Wine's user-space AFD driver saturates on them at a few hundred slow clients). Unix keeps both
/// interests from accept, which costs nothing with epoll/kqueue edges.
pub(crate) fn watch_writable(io: &mut Io, registry: &mio::Registry, cid: usize, on: bool) {
    #[cfg(windows)]
    if let Io::Tcp(sock) = io {
        let interest = if on {
            mio::Interest::READABLE | mio::Interest::WRITABLE
        } else {
            mio::Interest::READABLE
        };
        let _ = registry.reregister(sock, mio::Token(cid), interest);
    }
    #[cfg(not(windows))]
    let _ = (io, registry, cid, on);
}
