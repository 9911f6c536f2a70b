//! HTTP/2 in the engine (over TLS with ALPN `h2`, and cleartext with prior knowledge), on the same readiness
//! loop and the same request records as HTTP/1.1. The `h2` crate runs the protocol; it is polled with the
//! engine's own waker over an in-memory duplex (`pipe.rs`): what the socket brought goes in, the frames it writes
//! go to the connection's write buffer. Each stream becomes a request record whose head is the equivalent
//! HTTP/1.1 head (`gale_h2::request_head`), so routing, middleware and the whole JS request and response API are
//! unchanged; a response's head is built from its fields (`gale_h2::response`, the `ResponseHead` the HTTP/1.1
//! encoder takes too) into `Reply::h2_head` (`Req::reply`), and its body bytes go out as DATA frames within the stream's
//! flow-control window (`stream.rs`). `gale_h2::Guard` cuts off floods.
//!
//! Where each part runs: `Inner::h2_step` (from the parse loop) feeds input, accepts streams, receives bodies and
//! queues JS dispatches; `Inner::h2_flush` (the connection's flush) moves response bytes into h2 and frames to the
//! socket; `io.rs` has the hooks for closing, timeouts and the response API. (Inside this module `h2::` names
//! the h2 crate; the rest of the engine names this module `crate::h2`.)

/// Borrows connection `$cid`'s HTTP/2 state (None: gone, or not HTTP/2) apart from the request records, the event
/// queue and any further named fields of `Inner`, so all can be used together.
macro_rules! h2_of {
    ($inner:expr, $cid:expr $(, $field:ident)*) => {{
        let crate::engine::Inner { conns, reqs, events, $($field,)* .. } = &mut *$inner;
        (conns.get_mut($cid).and_then(|c| c.h2.as_deref_mut()), reqs, events $(, $field)*)
    }};
}

mod io;
mod pipe;
mod send;
pub(crate) mod state;
mod stream;
mod tunnel;
mod websocket;

use bytes::Bytes;
use h2::server::SendResponse;
use h2::RecvStream;

use crate::engine::{Inner, Step};
use crate::request::Action;

use state::{Accepted, H2Conn, State};
use stream::Stream;

impl Inner {
    /// Switches connection `cid` to HTTP/2: its input starts with the client's connection preface.
    pub(crate) fn start_h2(&mut self, cid: usize) {
        let now = self.now;
        let Some(settings) = self.h2.as_deref() else {
            return;
        };
        let h2 = Box::new(H2Conn::new(settings, now));
        if let Some(conn) = self.conns.get_mut(cid) {
            conn.h2 = Some(h2);
            conn.phase = crate::conn::Phase::H2;
            conn.partial = false;
            conn.since = now;
        }
    }

    /// What a fresh connection's first bytes are, when HTTP/2 is served on it (None when it is not, or the
    /// connection has a request in flight).
    pub(crate) fn h2_preface(&self, cid: usize, avail: &[u8]) -> Option<gale_h2::Preface> {
        let settings = self.h2.as_deref()?;
        let conn = self.conns.get(cid)?;
        if !conn.inflight.is_empty() || (conn.tls.is_none() && !settings.opts.cleartext) {
            return None;
        }
        Some(gale_h2::preface(avail))
    }

    /// The parse-loop step of an HTTP/2 connection: hands out queued JS dispatches one by one; with none left,
    /// feeds the input to h2 and runs a round (streams accepted, bodies received, answers and output).
    pub(crate) fn h2_step(&mut self, cid: usize, data: &[u8], pos: &mut usize) -> Step {
        let now = self.now;
        let Some(h2) = self.conns.get_mut(cid).and_then(|c| c.h2.as_deref_mut()) else {
            *pos = data.len();
            return Step::Stop;
        };
        if let Some((id, route)) = h2.dispatch.pop_front() {
            return Step::Dispatch(id, route);
        }
        let avail = &data[*pos..];
        *pos = data.len();
        if avail.is_empty() {
            return Step::Stop;
        }
        h2.active_ms = now;
        match h2.guard.scan(avail, now) {
            Ok(()) => h2.pipe.push_input(avail),
            Err(_) => {
                // A flood: GOAWAY(ENHANCE_YOUR_CALM), and the connection ends once it is written.
                if let State::Open(c) = &mut h2.state {
                    c.abrupt_shutdown(h2::Reason::ENHANCE_YOUR_CALM);
                }
                h2.drive();
                h2.state = State::Done;
            }
        }
        self.h2_round(cid);
        match self
            .conns
            .get_mut(cid)
            .and_then(|c| c.h2.as_deref_mut())
            .and_then(|h| h.dispatch.pop_front())
        {
            Some((id, route)) => Step::Dispatch(id, route),
            None => Step::Stop,
        }
    }

