//! The request path inside the engine: readiness → accept/read → parse → route → body → dispatch.
//! `Inner` holds all state and never calls JS; `Server` methods borrow it in short sections and call
//! the `Handler` with no borrow held, so JS can call straight back into the engine.

use std::collections::VecDeque;
use std::io::ErrorKind;
use std::time::{Duration, Instant, SystemTime};

use gale_http::{parse_head, BodyKind, ChunkedDecoder, DateCache, Error as HttpError, HeaderSpan};
use gale_router::{decode_param, Found, Router};
use mio::net::TcpListener;
use mio::{Interest, Token};
use slab::Slab;

use crate::conn::{Conn, Phase};
use crate::output::Fixed;
use crate::request::{Action, Param, ReqPool};
use crate::statics::Mount;
use crate::{Config, Event, Server, Target};

pub(crate) const LISTENER: Token = Token(usize::MAX);
/// Size of a pooled read buffer.
const READ_BUF: usize = 64 * 1024;
/// Marks an optional route param that matched nothing.
pub(crate) const ABSENT_SPAN: gale_http::Span = gale_http::Span {
    start: u32::MAX,
    end: u32::MAX,
};
/// Streamed request body bytes held for JS before reading from the socket pauses.
const BODY_HIGH_WATER: usize = 256 * 1024;

pub(crate) struct Inner {
    pub cfg: Config,
    pub poll: mio::Poll,
    pub listener: Option<TcpListener>,
    pub conns: Slab<Conn>,
    pub reqs: ReqPool,
    pub router: Router<Target>,
    pub fixed: Vec<Fixed>,
    pub mounts: Vec<Mount>,
    /// JS route that answers paths no route matches (middleware + notFound), instead of a native 404.
    pub fallback: Option<u32>,
    pub date: DateCache,
    hdr_scratch: Vec<HeaderSpan>,
    param_scratch: Vec<(u32, u32)>,
    discard: Vec<u8>,
    bufpool: Vec<Vec<u8>>,
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
}

/// What the parse loop wants next.
pub(crate) enum Step {
    /// Call JS for this request id and route.
    Dispatch(u32, u32),
    Continue,
    Stop,
}

impl Inner {
    pub fn new(cfg: Config) -> std::io::Result<Inner> {
        Ok(Inner {
            router: Router::new(cfg.router),
            cfg,
            poll: mio::Poll::new()?,
            listener: None,
            conns: Slab::new(),
            reqs: ReqPool::default(),
            fixed: Vec::new(),
            mounts: Vec::new(),
            fallback: None,
            date: DateCache::new(SystemTime::now()),
            hdr_scratch: Vec::new(),
            param_scratch: Vec::new(),
            discard: Vec::new(),
            bufpool: Vec::new(),
            dirty: Vec::new(),
            deferred: Vec::new(),
            events: VecDeque::new(),
            in_batch: false,
            now: 0,
            started: Instant::now(),
            closing: false,
            closed: false,
        })
    }

    pub fn refresh_clock(&mut self) {
        self.now = self.started.elapsed().as_millis() as u64;
    }

    pub fn refresh_date(&mut self) {
        self.date.update(SystemTime::now());
    }

    fn take_buf(&mut self) -> Vec<u8> {
        self.bufpool
            .pop()
            .unwrap_or_else(|| Vec::with_capacity(READ_BUF))
    }

    pub fn give_buf(&mut self, mut b: Vec<u8>) {
        if b.capacity() == READ_BUF && self.bufpool.len() < 64 {
            b.clear();
            self.bufpool.push(b);
        }
    }

    fn accept(&mut self) {
        loop {
            let Some(listener) = self.listener.as_ref() else {
                return;
            };
            match listener.accept() {
                Ok((mut sock, peer)) => {
                    let _ = sock.set_nodelay(true);
                    let entry = self.conns.vacant_entry();
                    let key = entry.key();
                    if self
                        .poll
                        .registry()
                        .register(
                            &mut sock,
                            Token(key),
                            Interest::READABLE | Interest::WRITABLE,
                        )
                        .is_ok()
                    {
                        entry.insert(Conn::new(sock, peer, self.now));
                    }
                }
                Err(e) if e.kind() == ErrorKind::Interrupted => continue,
                // WouldBlock ends the drain; EMFILE and friends leave the backlog for the next edge.
                Err(_) => return,
            }
        }
    }

