//! Server lifecycle: creation, route registration, the timers and close callbacks, graceful and forced shutdown,
//! and teardown of the uv handles; listening is `listen.rs`, batch scopes and the kick `batch.rs`.
//! Over 400 lines: 20 `Server` methods, one per thing JS asks before listening or at shutdown, most under 20 lines,
//! beside the uv callbacks they arm.

use std::cell::{Cell, RefCell};
use std::io;
use std::rc::Rc;

use gale_router::MethodSel;

use crate::engine::Inner;
use crate::uv::{self, UvHandle, UvLoop};
use crate::wire::Fixed;
use crate::{Config, Handler, Handles, Server};

unsafe extern "C" fn on_tick(h: UvHandle) {
    // SAFETY: the handle's data is a strong Rc<Server> pointer, released only in its close callback.
    let server = unsafe { &*(uv::handle_data(h) as *const Server) };
    server.begin_batch();
    server.inner.borrow_mut().on_tick();
    server.end_batch();
}

unsafe extern "C" fn on_closed_watch(h: UvHandle) {
    // SAFETY: libuv is done with h; its data is the Rc pointer created in `listen`.
    unsafe {
        let data = uv::handle_data(h) as *const Server;
        uv::free_handle(h, crate::poller::WATCH_KIND);
        drop(Rc::from_raw(data));
    }
}

unsafe extern "C" fn on_closed_timer(h: UvHandle) {
    // SAFETY: as in on_closed_watch.
    unsafe {
        let data = uv::handle_data(h) as *const Server;
        uv::free_handle(h, uv::Kind::Timer);
        drop(Rc::from_raw(data));
    }
}

pub(crate) fn to_io(e: String) -> io::Error {
    io::Error::other(e)
}

impl Server {
    /// Creates a server bound to Node's loop `uv_loop`; nothing listens until `listen`.
    pub fn new(cfg: Config, handler: Box<dyn Handler>, uv_loop: UvLoop) -> io::Result<Rc<Server>> {
        Ok(Rc::new(Server {
            inner: RefCell::new(Inner::new(cfg)?),
            events_buf: RefCell::new(crate::poller::events()),
            handler,
            uv_loop,
            kick_pending: Cell::new(false),
            handles: Cell::new(None),
            js_calls: Cell::new(0),
            #[cfg(unix)]
            quic: RefCell::new(None),
        }))
    }

    /// Registers a JS route; returns its param names in capture order.
    pub fn add_route(
        &self,
        method: MethodSel,
        pattern: &str,
        route: u32,
    ) -> Result<Vec<String>, String> {
        let mut inner = self.inner.borrow_mut();
        let inner = &mut *inner;
        inner
            .routes
            .add_js(method, pattern, route, &mut inner.ws.routes)
    }

    /// Sends requests that match no route to JS route `route` (None: the engine answers 404).
    pub fn set_fallback(&self, route: Option<u32>) {
        self.inner.borrow_mut().routes.fallback = route;
    }

    /// Registers a response answered entirely in the engine.
    pub fn add_fixed(
        &self,
        method: MethodSel,
        pattern: &str,
        status: u16,
        headers: &[(String, String)],
        body: Vec<u8>,
    ) -> Result<(), String> {
        if !(100..=999).contains(&status) {
            return Err(format!("invalid status code {status}: use 100-999"));
        }
        let mut lines = Vec::new();
        for (name, value) in headers {
            if !gale_http::is_token(name.as_bytes()) {
                return Err(format!("invalid header name {name:?}"));
            }
            if !gale_http::is_header_value(value.as_bytes()) {
                return Err(format!("invalid value for header {name:?}"));
            }
            let lower = name.to_ascii_lowercase();
            if lower == "content-length" || lower == "transfer-encoding" || lower == "connection" {
                return Err(format!("header {name:?} is set by the engine"));
            }
            lines.extend_from_slice(name.as_bytes());
            lines.extend_from_slice(b": ");
            lines.extend_from_slice(value.as_bytes());
            lines.extend_from_slice(b"\r\n");
        }
        let fixed = Fixed {
            status,
            content_type: Vec::new(),
            headers: lines,
            body,
        };
        self.inner
            .borrow_mut()
            .routes
            .add_fixed(method, pattern, fixed)
    }

