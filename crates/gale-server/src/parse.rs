//! The parse loop of one connection: head → route → body → dispatch or native answer, and the
//! error answers for bad input. Works on `Inner` only; never calls JS (it returns `Step::Dispatch`).
//! Over 400 lines: `step` (190 lines) is a connection's parse state machine in one match, with the error answers and
//! helpers only it calls.

use gale_http::{parse_head, BodyKind, ChunkedDecoder, Error as HttpError};
use gale_router::{decode_param, Found};

use crate::conn::Phase;
use crate::engine::{Inner, Step, ABSENT_SPAN, BODY_HIGH_WATER};
use crate::request::{Action, Param};
use crate::routes::Target;
use crate::Event;

impl Inner {
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
            Phase::Ws => return self.ws_step(cid, data, pos),
            Phase::H2 => return self.h2_step(cid, data, pos),
            Phase::Pulled => return self.pulled_step(cid),
            Phase::Upgrade(_) => {
                conn.read_paused = true;
                return Step::Stop;
            }
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
        if conn.proxy_pending {
            // The load balancer's PROXY header: whose connection this is (headersTimeout applies).
            match gale_http::parse_proxy_header(avail) {
                Ok(None) => return Step::Stop,
                Ok(Some((addrs, len))) => {
                    conn.proxy_pending = false;
                    if let gale_http::ProxyAddrs::Tcp { source, .. } = addrs {
                        conn.peer = source;
                    }
                    *pos += len;
                    return Step::Continue;
                }
                Err(e) => {
                    *pos = data.len();
                    self.fail_new(cid, &e);
                    return Step::Stop;
                }
            }
        }
        if conn.requests == 0 && alpn_h2(conn) {
            // TLS with ALPN `h2`: HTTP/2 was agreed, so the input must begin with its preface, never HTTP/1.1
            // (RFC 9113 §3.4: anything else is a connection error of type PROTOCOL_ERROR).
            return match gale_h2::preface(avail) {
                gale_h2::Preface::Complete if self.h2.is_some() => {
                    self.start_h2(cid);
                    Step::Continue
                }
                gale_h2::Preface::Partial => Step::Stop,
                _ => {
                    *pos = data.len();
                    self.preface_error(cid);
                    Step::Stop
                }
            };
        }
        let head = match parse_head(avail, &self.cfg.limits, &mut self.scratch.hdr) {
            Ok(None) => return Step::Stop,
            Ok(Some(h)) => h,
            Err(e) => {
                // `PRI * HTTP/2.0`: an HTTP/2 client's preface (prior knowledge). A first request line whose
                // version is not `HTTP/d.d` at all is no HTTP/1.x client's: where HTTP/2 is served too, it is
                // answered as an invalid preface (GOAWAY), as an HTTP/2-only server would.
                if self.h2.is_some() {
                    match self.h2_preface(cid, avail) {
                        Some(gale_h2::Preface::Complete) => {
                            self.start_h2(cid);
                            return Step::Continue;
                        }
                        Some(gale_h2::Preface::Partial) => return Step::Stop,
                        Some(gale_h2::Preface::Invalid)
                            if e.is_bad_version() && self.conns[cid].requests == 0 =>
                        {
                            *pos = data.len();
                            self.preface_error(cid);
                            return Step::Stop;
                        }
                        _ => {}
                    }
                }
                *pos = data.len();
                self.fail_new(cid, &e);
                return Step::Stop;
            }
        };
        if self.h2.as_deref().is_some_and(|h| !h.opts.http1) {
            // A listener for HTTP/2 only (`http1: false`): an HTTP/1.x request gets 505 saying how to connect.
            *pos = data.len();
            self.fail_new(cid, &HttpError::http2_only());
            return Step::Stop;
        }
        conn.partial = false;
        if head.upgrade && !conn.inflight.is_empty() {
            // An upgrade changes the protocol once answered: wait until every earlier response is out.
            conn.read_paused = true;
            return Step::Stop;
        }
        let Some(idx) = self.reqs.alloc(cid) else {
            *pos = data.len();
            self.fail_new(cid, &HttpError::request_timeout());
            return Step::Stop;
        };
        conn.inflight.push_back(idx);
        conn.requests = conn.requests.saturating_add(1);
        let mem = conn.io.pipe();
        *pos += head.head_len;
        let closing = self.closing;
        let req = self.reqs.get_mut(idx);
        req.head.extend_from_slice(&avail[..head.head_len]);
        req.headers.extend_from_slice(&self.scratch.hdr);
        req.method = head.method;
        req.target = head.target;
        req.path = head.path;
        req.query = head.query;
        req.minor = head.minor_version;
        if let Some(p) = mem {
            // A request served through an in-process connection for an HTTP/3 stream (h3/bridge.rs) or an HTTP/2
            // WebSocket (h2/tunnel.rs) reads as that version.
            if let Some(v) = self.pipes[p].version {
                req.minor = v;
            }
        }
        req.keep_alive = head.keep_alive && !closing;
        req.expect_continue = head.expect_continue;
        req.bodyless = matches!(head.body, BodyKind::None);
        req.head_only = head.method.get(&req.head) == b"HEAD";
        self.route(idx);
        let req = self.reqs.get_mut(idx);
        if let (Some(Action::Js(_)), Some(wr)) = (req.action, req.ws_route) {
            match self.ws.routes[wr as usize].http {
                // The path is shared with a GET route, and this is not a WebSocket upgrade.
                Some(js) if !(head.upgrade && wants_websocket(req)) => {
                    req.action = Some(Action::Js(js));
                    req.ws_route = None;
                }
                _ => return self.upgrade_request(cid, idx, &head, wr),
            }
        }