    /// Parses and routes one request from `data[*pos..]`, or feeds the body being received.
    pub fn step(&mut self, cid: usize, data: &[u8], pos: &mut usize) -> Step {
        let now = self.now;
        let max_pipeline = self.cfg.max_pipeline;
        let Some(conn) = self.conns.get_mut(cid) else {
            return Step::Stop;
        };
        match conn.phase {
            Phase::Done | Phase::Lingering => {
                // Input after `Connection: close` or an error is dropped.
                *pos = data.len();
                return Step::Stop;
            }
            Phase::Body(_) if conn.read_paused => return Step::Stop,
            Phase::Body(idx) => return self.feed_body(idx, data, pos),
            Phase::Head => {}
        }
        let avail = &data[*pos..];
        if avail.is_empty() {
            conn.partial = false;
            return Step::Stop;
        }
        if conn.read_paused || conn.inflight.len() >= max_pipeline {
            conn.read_paused = true;
            return Step::Stop;
        }
        if !conn.partial {
            conn.partial = true;
            conn.since = now;
        }
        let head = match parse_head(avail, &self.cfg.limits, &mut self.hdr_scratch) {
            Ok(None) => return Step::Stop,
            Ok(Some(h)) => h,
            Err(e) => {
                *pos = data.len();
                self.fail_new(cid, &e);
                return Step::Stop;
            }
        };
        conn.partial = false;
        let Some(idx) = self.reqs.alloc(cid) else {
            *pos = data.len();
            self.fail_new(cid, &HttpError::request_timeout());
            return Step::Stop;
        };
        conn.inflight.push_back(idx);
        *pos += head.head_len;
        let closing = self.closing;
        let req = self.reqs.get_mut(idx);
        req.head.extend_from_slice(&avail[..head.head_len]);
        req.headers.extend_from_slice(&self.hdr_scratch);
        req.method = head.method;
        req.target = head.target;
        req.path = head.path;
        req.query = head.query;
        req.minor = head.minor_version;
        req.keep_alive = head.keep_alive && !closing;
        req.expect_continue = head.expect_continue;
        req.head_only = head.method.get(&req.head) == b"HEAD";
        self.route(idx);

        match head.body {
            BodyKind::None => self.finish_request(idx),
            BodyKind::Length(n) if n > self.cfg.body_limit => {
                self.fail(idx, &HttpError::body_too_large(self.cfg.body_limit));
                Step::Stop
            }
            kind => {
                let req = self.reqs.get_mut(idx);
                if let BodyKind::Length(n) = kind {
                    req.body_left = n;
                } else {
                    req.chunked = Some(ChunkedDecoder::new(self.cfg.body_limit));
                }
                if req.expect_continue && req.action == Some(Action::Native) {
                    // The answer does not depend on the body: answer now, saying the connection
                    // closes, so the client need not send the body at all.
                    req.keep_alive = false;
                    req.native_close = true;
                    self.route(idx);
                    let r = self.finish_request(idx);
                    self.conns[cid].phase = Phase::Done;
                    return r;
                }
                let expect = req.expect_continue;
                let conn = &mut self.conns[cid];
                conn.phase = Phase::Body(idx);
                conn.since = now;
                if expect && conn.inflight.len() == 1 && *pos == data.len() {
                    conn.wbuf
                        .extend_from_slice(b"HTTP/1.1 100 Continue\r\n\r\n");
                    self.touch(cid);
                }
                Step::Continue
            }
        }
    }

