//! A connection's transport — a TCP socket, an in-process pipe (mem.rs) or a socket served through io_uring
//! (uring/), with TLS (tls.rs) over any of them — and what the engine does through one: read, receive a body,
//! write its output, send a file, shut down, release. No other file matches on the kind of transport.

use std::collections::VecDeque;
use std::net::{Shutdown, SocketAddr};

use mio::net::TcpStream;
use rustls::ServerConnection;
use slab::Slab;

use crate::reply::FileBody;
use crate::request::Req;
use crate::Event;

mod pipe;
mod read;
mod write;

pub(crate) use pipe::{MemPipe, MEM_ADDR};

use read::{read_into, recv_body, tls_read};
pub(crate) use write::{watch_writable, write_out, Out};

/// What a connection reads from and writes to.
pub(crate) enum Io {
    /// A TCP socket the listener accepted.
    Tcp(TcpStream),
    /// An in-process connection (`app.request`, mem.rs): the key of its pipe in `Inner::pipes`.
    Mem(usize),
    /// A TCP socket served through io_uring (uring/).
    #[cfg(target_os = "linux")]
    Ring(Box<crate::uring::RingSock>),
}

/// The engine's parts a transport reaches besides its own socket: an in-process pipe hands bytes over in `pipes`
/// and wakes JS through `events`; a ring socket queues its sends on the ring; Windows asks the poller for the
/// writable edge.
pub(crate) struct Reach<'a> {
    pub pipes: &'a mut Slab<MemPipe>,
    pub events: &'a mut VecDeque<Event>,
    #[cfg(target_os = "linux")]
    pub ring: Option<&'a mut crate::uring::Ring>,
    pub registry: &'a mio::Registry,
    pub cid: usize,
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

/// What writing a connection's output did.
pub(crate) enum Wrote {
    /// All of it left (or, on the ring, is queued behind the send in flight with room for more).
    Done,
    /// The socket is full: wait for the writable edge (and time the client out if it takes nothing).
    Full,
    /// The ring holds as much as a socket's buffer would: its send completion flushes again.
    #[cfg_attr(not(target_os = "linux"), allow(dead_code))]
    Queued,
    /// The peer is gone or TLS failed: close.
    Failed,
}

impl Io {
    /// One read into the spare capacity of `buf` (plaintext, through rustls under TLS). True beside it when rustls
    /// has handshake messages or an alert to send: the caller flushes the connection.
    pub fn read(
        &mut self,
        tls: Option<&mut ServerConnection>,
        buf: &mut Vec<u8>,
        reach: &mut Reach,
    ) -> (ReadResult, bool) {
        match (self, tls) {
            (Io::Tcp(sock), None) => (read_into(sock, buf), false),
            (Io::Mem(p), _) => (reach.pipes[*p].read_into(*p, buf, reach.events), false),
            #[cfg(target_os = "linux")]
            (Io::Ring(r), None) => (read_into(&mut crate::uring::RingRx(r), buf), false),
            #[cfg(target_os = "linux")]
            (Io::Ring(r), Some(tls)) => {
                let res = tls_read(crate::tls::read(&mut crate::uring::RingRx(r), tls, buf));
                if matches!(res, ReadResult::Error) {
                    // Send the alert rustls queued, then close.
                    crate::tls::push_out(&mut crate::uring::RingTx(r), tls);
                    if let Some(ring) = reach.ring.as_deref_mut() {
                        crate::uring::queue(ring, r, reach.cid);
                    }
                    return (res, false);
                }
                (res, tls.wants_write())
            }
            (Io::Tcp(sock), Some(tls)) => {
                let res = tls_read(crate::tls::read(sock, tls, buf));
                if matches!(res, ReadResult::Error) {
                    crate::tls::push_out(sock, tls);
                    return (res, false);
                }
                // Handshake messages (and alerts) wait in rustls for the flush.
                (res, tls.wants_write())
            }
        }
    }

    /// Receives streamed body bytes straight into `req.body` (`Inner::direct_body`): (received, asked). None for a
    /// transport that does not (an in-process pipe: its bytes are in memory already).
    pub fn recv_body(&mut self, req: &mut Req) -> Option<std::io::Result<(usize, usize)>> {
        match self {
            Io::Tcp(sock) => Some(recv_body(sock, req)),
            #[cfg(target_os = "linux")]
            Io::Ring(r) => Some(recv_body(&mut crate::uring::RingRx(r), req)),
            Io::Mem(_) => None,
        }
    }