    /// One round after input: accept new streams, receive body data and resets, decide dispatches, send.
    fn h2_round(&mut self, cid: usize) {
        loop {
            let Some(h2) = self.conns.get_mut(cid).and_then(|c| c.h2.as_deref_mut()) else {
                return;
            };
            if h2.is_done() {
                break;
            }
            match h2.accept() {
                Accepted::Stream(req, respond) => self.h2_accept(cid, req, respond),
                Accepted::Pending => break,
                Accepted::Gone => break,
            }
        }
        self.h2_receive(cid);
        // Requests whose body is still on its way start now and read the rest as it comes.
        if let Some(h2) = self.conns.get_mut(cid).and_then(|c| c.h2.as_deref_mut()) {
            for st in &mut h2.streams {
                if let Some(route) = st.pending.take() {
                    let req = self.reqs.get_mut(st.idx);
                    req.js_owned = true;
                    req.body_in.streaming = st.body_open;
                    h2.dispatch.push_back((req.id(st.idx), route));
                }
            }
        }
        // The connection's flush (at the end of the batch) pumps: what this round's frames queued (acks, window
        // updates, native answers) leaves with whatever JS answers in the same batch, after one poll instead of two.
        // A round that only fed WebSocket streams has nothing to flush until their answers come.
        if self
            .conns
            .get(cid)
            .and_then(|c| c.h2.as_deref())
            .is_some_and(H2Conn::wants_flush)
        {
            self.touch(cid);
        }
    }

    /// A new stream: its request record, routed like an HTTP/1.1 request; native answers are made now.
    fn h2_accept(
        &mut self,
        cid: usize,
        request: http::Request<RecvStream>,
        mut respond: SendResponse<Bytes>,
    ) {
        let now = self.now;
        let (parts, recv) = request.into_parts();
        if parts.method == http::Method::CONNECT
            && parts
                .extensions
                .get::<h2::ext::Protocol>()
                .is_some_and(|p| p.as_str().eq_ignore_ascii_case("websocket"))
        {
            return self.h2_tunnel(cid, parts, recv, respond);
        }
        let Some(idx) = self.reqs.alloc(cid) else {
            respond.send_reset(h2::Reason::REFUSED_STREAM);
            return;
        };
        self.stream_request(idx, &parts, 2);
        let end_stream = recv.is_end_stream();
        let mut st = Stream::new(idx, respond, (!end_stream).then_some(recv), now);
        match self.reqs.get(idx).action {
            Some(Action::Js(route)) if end_stream => {
                let req = self.reqs.get_mut(idx);
                req.js_owned = true;
                let id = req.id(idx);
                if let Some(h2) = self.conns[cid].h2.as_deref_mut() {
                    h2.dispatch.push_back((id, route));
                }
            }
            Some(Action::Js(route)) => {
                st.pending = Some(route);
                if self
                    .reqs
                    .get(idx)
                    .header(b"expect")
                    .is_some_and(|v| v.eq_ignore_ascii_case(b"100-continue"))
                {
                    st.continue_100();
                }
            }
            Some(Action::Static(m)) => {
                let tail = self.reqs.get(idx).params[0].span;
                self.serve_static(idx, m as usize, tail);
                st.stop_body();
                self.reqs.get_mut(idx).answer_native();
            }
            _ => {
                st.stop_body();
                self.reqs.get_mut(idx).answer_native();
            }
        }
        if let Some(h2) = self.conns[cid].h2.as_deref_mut() {
            h2.streams.push(st);
        }
    }

    /// Receives body data and resets for every stream.
    fn h2_receive(&mut self, cid: usize) {
        let now = self.now;
        let (h2, reqs, events, cfg, date) = h2_of!(self, cid, cfg, date);
        let Some(h2) = h2 else {
            return;
        };
        // What a stream receives (data, its end, a reset) comes with input, and every round after input looks at
        // every stream here (Stream::receive says which waker each poll leaves).
        h2.finished.clear();
        for (i, st) in h2.streams.iter_mut().enumerate() {
            if st.receive(reqs, events, cfg.body_limit, date, &h2.swaker) {
                h2.finished.push(i);
            }
        }
        h2.remove_finished(now);
        self.h2_tunnels_receive(cid);
    }
}