    /// Routes a parsed head: JS route, or a native response (fixed route, 404, 405, bad param).
    fn route(&mut self, idx: usize) {
        let req = self.reqs.get_mut(idx);
        let method = req.method.get(&req.head);
        let path = req.path.get(&req.head);
        let (status, extra): (u16, &[u8]) = match self.router.find(
            method,
            path,
            &mut self.param_scratch,
        ) {
            Found::Route(&Target::Js(route)) => {
                let base = req.path.start;
                for &(s, e) in &self.param_scratch {
                    if s == u32::MAX {
                        // An optional param that did not match (the router's ABSENT slot).
                        req.params.push(Param {
                            span: ABSENT_SPAN,
                            decoded: false,
                        });
                        continue;
                    }
                    let span = gale_http::Span {
                        start: base + s,
                        end: base + e,
                    };
                    let raw = span.get(&req.head);
                    if memchr_pct(raw) {
                        let start = req.param_buf.len() as u32;
                        let mut tmp = std::mem::take(&mut self.discard);
                        if decode_param(raw, &mut tmp).is_err() {
                            self.discard = tmp;
                            let close = !req.keep_alive;
                            crate::output::encode_native(
                                    &mut req.native,
                                    &self.date,
                                    400,
                                    b"",
                                    b"Bad Request: a path parameter has malformed percent-encoding or is not UTF-8. Percent-encode reserved characters as %XX with valid UTF-8.",
                                    close,
                                    req.head_only,
                                );
                            req.action = Some(Action::Native);
                            return;
                        }
                        req.param_buf.extend_from_slice(&tmp);
                        self.discard = tmp;
                        let end = req.param_buf.len() as u32;
                        req.params.push(Param {
                            span: gale_http::Span { start, end },
                            decoded: true,
                        });
                    } else {
                        req.params.push(Param {
                            span,
                            decoded: false,
                        });
                    }
                }
                req.action = Some(Action::Js(route));
                return;
            }
            Found::Route(&Target::Static(m)) => {
                // The raw tail below the prefix (not decoded: the static path check decodes it).
                // Up to the real end of the path: the router ignores one trailing slash, but
                // `dir` and `dir/` differ here (redirect vs index file).
                let end = req.path.end;
                let slash = req.path.get(&req.head).last() == Some(&b'/');
                let start = match self.param_scratch.first() {
                    Some(&(s, _)) => req.path.start + s,
                    None if slash => end - 1,
                    None => end,
                };
                let span = gale_http::Span { start, end };
                req.params.push(Param {
                    span,
                    decoded: false,
                });
                req.action = Some(Action::Static(m));
                return;
            }
            Found::Route(&Target::Fixed(f)) => {
                let close = !req.keep_alive;
                self.fixed[f as usize].encode(&mut req.native, &self.date, close, req.head_only);
                req.action = Some(Action::Native);
                return;
            }
            Found::MethodNotAllowed { allow } => {
                req.native.clear();
                let mut extra = Vec::with_capacity(allow.len() + 9);
                extra.extend_from_slice(b"Allow: ");
                extra.extend_from_slice(allow.as_bytes());
                extra.extend_from_slice(b"\r\n");
                let close = !req.keep_alive;
                crate::output::encode_native(
                    &mut req.native,
                    &self.date,
                    405,
                    &extra,
                    b"Method Not Allowed",
                    close,
                    req.head_only,
                );
                req.action = Some(Action::Native);
                return;
            }
            Found::NotFound => match self.fallback {
                Some(route) => {
                    req.action = Some(Action::Js(route));
                    return;
                }
                None => (404, b""),
            },
        };
        let close = !req.keep_alive;
        crate::output::encode_native(
            &mut req.native,
            &self.date,
            status,
            extra,
            b"Not Found",
            close,
            req.head_only,
        );
        req.action = Some(Action::Native);
    }

    fn feed_body(&mut self, idx: usize, data: &[u8], pos: &mut usize) -> Step {
        let avail = &data[*pos..];
        let req = self.reqs.get_mut(idx);
        // Bytes are kept only for a JS handler that has not answered yet.
        let keep = matches!(req.action, Some(Action::Js(_))) && !req.ended;
        let before = req.body.len();
        let done = if avail.is_empty() {
            false
        } else if let Some(dec) = req.chunked.as_mut() {
            let sink = if keep {
                &mut req.body
            } else {
                &mut self.discard
            };
            let r = dec.decode(avail, sink);
            self.discard.clear();
            match r {
                Ok(d) => {
                    *pos += d.consumed;
                    d.done
                }
                Err(e) => {
                    *pos = data.len();
                    self.fail(idx, &e);
                    return Step::Stop;
                }
            }
        } else {
            let n = (req.body_left.min(avail.len() as u64)) as usize;
            if keep {
                req.body.extend_from_slice(&avail[..n]);
            }
            req.body_left -= n as u64;
            *pos += n;
            req.body_left == 0
        };
        if done {
            return self.body_complete(idx);
        }
        let req = self.reqs.get_mut(idx);
        if keep && !req.js_owned {
            // The body is still on its way: the handler starts now and reads the rest as it comes.
            if let Some(Action::Js(route)) = req.action {
                req.streaming = true;
                req.js_owned = true;
                return Step::Dispatch(req.id(idx), route);
            }
        }
        if req.streaming && req.body.len() > before && req.want_body {
            req.want_body = false;
            self.events.push_back(Event::Body(req.id(idx)));
        }
        if req.streaming && req.body.len() > BODY_HIGH_WATER {
            // JS is not keeping up: stop reading until it takes what is buffered.
            let cid = req.conn;
            self.conns[cid].read_paused = true;
        }
        Step::Stop
    }