    /// Gives the JS route registered for all methods at `pattern` a native answer: what its JS answered (`reply` and
    /// `body`, as a JS reply passed them) is sent by the engine to every later HTTP/1.1 GET or HEAD request of that
    /// route without a body and without If-None-Match or If-Modified-Since; other requests still run the JS route.
    /// The caller vouches that its JS would answer those requests alike (@gale-http/express: a handler of constants).
    /// `None` takes the answer back. Refused when compression is on (a JS reply may be compressed) or when the reply
    /// names a reason phrase, `Connection: close` or a length other than the body's.
    pub fn set_route_answer(
        &self,
        pattern: &str,
        answer: Option<(&crate::Reply, Vec<u8>)>,
    ) -> Result<(), String> {
        let mut inner = self.inner.borrow_mut();
        let inner = &mut *inner;
        if answer.is_some() && inner.cfg.compression.is_some() {
            return Err("compression is on: a route's answer is compressed by request".into());
        }
        let fixed = match answer {
            Some((reply, body)) => {
                if !reply.reason.is_empty()
                    || reply.close
                    || reply.length.is_some_and(|n| n != body.len() as u64)
                {
                    return Err("a route's answer takes a plain reply (no reason phrase, close or other length)".into());
                }
                Some(Fixed {
                    status: reply.status,
                    content_type: reply.content_type.to_vec(),
                    headers: reply.headers.to_vec(),
                    body,
                })
            }
            None => None,
        };
        inner.routes.set_answer(pattern, fixed)
    }

    /// Mounts directory `dir` at URL `prefix`; files are answered by the engine for GET and HEAD.
    pub fn add_static(
        &self,
        prefix: &str,
        dir: &std::path::Path,
        opts: crate::StaticOptions,
    ) -> Result<(), String> {
        let prefix = prefix.trim_end_matches('/');
        if !prefix.is_empty() && !prefix.starts_with('/') {
            return Err(format!("static prefix {prefix:?} must start with '/'"));
        }
        let mount = crate::statics::Mount::new(prefix.to_string(), dir, opts)?;
        self.inner.borrow_mut().routes.add_mount(prefix, mount)
    }

    /// Creates the tick and kick timers if they do not exist: for listening, and for in-process connections on a
    /// server that does not listen (which has no poll handle; the timers go again once its last pipe closes).
    pub(crate) fn ensure_timers(self: &Rc<Self>) -> io::Result<()> {
        if self.handles.get().is_some() {
            return Ok(());
        }
        let data = || Rc::into_raw(self.clone()) as *const std::ffi::c_void;
        let tick = uv::timer_new(self.uv_loop, data(), false).map_err(to_io)?;
        // The kick keeps the loop alive while it is due: in-process requests have no socket that would, and the
        // work it runs (a reply on its way, an event for JS) must not be lost to the process exiting.
        let kick = uv::timer_new(self.uv_loop, data(), true).map_err(to_io)?;
        self.start_tick(tick);
        {
            let mut inner = self.inner.borrow_mut();
            inner.refresh_clock();
            inner.refresh_date();
        }
        self.handles.set(Some(Handles {
            poll: None,
            tick,
            kick,
        }));
        Ok(())
    }

    /// (Re)starts the tick with a period fine enough for the shortest timeout.
    pub(crate) fn start_tick(&self, tick: UvHandle) {
        let inner = self.inner.borrow();
        let cfg = &inner.cfg;
        // WebSocket idle timeouts need ticks fine enough to ping at half the timeout.
        let ws_idle = inner
            .ws
            .routes
            .iter()
            .map(|r| r.opts.idle_timeout_ms)
            .filter(|&t| t > 0)
            .min()
            .unwrap_or(u64::MAX);
        let shortest = cfg
            .headers_timeout_ms
            .min(cfg.keep_alive_timeout_ms)
            .min(cfg.request_timeout_ms)
            .min(ws_idle);
        let mut every = (shortest / 4).clamp(10, 1000);
        if inner.closing {
            // Idle connections wait out close's grace (a fraction of a second): count it finely.
            every = 10;
        }
        // SAFETY: tick is a live timer (created by ensure_timers, closed only by teardown).
        unsafe { uv::timer_start(tick, on_tick, every, every) };
    }