        match head.body {
            BodyKind::None => self.finish_request(idx),
            BodyKind::Length(n) if n > self.cfg.body_limit => {
                self.fail(idx, &HttpError::body_too_large(self.cfg.body_limit));
                Step::Stop
            }
            kind => {
                let req = self.reqs.get_mut(idx);
                if let BodyKind::Length(n) = kind {
                    req.body_in.left = n;
                } else {
                    req.body_in.chunked = Some(ChunkedDecoder::new(self.cfg.body_limit));
                }
                if req.expect_continue && req.action == Some(Action::Native) {
                    // The answer does not depend on the body: answer now, saying the connection
                    // closes, so the client need not send the body at all.
                    req.keep_alive = false;
                    req.reply.native_close = true;
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
                    conn.wbuf.extend_from_slice(gale_http::CONTINUE_100);
                    self.touch(cid);
                }
                Step::Continue
            }
        }
    }

    /// Routes a parsed head: JS route, or a native response (fixed route, 404, 405, bad param).
    pub(crate) fn route(&mut self, idx: usize) {
        let h2 = self.is_stream(idx);
        let req = self.reqs.get_mut(idx);
        let method = req.method.get(&req.head);
        let path = req.path.get(&req.head);
        let (status, extra): (u16, &[u8]) = match self.routes.router.find(
            method,
            path,
            &mut self.scratch.params,
        ) {
            Found::Route(&Target::Answer(_, f)) if answerable(req, h2) => {
                self.routes.fixed[f as usize].answer(req, h2, &self.date);
                return;
            }
            Found::Route(&t @ (Target::Js(_) | Target::Answer(..) | Target::Ws(..))) => {
                let (route, ws_route) = match t {
                    Target::Ws(route, wr) => (route, Some(wr)),
                    Target::Js(route) | Target::Answer(route, _) => (route, None),
                    _ => unreachable!(),
                };
                let base = req.path.start;
                for &(s, e) in &self.scratch.params {
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
                    if self.cfg.decode_params && memchr_pct(raw) {
                        let start = req.param_buf.len() as u32;
                        let mut tmp = std::mem::take(&mut self.scratch.discard);
                        if decode_param(raw, &mut tmp).is_err() {
                            self.scratch.discard = tmp;
                            crate::wire::native_text(
                                    req,
                                    h2,
                                    &self.date,
                                    400,
                                    b"",
                                    b"Bad Request: a path parameter has malformed percent-encoding or is not UTF-8. Percent-encode reserved characters as %XX with valid UTF-8.",
                                );
                            return;
                        }
                        req.param_buf.extend_from_slice(&tmp);
                        self.scratch.discard = tmp;
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
                req.ws_route = ws_route;
                return;
            }
            Found::Route(&Target::Static(m)) => {
                // The raw tail below the prefix (not decoded: the static path check decodes it).
                // Up to the real end of the path: the router ignores one trailing slash, but
                // `dir` and `dir/` differ here (redirect vs index file).
                let end = req.path.end;
                let slash = req.path.get(&req.head).last() == Some(&b'/');
                let start = match self.scratch.params.first() {
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
                self.routes.fixed[f as usize].answer(req, h2, &self.date);
                return;
            }
            Found::MethodNotAllowed { allow } => {
                let extra = crate::wire::allow_line(allow);
                crate::wire::native_text(req, h2, &self.date, 405, &extra, b"Method Not Allowed");
                return;
            }
            // CONNECT asks for a tunnel, which no route serves (node:http hands it to 'connect' listeners only):
            // 405 with what the server does accept. Its target is an authority, so the router never matches it.
            Found::NotFound if method == b"CONNECT" => {
                let extra = crate::wire::allow_line(self.routes.router.allow_any(None));
                let body: &[u8] = b"Method Not Allowed: CONNECT (a tunnel) is not served here";
                crate::wire::native_text(req, h2, &self.date, 405, &extra, body);
                return;
            }
            Found::NotFound => match self.routes.fallback {
                Some(route) => {
                    req.action = Some(Action::Js(route));
                    return;
                }
                // `OPTIONS *` asks about the server as a whole (RFC 9110 §9.3.7): every method some route takes.
                // An app with a fallback (a notFound handler, the Express layer) answers it itself (path `*`).
                None if method == b"OPTIONS" && path == b"*" => {
                    let allow = self
                        .routes
                        .router
                        .allow_any(Some(gale_router::Method::Options));
                    let extra = crate::wire::allow_line(allow);
                    crate::wire::native_text(req, h2, &self.date, 200, &extra, b"");
                    return;
                }
                None => (404, b""),
            },
        };
        crate::wire::native_text(req, h2, &self.date, status, extra, b"Not Found");
    }

    pub(crate) fn feed_body(&mut self, idx: usize, data: &[u8], pos: &mut usize) -> Step {
        let avail = &data[*pos..];
        let req = self.reqs.get_mut(idx);
        // Bytes are kept only for a JS handler that has not answered yet.
        let keep = matches!(req.action, Some(Action::Js(_))) && !req.reply.ended;
        let before = req.body_in.buf.len();
        let done = if avail.is_empty() {
            false
        } else if let Some(dec) = req.body_in.chunked.as_mut() {
            let sink = if keep {
                &mut req.body_in.buf
            } else {
                &mut self.scratch.discard
            };
            let r = dec.decode(avail, sink);
            self.scratch.discard.clear();
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
            let n = (req.body_in.left.min(avail.len() as u64)) as usize;
            if keep {
                req.body_in.buf.extend_from_slice(&avail[..n]);
            }
            req.body_in.left -= n as u64;
            *pos += n;
            req.body_in.left == 0
        };
        self.body_arrived(idx, before, keep, done)
    }

    /// A request in `Phase::Body` whose streamed body the engine can receive straight into the request's buffer:
    /// a JS handler already reading it (js_owned), a Content-Length body (not chunked), bytes still to come. Its
    /// index then; the caller receives at most `body_in.left` bytes into `reqs[idx].body_in.buf` and calls `body_received`.
    pub(crate) fn direct_body(&self, cid: usize) -> Option<usize> {
        let conn = self.conns.get(cid)?;
        let Phase::Body(idx) = conn.phase else {
            return None;
        };
        if conn.read_paused || conn.tls.is_some() {
            return None;
        }
        let req = self.reqs.get(idx);
        let direct = req.body_in.streaming
            && req.js_owned
            && !req.reply.ended
            && req.body_in.chunked.is_none()
            && req.body_in.left > 0
            && matches!(req.action, Some(Action::Js(_)));
        direct.then_some(idx)
    }

    /// `n` body bytes were received straight into `reqs[idx].body` (already counted in its length).
    pub(crate) fn body_received(&mut self, idx: usize, n: usize) -> Step {
        let req = self.reqs.get_mut(idx);
        let before = req.body_in.buf.len() - n;
        req.body_in.left -= n as u64;
        let done = req.body_in.left == 0;
        self.body_arrived(idx, before, true, done)
    }

    /// After body bytes arrived (`before` = the kept body's length before them): complete the request, start its
    /// handler, wake a waiting reader, or pause reading for a reader that is behind.
    fn body_arrived(&mut self, idx: usize, before: usize, keep: bool, done: bool) -> Step {
        if done {
            return self.body_complete(idx);
        }
        let req = self.reqs.get_mut(idx);
        if keep && !req.js_owned {
            // The body is still on its way: the handler starts now and reads the rest as it comes.
            if let Some(Action::Js(route)) = req.action {
                req.body_in.streaming = true;
                req.js_owned = true;
                return Step::Dispatch(req.id(idx), route);
            }
        }
        if req.body_in.streaming && req.body_in.buf.len() > before && req.body_in.wanted {
            req.body_in.wanted = false;
            self.events.push_back(Event::Body(req.id(idx)));
        }
        if req.body_in.streaming && req.body_in.buf.len() > BODY_HIGH_WATER {
            // JS is not keeping up: stop reading until it takes what is buffered.
            let cid = req.conn;
            self.conns[cid].read_paused = true;
        }
        Step::Stop
    }

    /// The last body byte arrived.
    pub(crate) fn body_complete(&mut self, idx: usize) -> Step {
        let req = self.reqs.get_mut(idx);
        if !req.body_in.streaming {
            return self.finish_request(idx);
        }
        req.body_in.done = true;
        let cid = req.conn;
        let keep_alive = req.keep_alive && !req.reply.native_close;
        if req.body_in.wanted {
            req.body_in.wanted = false;
            self.events.push_back(Event::Body(req.id(idx)));
        }
        let orphan = req.reply.ended && !self.conns[cid].inflight.contains(&idx);
        let conn = &mut self.conns[cid];
        conn.phase = if keep_alive { Phase::Head } else { Phase::Done };
        conn.since = self.now;
        if orphan {
            // Answered before its body ended: the engine is done with it (JS may read it until the turn ends).
            self.reqs.retire(idx);
        }
        Step::Continue
    }

    /// The whole request is in: answer natively or hand it to JS.
    pub(crate) fn finish_request(&mut self, idx: usize) -> Step {
        let req = self.reqs.get_mut(idx);
        let cid = req.conn;
        let keep_alive = req.keep_alive && !req.reply.native_close;
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
        if req.body_in.streaming {
            req.body_in.error = err.status();
            req.keep_alive = false;
            let id = req.id(idx);
            let orphan = req.reply.ended && !self.conns[cid].inflight.contains(&idx);
            if req.body_in.wanted {
                req.body_in.wanted = false;
                self.events.push_back(Event::Body(id));
            }
            let conn = &mut self.conns[cid];
            conn.phase = Phase::Done;
            if orphan {
                self.reqs.retire(idx);
                conn.close_after_flush = true;
                self.touch(cid);
            }
            return;
        }
        crate::wire::native_error(req, false, &self.date, err);
        self.conns[cid].phase = Phase::Done;
        self.end_native(idx);
    }

    /// A connection that should have begun with the HTTP/2 preface and did not: SETTINGS and GOAWAY(PROTOCOL_ERROR),
    /// then the connection closes; no request is made of its input.
    fn preface_error(&mut self, cid: usize) {
        let Some(conn) = self.conns.get_mut(cid) else {
            return;
        };
        gale_h2::preface_error(&mut conn.wbuf);
        conn.phase = Phase::Done;
        conn.close_after_flush = true;
        self.touch(cid);
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
}

/// Whether the connection is TLS with ALPN `h2` negotiated.
fn alpn_h2(conn: &crate::conn::Conn) -> bool {
    conn.tls.as_ref().and_then(|t| t.alpn_protocol()) == Some(b"h2")
}

fn memchr_pct(b: &[u8]) -> bool {
    b.contains(&b'%')
}

/// Whether the request's `Upgrade` header names `websocket` (for a path that also has a GET route,
/// where other upgrades, such as h2c, are plain requests).
fn wants_websocket(req: &crate::request::Req) -> bool {
    req.headers.iter().any(|h| {
        h.name.get(&req.head).eq_ignore_ascii_case(b"upgrade")
            && h.value
                .get(&req.head)
                .windows(9)
                .any(|w| w.eq_ignore_ascii_case(b"websocket"))
    })
}

/// Whether a route's native answer (`Target::Answer`) is the one its JS would give: an HTTP/1.1 GET or HEAD without a
/// body and without If-None-Match or If-Modified-Since (with them, the app's JS may answer 304). Other requests, and
/// HTTP/1.0 and HTTP/2 ones, run the JS route.
fn answerable(req: &crate::request::Req, h2: bool) -> bool {
    if h2 || req.minor != 1 || !req.bodyless {
        return false;
    }
    let method = req.method.get(&req.head);
    if method != b"GET" && method != b"HEAD" {
        return false;
    }
    !req.headers.iter().any(|h| {
        let n = h.name.get(&req.head);
        (n.len() == 13 && n.eq_ignore_ascii_case(b"if-none-match"))
            || (n.len() == 17 && n.eq_ignore_ascii_case(b"if-modified-since"))
    })
}