    /// The last body byte arrived.
    fn body_complete(&mut self, idx: usize) -> Step {
        let req = self.reqs.get_mut(idx);
        if !req.streaming {
            return self.finish_request(idx);
        }
        req.body_done = true;
        let cid = req.conn;
        let keep_alive = req.keep_alive && !req.native_close;
        if req.want_body {
            req.want_body = false;
            self.events.push_back(Event::Body(req.id(idx)));
        }
        let orphan = req.ended && !self.conns[cid].inflight.contains(&idx);
        let conn = &mut self.conns[cid];
        conn.phase = if keep_alive { Phase::Head } else { Phase::Done };
        conn.since = self.now;
        if orphan {
            // Answered before its body ended: nothing refers to the record any more.
            self.reqs.free(idx);
        }
        Step::Continue
    }

    /// The whole request is in: answer natively or hand it to JS.
    fn finish_request(&mut self, idx: usize) -> Step {
        let req = self.reqs.get_mut(idx);
        let cid = req.conn;
        let keep_alive = req.keep_alive && !req.native_close;
        let action = req.action;
        let conn = &mut self.conns[cid];
        conn.phase = if keep_alive { Phase::Head } else { Phase::Done };
        conn.since = self.now;
        match action {
            Some(Action::Js(route)) => {
                let req = self.reqs.get_mut(idx);
                req.js_owned = true;
                Step::Dispatch(req.id(idx), route)
            }
            Some(Action::Static(m)) => {
                let tail = self.reqs.get(idx).params[0].span;
                self.serve_static(idx, m as usize, tail);
                self.end_native(idx);
                Step::Continue
            }
            _ => {
                self.end_native(idx);
                Step::Continue
            }
        }
    }

    /// Answers a request with an error and stops reading the connection. When JS already has the
    /// request (streamed body), its body reader gets the error instead and JS answers.
    pub fn fail(&mut self, idx: usize, err: &HttpError) {
        let req = self.reqs.get_mut(idx);
        let cid = req.conn;
        if req.streaming {
            req.body_error = err.status();
            req.keep_alive = false;
            let id = req.id(idx);
            let orphan = req.ended && !self.conns[cid].inflight.contains(&idx);
            if req.want_body {
                req.want_body = false;
                self.events.push_back(Event::Body(id));
            }
            let conn = &mut self.conns[cid];
            conn.phase = Phase::Done;
            if orphan {
                self.reqs.free(idx);
                conn.close_after_flush = true;
                self.touch(cid);
            }
            return;
        }
        req.native.clear();
        gale_http::write_error_response(&mut req.native, err, &self.date);
        req.native_close = true;
        req.action = Some(Action::Native);
        self.conns[cid].phase = Phase::Done;
        self.end_native(idx);
    }

    /// Answers bad input that produced no request record yet.
    pub fn fail_new(&mut self, cid: usize, err: &HttpError) {
        if let Some(idx) = self.reqs.alloc(cid) {
            self.conns[cid].inflight.push_back(idx);
            self.fail(idx, err);
        } else {
            self.close_conn(cid);
        }
    }

    /// Removes a connection; requests JS still holds are detached and reported aborted.
    pub fn close_conn(&mut self, cid: usize) {
        if !self.conns.contains(cid) {
            return;
        }
        let mut conn = self.conns.remove(cid);
        let _ = self.poll.registry().deregister(&mut conn.sock);
        if let Phase::Body(idx) = conn.phase {
            if !conn.inflight.contains(&idx) {
                // A streamed body still arriving for a request already answered.
                self.reqs.free(idx);
            }
        }
        for idx in conn.inflight.drain(..) {
            let req = self.reqs.get_mut(idx);
            if req.js_owned && !req.ended {
                req.detached = true;
                self.events.push_back(Event::Abort(req.id(idx)));
            } else {
                self.reqs.free(idx);
            }
        }
        let rbuf = std::mem::take(&mut conn.rbuf);
        self.give_buf(rbuf);
        self.maybe_finished();
    }

    pub fn maybe_finished(&mut self) {
        if self.closing && !self.closed && self.conns.is_empty() {
            self.closed = true;
            self.events.push_back(Event::Closed);
        }
    }

    /// Peer sent EOF: like Node, requests still in flight are aborted and the socket closes once
    /// what was already answered is flushed.
    fn on_eof(&mut self, cid: usize) {
        let Some(conn) = self.conns.get_mut(cid) else {
            return;
        };
        conn.eof = true;
        if conn.phase == Phase::Lingering || (conn.inflight.is_empty() && conn.pending() == 0) {
            self.close_conn(cid);
            return;
        }
        conn.phase = Phase::Done;
        conn.close_after_flush = true;
        let pending: Vec<usize> = conn.inflight.drain(..).collect();
        for idx in pending {
            let req = self.reqs.get_mut(idx);
            if req.js_owned && !req.ended {
                req.detached = true;
                self.events.push_back(Event::Abort(req.id(idx)));
            } else {
                self.reqs.free(idx);
            }
        }
        self.flush(cid);
    }

