//! Per-connection state: the socket (or in-process pipe), unparsed input, corked output and the queue of
//! in-flight requests that keeps pipelined responses in order.

use std::collections::VecDeque;
use std::net::SocketAddr;

pub(crate) use crate::transport::Io;

/// What the connection is waiting for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Phase {
    /// The next request head (or nothing, when idle).
    Head,
    /// The body of this request record.
    Body(usize),
    /// No more requests are read: the last one said `Connection: close`, or input was bad.
    Done,
    /// Output is flushed and the write side shut down; input is read and dropped until EOF or timeout,
    /// so the client sees our last response instead of a reset.
    Lingering,
    /// A WebSocket upgrade request (this record) is with JS; nothing more is read until it accepts or
    /// answers, so frames that follow the handshake stay buffered.
    Upgrade(usize),
    /// The connection speaks WebSocket (`Conn::ws`).
    Ws,
    /// The connection speaks HTTP/2 (`Conn::h2`).
    H2,
    /// The connection carries one request whose stream a task owns (`Conn::pulled`, an HTTP/3 request): nothing is
    /// read from it.
    Pulled,
}

pub(crate) struct Conn {
    pub io: Io,
    pub peer: SocketAddr,
    /// Unparsed input (a pooled buffer while non-empty).
    pub rbuf: Vec<u8>,
    pub wbuf: Vec<u8>,
    pub wpos: usize,
    /// Request records in arrival order; the front one writes straight into `wbuf`.
    pub inflight: VecDeque<usize>,
    pub phase: Phase,
    /// When the current phase (or idle period) started, in server milliseconds.
    pub since: u64,
    /// A partial head is buffered (the headers timeout runs).
    pub partial: bool,
    /// Reading is paused: too many requests in flight or too much pending output.
    pub read_paused: bool,
    /// A write hit EAGAIN; the next writable event flushes.
    pub want_write: bool,
    /// Since when (server ms) the client has taken none of the pending output, while `want_write`.
    pub stalled_since: u64,
    /// Listed in the server's dirty list for the end-of-batch flush.
    pub dirty: bool,
    /// Close once all output is flushed.
    pub close_after_flush: bool,
    /// The peer sent EOF.
    pub eof: bool,
    /// Requests parsed on this connection, up to 255. From two on, its client reuses it (keep-alive), so it may be
    /// sending another when the server closes (`Server::close_with_grace` waits for that one).
    pub requests: u8,
    /// A PROXY protocol header must come first (the server's `proxy_protocol` option).
    pub proxy_pending: bool,
    /// WebSocket state once upgraded (boxed: most connections never upgrade).
    pub ws: Option<Box<crate::ws::WsConn>>,
    /// The TLS session of an HTTPS listener's connection: the engine's bytes are plaintext, rustls
    /// turns them into records (and the reverse).
    pub tls: Option<Box<rustls::ServerConnection>>,
    /// HTTP/2 state once the client's preface arrived (boxed: HTTP/1.1 connections never have it).
    pub h2: Option<Box<crate::h2::state::H2Conn>>,
    /// The request of an HTTP/3 stream and the task that pulls its response (pulled.rs).
    pub pulled: Option<Box<crate::pulled::state::Pulled>>,
}

impl Conn {
    pub fn new(io: Io, peer: SocketAddr, now: u64) -> Conn {
        Conn {
            io,
            peer,
            rbuf: Vec::new(),
            wbuf: Vec::new(),
            wpos: 0,
            inflight: VecDeque::new(),
            phase: Phase::Head,
            since: now,
            partial: false,
            read_paused: false,
            want_write: false,
            stalled_since: now,
            dirty: false,
            close_after_flush: false,
            eof: false,
            requests: 0,
            proxy_pending: false,
            ws: None,
            tls: None,
            h2: None,
            pulled: None,
        }
    }

    /// Its requests are streams of another protocol (HTTP/2, HTTP/3): a response head is kept as fields
    /// (`Reply::h2_head`), body bytes stay in the record, and a stream ends alone (a reset, not the connection).
    pub fn is_stream(&self) -> bool {
        self.h2.is_some() || self.pulled.is_some()
    }

    /// The transport and the output it writes, borrowed apart from the rest of the connection (transport/write.rs).
    pub fn out(&mut self) -> crate::transport::Out<'_> {
        crate::transport::Out {
            io: &mut self.io,
            tls: self.tls.as_deref_mut(),
            wbuf: &mut self.wbuf,
            wpos: &mut self.wpos,
            want_write: &mut self.want_write,
            stalled_since: &mut self.stalled_since,
            closing: self.close_after_flush,
        }
    }

    /// Output accepted but not yet written to the socket.
    pub fn pending(&self) -> usize {
        self.wbuf.len() - self.wpos + self.io.unsent()
    }

    /// Nothing in flight, nothing half-received: safe to close on shutdown or idle timeout.
    pub fn is_idle(&self) -> bool {
        self.inflight.is_empty() && self.rbuf.is_empty() && self.phase == Phase::Head
    }
}
