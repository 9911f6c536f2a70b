//! A request head on an HTTP/1.1 connection: the PROXY header, the HTTP/2 preface where HTTP/2 is served, the head
//! parsed with the server's limits, the pipelining and upgrade waits, routing, then what its body framing says.

use gale_http::{parse_head, BodyKind, ChunkedDecoder, Error as HttpError};

use crate::conn::Phase;
use crate::engine::{Inner, Step};
use crate::request::Action;

impl Inner {
    /// The head phase of connection `cid`: parses the next request's head from `data[*pos..]` and routes it.
    // Inlined into `step`, its only caller, as it was when both were one function: pipelined hello measured 2 %
    // more CPU per request with the call in between.
    #[inline(always)]
    pub(super) fn head(&mut self, cid: usize, data: &[u8], pos: &mut usize) -> Step {
        let now = self.now;
        let max_pipeline = self.cfg.max_pipeline;
        let Some(conn) = self.conns.get_mut(cid) else {
            return Step::Stop;
        };
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
}

/// Whether the connection is TLS with ALPN `h2` negotiated.
fn alpn_h2(conn: &crate::conn::Conn) -> bool {
    conn.tls.as_ref().and_then(|t| t.alpn_protocol()) == Some(b"h2")
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