    /// One second (or less) passed: refresh the Date header and enforce the timeouts.
    pub fn on_tick(&mut self) {
        self.refresh_clock();
        self.refresh_date();
        let now = self.now;
        let cfg = &self.cfg;
        let mut expired: Vec<(usize, Option<usize>, bool)> = Vec::new();
        for (cid, c) in self.conns.iter() {
            let age = now.saturating_sub(c.since);
            match c.phase {
                Phase::Lingering if age > 2_000 => expired.push((cid, None, false)),
                Phase::Head if c.partial && age > cfg.headers_timeout_ms => {
                    expired.push((cid, None, true))
                }
                Phase::Head if c.is_idle() && age > cfg.keep_alive_timeout_ms => {
                    expired.push((cid, None, false))
                }
                Phase::Body(idx) if age > cfg.request_timeout_ms => {
                    expired.push((cid, Some(idx), true))
                }
                _ => {}
            }
        }
        for (cid, idx, answer) in expired {
            match (idx, answer) {
                (Some(idx), _) => self.fail(idx, &HttpError::request_timeout()),
                (None, true) => {
                    if let Some(c) = self.conns.get_mut(cid) {
                        c.partial = false;
                        let rbuf = std::mem::take(&mut c.rbuf);
                        self.give_buf(rbuf);
                    }
                    self.fail_new(cid, &HttpError::request_timeout());
                }
                (None, false) => self.close_conn(cid),
            }
            self.flush(cid);
        }
    }
}

fn memchr_pct(b: &[u8]) -> bool {
    b.contains(&b'%')
}

/// Result of one read attempt.
enum ReadResult {
    /// Filled the whole spare capacity: there may be more.
    Full,
    /// Read less than asked: the receive queue was empty at that moment.
    Short,
    WouldBlock,
    Eof,
    Error,
}

/// Reads into the spare capacity of `buf`, growing it when full.
fn read_into(sock: &mut mio::net::TcpStream, buf: &mut Vec<u8>) -> ReadResult {
    use std::os::fd::AsRawFd;
    if buf.capacity() - buf.len() < 4096 {
        buf.reserve(16 * 1024);
    }
    let spare = buf.spare_capacity_mut();
    loop {
        // SAFETY: recv writes at most spare.len() bytes into memory we own; MaybeUninit<u8> has u8's layout.
        let n = unsafe {
            libc::recv(
                sock.as_raw_fd(),
                spare.as_mut_ptr() as *mut libc::c_void,
                spare.len(),
                0,
            )
        };
        if n > 0 {
            let full = n as usize == spare.len();
            // SAFETY: the kernel initialised exactly n bytes after len.
            unsafe { buf.set_len(buf.len() + n as usize) };
            return if full {
                ReadResult::Full
            } else {
                ReadResult::Short
            };
        }
        if n == 0 {
            return ReadResult::Eof;
        }
        match std::io::Error::last_os_error().kind() {
            ErrorKind::WouldBlock => return ReadResult::WouldBlock,
            ErrorKind::Interrupted => continue,
            _ => return ReadResult::Error,
        }
    }
}

impl Server {
    /// The uv_poll callback: drain every ready socket in one batch, inside one JS scope.
    pub(crate) fn on_ready(&self) {
        self.begin_batch();
        let mut events = self.events_buf.borrow_mut();
        {
            let mut inner = self.inner.borrow_mut();
            inner.refresh_clock();
            if inner.poll.poll(&mut events, Some(Duration::ZERO)).is_err() {
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
            if b.capacity() == 0 {
                inner.take_buf()
            } else {
                b
            }
        };
        let mut eof = false;
        // Leftover input from a pause is processed before reading more.
        let mut need_read = buf.is_empty();
        loop {
            let mut last = false;
            if need_read {
                let r = {
                    let mut inner = self.inner.borrow_mut();
                    match inner.conns.get_mut(cid) {
                        Some(c) => read_into(&mut c.sock, &mut buf),
                        None => ReadResult::Error,
                    }
                };
                match r {
                    ReadResult::Full => {}
                    ReadResult::Short => last = !greedy,
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
                Step::Dispatch(id, route) => self.handler.request(self, id, route),
                Step::Continue => {}
                Step::Stop => return pos,
            }
        }
    }
}
