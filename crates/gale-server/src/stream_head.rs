//! A request that arrives as a stream's fields (HTTP/2, HTTP/3) into its record: the equivalent HTTP/1.1 head
//! (gale-h2 `request_head`) parsed with the server's limits and routed, so routing, params, limits and native
//! answers are HTTP/1.1's; and the answers only such requests get.

use crate::engine::Inner;
use crate::request::Action;

impl Inner {
    /// Fills record `idx` from a stream's request fields and routes it. `minor` is the version the request reads
    /// as (2: HTTP/2, 3: HTTP/3). A head over the limits, or a body declared over `bodyLimit`, gets its error as
    /// the record's native answer; so does a WebSocket route's request without its HTTP handler (426).
    pub(crate) fn stream_request(&mut self, idx: usize, parts: &http::request::Parts, minor: u8) {
        let body_limit = self.cfg.body_limit;
        let req = self.reqs.get_mut(idx);
        gale_h2::request_head(parts, &mut req.head);
        req.minor = minor;
        req.keep_alive = true;
        let parsed = gale_http::parse_head(&req.head, &self.cfg.limits, &mut self.scratch.hdr);
        let mut too_large = false;
        match parsed {
            Ok(Some(head)) => {
                req.headers.extend_from_slice(&self.scratch.hdr);
                req.method = head.method;
                req.target = head.target;
                req.path = head.path;
                req.query = head.query;
                req.head_only = head.method.get(&req.head) == b"HEAD";
                too_large = matches!(head.body, gale_http::BodyKind::Length(n) if n > body_limit);
                self.route(idx);
            }
            Ok(None) => self.stream_error(idx, &gale_http::Error::request_timeout()),
            Err(e) => self.stream_error(idx, &e),
        }
        if too_large {
            self.stream_error(idx, &gale_http::Error::body_too_large(body_limit));
        }
        let req = self.reqs.get_mut(idx);
        if let (Some(Action::Js(_)), Some(wr)) = (req.action, req.ws_route) {
            req.ws_route = None;
            match self.ws.routes[wr as usize].http {
                Some(js) => req.action = Some(Action::Js(js)),
                None if minor == 2 => self.native_text(
                    idx,
                    426,
                    b"",
                    b"Upgrade Required: a WebSocket opens over HTTP/2 with an extended CONNECT (RFC 8441), or on an HTTP/1.1 connection.",
                ),
                None => self.native_text(
                    idx,
                    426,
                    b"",
                    b"Upgrade Required: a WebSocket opens on an HTTP/1.1 connection or over HTTP/2 (RFC 8441), not over HTTP/3.",
                ),
            }
        }
    }

    /// Encodes an error answer for `idx` (bad head, limits) as its native response, the head as fields.
    pub(crate) fn stream_error(&mut self, idx: usize, err: &gale_http::Error) {
        crate::wire::native_error(self.reqs.get_mut(idx), true, &self.date, err);
    }
}
