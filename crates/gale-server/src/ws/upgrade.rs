//! The upgrade: a WebSocket route's request is checked in the parse loop (bad handshakes are answered
//! natively), handed to JS (middleware, `upgrade(req)`), then accepted here with a 101.

use gale_http::{BodyKind, RequestHead};
use gale_ws::DeflateConfig;

use crate::conn::Phase;
use crate::engine::{Inner, Step};
use crate::ws::{make_sid, Compression, WsConn, MAX_WS_CONNS};

impl Inner {
    /// A request routed to WebSocket route `wr`: answers a bad handshake natively, else dispatches it to
    /// JS and holds the connection (nothing more is parsed) until JS accepts or answers.
    pub(crate) fn upgrade_request(
        &mut self,
        cid: usize,
        idx: usize,
        head: &RequestHead,
        wr: u32,
    ) -> Step {
        let req = self.reqs.get_mut(idx);
        // The subprotocol to accept with, when the engine accepts this upgrade itself.
        let mut native: Option<Option<Vec<u8>>> = None;
        let problem: Option<(u16, &[u8], &[u8])> = if !head.upgrade {
            Some((
                426,
                b"Upgrade: websocket\r\n",
                b"Upgrade Required: this URL accepts WebSocket connections only. Connect with a WebSocket client (GET with Connection: Upgrade and Upgrade: websocket).",
            ))
        } else if !matches!(head.body, BodyKind::None) {
            Some((
                400,
                b"",
                b"Bad Request: a WebSocket upgrade request must not have a body.",
            ))
        } else {
            let headers = req
                .headers
                .iter()
                .map(|h| (h.name.get(&req.head), h.value.get(&req.head)));
            match gale_ws::parse_request(head.method.get(&req.head), req.minor, headers) {
                Ok(hs) => {
                    if self.ws.routes[wr as usize].native {
                        // JS's pick, when it is plainly one: else JS picks, as for any upgrade.
                        native = native_protocol(&hs.protocols)
                            .ok()
                            .map(|p| p.map(<[u8]>::to_vec));
                    }
                    None
                }
                Err(e) => Some((
                    e.status(),
                    if e.status() == 426 {
                        &b"Sec-WebSocket-Version: 13\r\n"[..]
                    } else {
                        b""
                    },
                    e.message().as_bytes(),
                )),
            }
        };
        // Whatever JS answers instead of accepting ends the connection: the client expects a 101.
        req.keep_alive = false;
        if let Some((status, extra, msg)) = problem {
            crate::wire::native_text(req, false, &self.date, status, extra, msg);
            return self.finish_request(idx);
        }
        req.ws_route = Some(wr);
        if let Some(protocol) = native {
            let cid = req.conn;
            let conn = &mut self.conns[cid];
            conn.phase = Phase::Upgrade(idx);
            if let Some(sid) = self.ws_accept(idx, protocol.as_deref(), b"", true) {
                let ws = self.conns[cid].ws.as_mut().expect("just upgraded");
                debug_assert_eq!(ws.sid, sid);
                ws.unadopted = true;
                // Frames sent right behind the handshake are read on (the phase is Ws now).
                return Step::Continue;
            }
            // Not upgraded (the server is closing): JS answers, as it would have.
        }
        let step = self.finish_request(idx);
        let conn = &mut self.conns[cid];
        conn.phase = Phase::Upgrade(idx);
        conn.read_paused = true;
        step
    }

