//! The request path inside the engine: readiness → accept/read → parse → route → body → dispatch.
//! `Inner` holds all state and never calls JS; `Server` methods borrow it in short sections and call
//! the `Handler` with no borrow held, so JS can call straight back into the engine.
//! Over 400 lines: `Inner`'s definition, each part documented, with a connection's life around it (accept, close, EOF,
//! the tick's timeouts), which reaches across all the parts.

use std::collections::VecDeque;
use std::io::ErrorKind;
use std::time::{Instant, SystemTime};

use gale_http::{DateCache, Error as HttpError};
use mio::net::TcpListener;
use mio::Token;
use slab::Slab;

use crate::conn::{Conn, Io, Phase};
use crate::request::ReqPool;
use crate::{Config, Event};

/// Splits `Inner` into the connection `$cid` (None when it is gone), a `Reach` over the parts a transport uses, and
/// the named fields the caller needs beside them (borrowed apart, so all can be used together).
macro_rules! reach {
    ($inner:expr, $cid:expr $(, $field:ident)*) => {{
        let crate::engine::Inner { conns, pipes, events, poll, #[cfg(target_os = "linux")] ring, $($field,)* .. } =
            &mut *$inner;
        let reach = crate::transport::Reach {
            pipes,
            events,
            #[cfg(target_os = "linux")]
            ring: ring.as_mut(),
            registry: poll.registry(),
            cid: $cid,
        };
        (conns.get_mut($cid), reach $(, $field)*)
    }};
}
pub(crate) use reach;

pub(crate) const LISTENER: Token = Token(usize::MAX);
/// Marks an optional route param that matched nothing.
pub(crate) const ABSENT_SPAN: gale_http::Span = gale_http::Span {
    start: u32::MAX,
    end: u32::MAX,
};
/// Connections accepted per loop turn. The rest wait in the kernel's backlog until the
/// connections already taken have been read: a connection flood then cannot pile thousands of
/// half-read requests (and their buffers) into the process faster than it serves them.
const ACCEPT_BATCH: usize = 128;
/// Streamed request body bytes held for JS before reading from the socket pauses.
pub(crate) const BODY_HIGH_WATER: usize = 256 * 1024;

pub(crate) struct Inner {
    pub cfg: Config,
    pub poll: crate::poller::Poller,
    pub listener: Option<TcpListener>,
    pub conns: Slab<Conn>,
    pub reqs: ReqPool,
    /// The router, fixed answers, static mounts and the fallback route (routes/).
    pub routes: crate::routes::Routes,
    pub date: DateCache,
    /// The `Date` value of `date`, for the heads of HTTP/2 and HTTP/3 responses (fields).
    pub date_field: http::HeaderValue,
    /// Reused buffers: header and param spans, discarded bodies, read buffers, compression (scratch.rs).
    pub scratch: crate::scratch::Scratch,
    /// High-water of open connections, to give a burst's memory back (trim.rs).
    pub(crate) trim: crate::trim::Trim,
    /// Connections with corked output, flushed at the end of the batch.
    pub dirty: Vec<usize>,
    /// Connections whose reading should resume (outside any JS call).
    pub deferred: Vec<usize>,
    pub events: VecDeque<Event>,
    pub in_batch: bool,
    /// Milliseconds since `started`, refreshed once per wakeup.
    pub now: u64,
    started: Instant,
    pub closing: bool,
    pub closed: bool,
    /// WebTransport sessions open (h3/wt.rs): a graceful close waits for them as for connections.
    pub wt_sessions: usize,
    /// While closing: when idle HTTP/1.1 connections are closed (`Server::close_with_grace`).
    pub idle_close_at: u64,
    /// WebSocket routes, pub/sub topics, closed sockets' heads and message scratch (ws/mod.rs).
    pub ws: crate::ws::WsState,
    /// Where accepting stands: paused for want of descriptors, more to take, adopting.
    pub accepting: Accepting,
    /// TLS for new connections (swapped by `reload_tls`; established ones keep their own).
    pub tls: Option<std::sync::Arc<rustls::ServerConfig>>,
    /// HTTP/2 settings when the server speaks it (`set_http2`).
    pub h2: Option<Box<crate::h2::state::Settings>>,
    /// HTTP/3 settings (`Server::set_http3`); the endpoint starts with `listen` (`Server::quic`).
    pub h3: Option<crate::H3Options>,
    /// `h3=":port"` while HTTP/3 is served: HTTP/2 responses carry it as Alt-Svc (HTTP/1.1 ones with `date`).
    pub alt_svc: Option<http::HeaderValue>,
    /// The JS ends of in-process connections (`app.request`), by key; each lives until JS closes it.
    pub pipes: Slab<crate::transport::MemPipe>,
    /// The io_uring backend's ring, when this server listens through it (uring/).
    #[cfg(target_os = "linux")]
    pub ring: Option<crate::uring::Ring>,
}

/// Where accepting stands (`Inner::accepting`).
#[derive(Default)]
pub(crate) struct Accepting {
    /// accept() failed for want of descriptors (EMFILE/ENFILE/…): retried on the tick and after a
    /// connection closes, never in a loop.
    pub paused: bool,
    /// A connection closed while accepting was paused: retry at the end of the batch.
    pub retry: bool,
    /// accept() stopped at ACCEPT_BATCH with the backlog maybe not empty: go on at the next loop
    /// turn (the kick), after the ready connections were read.
    pub more: bool,
    /// Serving connections accepted elsewhere (adopt.rs) instead of, or besides, a listener of its own.
    #[cfg_attr(not(unix), allow(dead_code))]
    pub adopting: bool,
}

/// What the parse loop wants next.
pub(crate) enum Step {
    /// Call JS for this request id and route.
    Dispatch(u32, u32),
    /// Hand a WebSocket message to JS, then give its buffer back (`Inner::ws_restore`).
    WsMessage {
        cid: usize,
        sid: u32,
        binary: bool,
        payload: Vec<u8>,
    },
    Continue,
    Stop,
}

impl Inner {
    pub fn new(cfg: Config) -> std::io::Result<Inner> {
        let error_format = cfg.error_format;
        let mut date = DateCache::new(SystemTime::now());
        date.set_keep_alive(
            cfg.keep_alive_header
                .then_some(cfg.keep_alive_timeout_ms / 1000),
        );
        Ok(Inner {
            routes: crate::routes::Routes::new(cfg.router),
            cfg,
            poll: crate::poller::Poller::new()?,
            listener: None,
            conns: Slab::new(),
            reqs: ReqPool::with_error_format(error_format),
            date_field: date_field(&date),
            date,
            scratch: Default::default(),
            trim: Default::default(),
            dirty: Vec::new(),
            deferred: Vec::new(),
            events: VecDeque::new(),
            in_batch: false,
            now: 0,
            started: Instant::now(),
            closing: false,
            closed: false,
            wt_sessions: 0,
            idle_close_at: 0,
            ws: crate::ws::WsState::default(),
            accepting: Accepting::default(),
            tls: None,
            h2: None,
            h3: None,
            alt_svc: None,
            pipes: Slab::new(),
            #[cfg(target_os = "linux")]
            ring: None,
        })
    }

    pub fn refresh_clock(&mut self) {
        self.now = self.started.elapsed().as_millis() as u64;
    }

    pub fn refresh_date(&mut self) {
        if self.date.update(SystemTime::now()) {
            self.date_field = date_field(&self.date);
        }
    }

    pub fn accept(&mut self) {
        self.accepting.paused = false;
        self.accepting.retry = false;
        self.accepting.more = false;
        #[cfg(target_os = "linux")]
        if self.ring.is_some() {
            return self.ring_accept();
        }
        for _ in 0..ACCEPT_BATCH {
            let Some(listener) = self.listener.as_ref() else {
                return;
            };
            match listener.accept() {
                Ok((mut sock, peer)) => {
                    if self.conns.len() >= self.cfg.max_connections {
                        self.refuse(sock);
                        continue;
                    }
                    let _ = sock.set_nodelay(true);
                    let Ok(tls) = self.tls_session() else {
                        continue;
                    };
                    let entry = self.conns.vacant_entry();
                    let key = entry.key();
                    if self
                        .poll
                        .registry()
                        .register(&mut sock, Token(key), crate::poller::CONN_INTEREST)
                        .is_ok()
                    {
                        let conn = entry.insert(Conn::new(Io::Tcp(sock), peer, self.now));
                        conn.proxy_pending = self.cfg.proxy_protocol;
                        conn.tls = tls;
                        self.trim.opened(self.conns.len());
                    }
                }
                Err(e) if e.kind() == ErrorKind::Interrupted => continue,
                Err(e) if e.kind() == ErrorKind::WouldBlock => return,
                // EMFILE, ENFILE, ENOBUFS, ENOMEM: out of descriptors or memory. The listener is
                // edge-triggered, so the backlog would otherwise wait for the next connection
                // attempt; retry from the tick and whenever a connection closes instead.
                Err(_) => {
                    self.accepting.paused = true;
                    return;
                }
            }
        }
        // The listener is edge-triggered: what is left in the backlog raises no new event.
        self.accepting.more = true;
    }

    /// A new connection's TLS session on an HTTPS listener (None on plain HTTP); Err when rustls cannot make one.
    pub(crate) fn tls_session(&self) -> Result<Option<Box<rustls::ServerConnection>>, ()> {
        match &self.tls {
            Some(cfg) => crate::tls::connection(cfg).map(Some).ok_or(()),
            None => Ok(None),
        }
    }

    /// Over `max_connections`: a short 503 (the socket's buffer is empty, so it fits), then close.
    /// Answering keeps clients from retrying blindly; it costs the descriptor for one write.
    pub(crate) fn refuse(&mut self, sock: mio::net::TcpStream) {
        use std::io::Write;
        let mut head = Vec::with_capacity(256);
        write_busy(&mut head, &self.date);
        let mut sock = sock;
        let _ = sock.write(&head);
        let _ = sock.shutdown(std::net::Shutdown::Write);
        // Read what the client already sent, so closing does not reset the connection (a reset can
        // make the client drop our answer unread).
        let mut sink = [0u8; 4096];
        for _ in 0..16 {
            match std::io::Read::read(&mut sock, &mut sink) {
                Ok(n) if n > 0 => {}
                _ => break,
            }
        }
    }

    /// Parses and routes one request from `data[*pos..]`, or feeds the body being received.
    /// Removes a connection; requests JS still holds are detached and reported aborted.
    pub fn close_conn(&mut self, cid: usize) {
        if !self.conns.contains(cid) {
            return;
        }
        let mut conn = self.conns.remove(cid);
        {
            let (_, mut reach) = crate::engine::reach!(self, cid);
            conn.io.release(&mut reach);
        }
        let inflight = std::mem::take(&mut conn.inflight);
        self.release_requests(inflight, conn.phase);
        let rbuf = std::mem::take(&mut conn.rbuf);
        self.scratch.give_buf(rbuf);
        if let Some(mut ws) = conn.ws.take() {
            // A socket JS never heard of (accepted by the engine) matters to JS at its close only through the route's
            // close handler: without one, its head goes now and JS hears nothing of it.
            let route = &self.ws.routes[ws.route as usize];
            let unadopted = ws.unadopted.then_some(route.js);
            let told = !ws.unadopted || route.js_close;
            if let Some(head) = ws.kept.take().filter(|_| told) {
                let secure = conn.tls.is_some();
                let closed = crate::ws::ClosedHead {
                    head,
                    peer: conn.peer,
                    secure,
                    unadopted,
                };
                self.ws.heads.insert(ws.sid, closed);
            }
            self.ws_closed(*ws, told);
        }
        if let Some(p) = conn.pulled.take() {
            self.pulled_release(*p);
        }
        if let Some(mut h2) = conn.h2.take() {
            h2.release_all(&mut self.reqs, &mut self.events);
            let keys = h2.take_tunnels();
            self.h2_tunnels_close(keys);
        }
        // Requests answered in this turn may still be read by JS until it ends, but no longer through this
        // connection: its slot can be reused by the next accept.
        self.reqs.detach_retired(cid);
        if self.accepting.paused {
            self.accepting.retry = true;
        }
        self.maybe_finished();
    }

    /// Lets go of a closing connection's requests: unanswered ones JS holds are detached and
    /// reported aborted; the rest, and a streamed body's record already answered, are freed.
    fn release_requests(&mut self, inflight: std::collections::VecDeque<usize>, phase: Phase) {
        if let Phase::Body(idx) = phase {
            if !inflight.contains(&idx) {
                self.reqs.let_go(idx, &mut self.events);
            }
        }
        for idx in inflight {
            self.reqs.let_go(idx, &mut self.events);
        }
    }

    pub fn maybe_finished(&mut self) {
        if self.closing && !self.closed && self.conns.is_empty() && self.wt_sessions == 0 {
            self.closed = true;
            self.events.push_back(Event::Closed);
        }
    }

    /// Peer sent EOF: like Node, requests still in flight are aborted and the socket closes once
    /// what was already answered is flushed.
    pub fn on_eof(&mut self, cid: usize) {
        let Some(conn) = self.conns.get_mut(cid) else {
            return;
        };
        conn.eof = true;
        if conn.phase == Phase::Lingering
            || conn.h2.is_some()
            || (conn.inflight.is_empty() && conn.pending() == 0)
        {
            self.close_conn(cid);
            return;
        }
        let phase = std::mem::replace(&mut conn.phase, Phase::Done);
        conn.close_after_flush = true;
        let inflight = std::mem::take(&mut conn.inflight);
        self.release_requests(inflight, phase);
        self.flush(cid);
    }

    /// One second (or less) passed: refresh the Date header and enforce the timeouts.
    pub fn on_tick(&mut self) {
        self.refresh_clock();
        self.refresh_date();
        #[cfg(target_os = "linux")]
        if let Some(ring) = self.ring.as_mut() {
            ring.follow_nofile();
        }
        if self.trim.burst_over(self.conns.len()) {
            crate::trim::release_free_memory();
        }
        let now = self.now;
        let cfg = &self.cfg;
        let mut expired: Vec<(usize, Option<usize>, bool)> = Vec::new();
        let mut h2_conns: Vec<usize> = Vec::new();
        let mut pulled: Vec<usize> = Vec::new();
        for (cid, c) in self.conns.iter() {
            let age = now.saturating_sub(c.since);
            if c.want_write
                && cfg.send_timeout_ms > 0
                && now.saturating_sub(c.stalled_since) > cfg.send_timeout_ms
            {
                // The client took none of our output for sendTimeout: it stopped reading.
                expired.push((cid, None, false));
                continue;
            }
            match c.phase {
                Phase::Lingering if age > 2_000 => expired.push((cid, None, false)),
                // Closing, and idle past close's grace: no request came.
                Phase::Head if self.closing && c.is_idle() && now >= self.idle_close_at => {
                    expired.push((cid, None, false))
                }
                // A TLS handshake that never finishes: closed like a head that never ends.
                Phase::Head
                    if age > cfg.headers_timeout_ms
                        && c.tls.as_ref().is_some_and(|t| t.is_handshaking()) =>
                {
                    expired.push((cid, None, false))
                }
                Phase::Head if c.partial && age > cfg.headers_timeout_ms => {
                    expired.push((cid, None, true))
                }
                Phase::Head if c.is_idle() && age > cfg.keep_alive_timeout_ms => {
                    expired.push((cid, None, false))
                }
                Phase::Body(idx) if age > cfg.request_timeout_ms => {
                    expired.push((cid, Some(idx), true))
                }
                Phase::H2 => h2_conns.push(cid),
                Phase::Pulled => pulled.push(cid),
                _ => {}
            }
        }
        self.ws_tick();
        for cid in h2_conns {
            self.h2_tick(cid);
        }
        for cid in pulled {
            self.pulled_tick(cid);
        }
        for (cid, idx, answer) in expired {
            match (idx, answer) {
                (Some(idx), _) => self.fail(idx, &HttpError::request_timeout()),
                (None, true) => {
                    if let Some(c) = self.conns.get_mut(cid) {
                        c.partial = false;
                        let rbuf = std::mem::take(&mut c.rbuf);
                        self.scratch.give_buf(rbuf);
                    }
                    self.fail_new(cid, &HttpError::request_timeout());
                }
                (None, false) => self.close_conn(cid),
            }
            self.flush(cid);
        }
        if self.accepting.paused {
            self.accept();
        }
    }
}

/// `date`'s value as a field value (shared bytes: each response's copy is a reference count).
fn date_field(date: &DateCache) -> http::HeaderValue {
    http::HeaderValue::from_maybe_shared(bytes::Bytes::copy_from_slice(date.value()))
        .expect("an IMF-fixdate is a valid field value")
}

/// The body of the answer over `max_connections` (HTTP/3's too: pulled/mod.rs `busy_head`, h3/bridge.rs).
pub(crate) const BUSY_BODY: &[u8] =
    b"Too many connections: this server is at its maxConnections limit. Try again shortly.\n";
/// Its content type and the field it adds, shared by the socket's bytes and HTTP/3's fields.
pub(crate) const BUSY_TYPE: &[u8] = b"text/plain; charset=utf-8";
pub(crate) const BUSY_FIELDS: &[u8] = b"Retry-After: 1\r\n";

/// The answer over `max_connections` (a socket refused at accept, an in-process request at open): 503, Retry-After,
/// then close.
pub(crate) fn write_busy(out: &mut Vec<u8>, date: &DateCache) {
    let body = BUSY_BODY;
    gale_http::write_simple_response(out, 503, date, BUSY_TYPE, BUSY_FIELDS, body, true, false);
}