    /// Serves TLS on this server's listener: new connections handshake with `opts`. Called before
    /// `listen`, and again to reload certificates: established connections keep the config they
    /// started with. A bad config is an Err that says what is wrong, and the old one stays.
    pub fn set_tls(&self, opts: &crate::tls::TlsOptions) -> Result<(), String> {
        let cfg = crate::tls::server_config(opts)?;
        let mut inner = self.inner.borrow_mut();
        if inner.cfg.proxy_protocol {
            return Err(
                "tls with proxyProtocol is not supported: terminate TLS at the balancer, or let it pass \
                 TLS through without a PROXY header"
                    .into(),
            );
        }
        inner.tls = Some(cfg.clone());
        drop(inner);
        #[cfg(unix)]
        if let Some(q) = self.quic.borrow().clone() {
            q.reload(&cfg)?;
        }
        Ok(())
    }

    /// Serves HTTP/3 (None: off) on a UDP socket at the TLS listener's address and port, from `listen` on.
    /// Called before `listen`; `listen` fails without TLS. Err says which option is out of range, or that this
    /// platform has no HTTP/3 yet.
    pub fn set_http3(&self, opts: Option<crate::H3Options>) -> Result<(), String> {
        #[cfg(not(unix))]
        if opts.is_some() {
            return Err(
                "http3 is not available on this platform yet (Linux and macOS have it)".into(),
            );
        }
        if let Some(o) = &opts {
            o.check()?;
        }
        self.inner.borrow_mut().h3 = opts;
        Ok(())
    }

    /// Serves HTTP/2 (None: HTTP/1.1 only): over TLS to clients that negotiate `h2` with ALPN (the TLS
    /// options must offer it), and in cleartext to clients that start with the HTTP/2 preface when
    /// `opts.cleartext`. Called before `listen`. Err says which option is out of range.
    pub fn set_http2(&self, opts: Option<crate::H2Options>) -> Result<(), String> {
        let mut inner = self.inner.borrow_mut();
        inner.h2 = match opts {
            Some(o) => Some(Box::new(crate::h2::state::Settings::new(
                o,
                inner.cfg.limits.max_head_bytes,
            )?)),
            None => None,
        };
        Ok(())
    }

    /// Sets how long an idle keep-alive connection stays open (and what responses' `Keep-Alive` line says), for the
    /// connections from now on and the idle ones already open (node:http's `server.keepAliveTimeout =`).
    pub fn set_keep_alive_timeout(&self, ms: u64) {
        let mut inner = self.inner.borrow_mut();
        inner.cfg.keep_alive_timeout_ms = ms;
        let header = inner.cfg.keep_alive_header.then_some(ms / 1000);
        inner.date.set_keep_alive(header);
        drop(inner);
        if let Some(h) = self.handles.get() {
            self.start_tick(h.tick);
        }
    }

    /// Graceful shutdown with idle connections closed at once: see [`Server::close_with_grace`].
    pub fn close(&self) {
        self.close_with_grace(0);
    }