    /// JS accepted upgrade request `idx` with subprotocol `protocol`: writes the 101, switches the
    /// connection to WebSocket and returns the socket id. None when the request cannot be upgraded any
    /// more (client gone, already answered, server shutting down). With `keep_head` the request's head is
    /// kept for JS to read later (`Server::ws_take_request`) instead of being read now.
    pub(crate) fn ws_accept(
        &mut self,
        idx: usize,
        protocol: Option<&[u8]>,
        extra_headers: &[u8],
        keep_head: bool,
    ) -> Option<u32> {
        if self.closing {
            return None;
        }
        let req = self.reqs.get(idx);
        let wr = req.ws_route?;
        if req.detached || req.reply.ended || req.reply.started {
            return None;
        }
        let cid = req.conn;
        if cid >= MAX_WS_CONNS || self.conns.get(cid)?.phase != Phase::Upgrade(idx) {
            return None;
        }
        let route = &self.ws.routes[wr as usize];
        let headers = req
            .headers
            .iter()
            .map(|h| (h.name.get(&req.head), h.value.get(&req.head)));
        let hs = gale_ws::parse_request(req.method.get(&req.head), req.minor, headers).ok()?;
        let deflate = match route.opts.compression {
            Compression::Off => None,
            Compression::Dedicated => gale_ws::negotiate(&hs.extensions, &route.opts.deflate),
            Compression::Shared => {
                // One compressed frame serves every subscriber only if no socket keeps a window of
                // what we sent and every client accepts our full window.
                let cfg = DeflateConfig {
                    server_no_context_takeover: true,
                    ..route.opts.deflate
                };
                gale_ws::negotiate(&hs.extensions, &cfg)
                    .filter(|p| p.server_max_window_bits == 15 && p.server_no_context_takeover)
            }
        };
        let max_payload = route.opts.max_payload;
        let conn = &mut self.conns[cid];
        gale_ws::write_response(&mut conn.wbuf, hs.key, protocol, deflate.as_ref());
        if !extra_headers.is_empty() {
            // The app's own header lines ("Name: value\r\n", checked by the binding) go before the
            // blank line that ends the 101.
            let end = conn.wbuf.len() - 2;
            conn.wbuf.truncate(end);
            conn.wbuf.extend_from_slice(extra_headers);
            conn.wbuf.extend_from_slice(b"\r\n");
        }
        drop(hs);
        self.ws.serial = self.ws.serial.wrapping_add(1);
        let sid = make_sid(self.ws.serial, cid);
        let kept = keep_head.then(|| crate::ws::head::keep(self.reqs.get(idx)));
        let conn = &mut self.conns[cid];
        conn.inflight.pop_front();
        conn.phase = Phase::Ws;
        conn.since = self.now;
        conn.read_paused = false;
        let mut ws = Box::new(WsConn::new(sid, wr, max_payload, deflate, self.now));
        ws.kept = kept;
        conn.ws = Some(ws);
        self.reqs.free(idx);
        self.deferred.push(cid);
        self.touch(cid);
        Some(sid)
    }
}

/// The subprotocol JS's upgrade step picks by default (the first one offered, trimmed), when the engine can be sure of
/// it: Err when the first token is not a plain RFC 9110 token (JS trims more kinds of whitespace, and reads bytes
/// over 0x7f as text), so JS decides those.
pub(crate) fn native_protocol<'a>(offered: &[&'a [u8]]) -> Result<Option<&'a [u8]>, ()> {
    match offered.first() {
        None => Ok(None),
        Some(t) if t.iter().all(|&b| is_tchar(b)) => Ok(Some(t)),
        Some(_) => Err(()),
    }
}

fn is_tchar(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b)
}

#[cfg(test)]
mod tests {
    use super::native_protocol;

    #[test]
    fn the_engine_picks_only_a_plain_first_token() {
        assert_eq!(native_protocol(&[]), Ok(None));
        assert_eq!(native_protocol(&[b"chat", b"x"]), Ok(Some(&b"chat"[..])));
        assert_eq!(
            native_protocol(&[b"v1.json+x"]),
            Ok(Some(&b"v1.json+x"[..]))
        );
        // Whitespace JS would trim and gale-ws does not, or text over 0x7f: JS picks.
        assert!(native_protocol(&[b"\x0bchat"]).is_err());
        assert!(native_protocol(&[b"ch\xc3\xa9"]).is_err());
        assert!(native_protocol(&[b"a b"]).is_err());
    }
}