    /// Sends what is left of a file or cached body. Ok(true) when all of it went; Ok(false) when the socket (pipe,
    /// ring queue) is full.
    pub fn send_file(
        &mut self,
        tls: Option<&mut ServerConnection>,
        body: &mut FileBody,
        progressed: &mut bool,
        reach: &mut Reach,
    ) -> std::io::Result<bool> {
        match (self, tls) {
            (Io::Tcp(sock), None) => crate::wire::send_file(sock, body),
            // No sendfile under TLS: the file is read in pieces and encrypted in user space.
            (Io::Tcp(sock), Some(tls)) => crate::tls::send_body(sock, tls, body, progressed),
            (Io::Mem(p), _) => reach.pipes[*p].send_file(*p, body, reach.events),
            // The ring: pieces are queued behind the send in flight (no sendfile on its blocking sockets).
            #[cfg(target_os = "linux")]
            (Io::Ring(r), tls) => {
                let res = match tls {
                    None => crate::uring::send_body(r, body),
                    Some(tls) => {
                        crate::tls::send_body(&mut crate::uring::RingTx(r), tls, body, progressed)
                    }
                };
                if let Some(ring) = reach.ring.as_deref_mut() {
                    crate::uring::queue(ring, r, reach.cid);
                }
                res
            }
        }
    }

    /// Everything is written and the connection closes: TLS's close_notify, then the write side shuts (on the
    /// ring once its last bytes left; a pipe's reader sees the end).
    pub fn shut_write(&mut self, tls: Option<&mut ServerConnection>, reach: &mut Reach) {
        match (self, tls) {
            (Io::Tcp(sock), tls) => {
                if let Some(tls) = tls {
                    tls.send_close_notify();
                    crate::tls::push_out(sock, tls);
                }
                let _ = sock.shutdown(Shutdown::Write);
            }
            (Io::Mem(p), _) => reach.pipes[*p].shut(*p, reach.events),
            #[cfg(target_os = "linux")]
            (Io::Ring(r), tls) => {
                if let Some(tls) = tls {
                    tls.send_close_notify();
                    crate::tls::push_out(&mut crate::uring::RingTx(r), tls);
                }
                if let Some(ring) = reach.ring.as_deref_mut() {
                    crate::uring::queue(ring, r, reach.cid);
                }
                // The write side shuts once the last bytes left (uring/serve.rs, `ring_sent`).
                if r.unsent() == 0 {
                    let _ = r.sock.shutdown(Shutdown::Write);
                } else {
                    r.shut_pending = true;
                }
            }
        }
    }

    /// The connection is removed: the poller forgets the socket (which closes when dropped), the ring cancels
    /// what the kernel holds, a pipe's JS side reads what is left, then the end.
    pub fn release(&mut self, reach: &mut Reach) {
        match self {
            Io::Tcp(sock) => {
                let _ = reach.registry.deregister(sock);
            }
            #[cfg(target_os = "linux")]
            Io::Ring(r) => {
                if let Some(ring) = reach.ring.as_deref_mut() {
                    r.release(ring, reach.cid);
                }
            }
            Io::Mem(p) => {
                if let Some(pipe) = reach.pipes.get_mut(*p) {
                    pipe.server_closed(*p, reach.events);
                }
            }
        }
    }

    /// Output the transport holds beyond the connection's buffer (the ring's queue).
    #[inline]
    pub fn unsent(&self) -> usize {
        match self {
            #[cfg(target_os = "linux")]
            Io::Ring(r) => r.unsent(),
            _ => 0,
        }
    }

    /// The in-process pipe's key, for an in-process connection.
    #[inline]
    pub fn pipe(&self) -> Option<usize> {
        match self {
            Io::Mem(p) => Some(*p),
            _ => None,
        }
    }

    /// Whether a body can leave by sendfile: a plain TCP socket (not the ring's, not a pipe).
    pub fn has_sendfile(&self) -> bool {
        matches!(self, Io::Tcp(_))
    }

    /// The io_uring socket of generation `gen` (None: another transport, or a closed socket's key reused).
    #[cfg(target_os = "linux")]
    #[inline]
    pub fn ring(&mut self, gen: u32) -> Option<&mut crate::uring::RingSock> {
        match self {
            Io::Ring(r) if r.gen == gen => Some(r),
            _ => None,
        }
    }

    /// The io_uring socket, whatever its generation.
    #[cfg(target_os = "linux")]
    #[inline]
    pub fn any_ring(&mut self) -> Option<&mut crate::uring::RingSock> {
        match self {
            Io::Ring(r) => Some(r),
            _ => None,
        }
    }

    /// Whether the connection is secure: TLS, or an in-process request for an https: URL (mem.rs).
    pub fn secure(&self, tls: bool, pipes: &Slab<MemPipe>) -> bool {
        match self {
            Io::Mem(p) => pipes[*p].secure,
            _ => tls,
        }
    }

    /// The local address the connection arrived on: a system call for a socket; an in-process connection reads as
    /// the HTTP/3 listener's (a request it carries) or the in-process address.
    pub fn local_addr(&self, pipes: &Slab<MemPipe>) -> Option<SocketAddr> {
        match self {
            Io::Tcp(sock) => sock.local_addr().ok(),
            #[cfg(target_os = "linux")]
            Io::Ring(r) => r.sock.local_addr().ok(),
            Io::Mem(p) => Some(pipes[*p].local.unwrap_or(MEM_ADDR)),
        }
    }
}