    /// Graceful shutdown: stop accepting, answer in-flight requests with `Connection: close`, send WebSockets a
    /// 1001 close and HTTP/2 connections a GOAWAY. An idle HTTP/1.1 connection whose client has been reusing it
    /// (two requests or more) stays open for `idle_grace_ms`: the client may be sending the next request right now
    /// (a keep-alive client sends it the moment it has an answer), and closing under it would lose that request;
    /// one that comes is answered with `Connection: close`, and those still idle after the grace are closed. Other
    /// idle connections, and all of them with a grace of 0, close at once. `Event::Closed` follows once every
    /// connection is gone.
    pub fn close_with_grace(&self, idle_grace_ms: u64) {
        // (The endpoint is taken out of its cell before its tasks run: they may call back into the server.)
        #[cfg(unix)]
        if let Some(q) = self.quic.borrow().clone() {
            q.shutdown();
            self.stop_advertising_http3();
        }
        {
            let mut inner = self.inner.borrow_mut();
            inner.closing = true;
            inner.stop_listening();
            inner.idle_close_at = inner.now.saturating_add(idle_grace_ms);
            let idle: Vec<usize> = inner
                .conns
                .iter()
                .filter(|(_, c)| c.is_idle() && (idle_grace_ms == 0 || c.requests < 2))
                .map(|(k, _)| k)
                .collect();
            for cid in idle {
                inner.close_conn(cid);
            }
            let busy: Vec<usize> = inner.conns.iter().map(|(k, _)| k).collect();
            for cid in busy {
                if inner.conns[cid].phase == crate::conn::Phase::Ws {
                    inner.ws_send_close(cid, Some(1001), b"Server is shutting down");
                } else {
                    inner.close_after_inflight(cid);
                }
            }
            inner.maybe_finished();
        }
        if idle_grace_ms > 0 {
            // The grace is counted by the tick: now fine enough for it.
            if let Some(h) = self.handles.get() {
                self.start_tick(h.tick);
            }
        }
        self.after_call();
    }

    /// Closes every connection now; JS hears `Abort` for each unanswered request, then `Closed`.
    pub fn force_close(&self) {
        self.stop_http3();
        {
            let mut inner = self.inner.borrow_mut();
            inner.closing = true;
            inner.stop_listening();
            let all: Vec<usize> = inner.conns.iter().map(|(k, _)| k).collect();
            for cid in all {
                inner.close_conn(cid);
            }
            inner.maybe_finished();
        }
        self.after_call();
    }

    /// Number of open connections (for tests and stats).
    pub fn connection_count(&self) -> usize {
        self.inner.borrow().conns.len()
    }

    /// What the engine holds now: connections, requests in flight, pending output (walks the
    /// connections once, so call it for monitoring, not per request).
    pub fn stats(&self) -> crate::Stats {
        let inner = self.inner.borrow();
        let mut s = crate::Stats {
            connections: inner.conns.len(),
            requests_in_flight: inner.reqs.live(),
            request_records: inner.reqs.capacity(),
            requests_total: inner.reqs.total,
            accept_paused: inner.accepting.paused,
            ..crate::Stats::default()
        };
        for (_, c) in inner.conns.iter() {
            s.pending_output += c.pending();
            s.websockets += usize::from(c.ws.is_some());
        }
        s
    }

    /// Closes the uv handles; each close callback drops its strong reference.
    /// Closes the HTTP/3 endpoint and its connections, if it runs.
    fn stop_http3(&self) {
        #[cfg(unix)]
        {
            let quic = self.quic.borrow_mut().take();
            if let Some(q) = quic {
                q.close();
                self.stop_advertising_http3();
            }
        }
    }

    /// Responses stop carrying Alt-Svc (HTTP/3 is closing).
    #[cfg(unix)]
    fn stop_advertising_http3(&self) {
        let mut inner = self.inner.borrow_mut();
        inner.date.set_fixed_lines(b"");
        inner.alt_svc = None;
    }

    pub(crate) fn teardown(&self) {
        self.stop_http3();
        // A kick started and closed before it ran never clears this itself.
        self.kick_pending.set(false);
        if let Some(h) = self.handles.take() {
            // SAFETY: the handles are live (taken out of `handles` exactly once).
            unsafe {
                if let Some(poll) = h.poll {
                    // Windows: the polling thread stops before its async handle closes.
                    self.inner.borrow_mut().poll.unwatch();
                    uv::close(poll, crate::poller::WATCH_KIND, on_closed_watch);
                }
                uv::close(h.tick, uv::Kind::Timer, on_closed_timer);
                uv::close(h.kick, uv::Kind::Timer, on_closed_timer);
            }
        }
    }
}
