//! HTTP/2 in the engine (over TLS with ALPN `h2`, and cleartext with prior knowledge), on the same readiness
//! loop and the same request records as HTTP/1.1. The `h2` crate runs the protocol; it is polled with the
//! engine's own waker over an in-memory duplex (`pipe.rs`): what the socket brought goes in, the frames it writes
//! go to the connection's write buffer. Each stream becomes a request record whose head is the equivalent
//! HTTP/1.1 head (`gale_h2::request_head`), so routing, middleware and the whole JS request and response API are
//! unchanged; a response's head is built from its fields (`gale_h2::response`, the `ResponseHead` the HTTP/1.1
//! encoder takes too) into `Req::h2_head`, and its body bytes go out as DATA frames within the stream's
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
mod stream;

use std::collections::VecDeque;
use std::sync::Arc;
use std::task::{Context, Poll, Waker};

use bytes::Bytes;
use h2::server::{Connection, Handshake, SendResponse};
use h2::RecvStream;

use crate::engine::{Inner, Step};
use crate::request::Action;

use gale_h2::{Guard, GuardLimits};
use pipe::{Flag, Pipe};
use stream::Stream;

/// HTTP/2 settings of a server (`Server::set_http2`).
#[derive(Clone, Debug)]
pub struct H2Options {
    /// Streams a client may have open at once (SETTINGS_MAX_CONCURRENT_STREAMS). Default 100.
    pub max_concurrent_streams: u32,
    /// Each stream's receive window for request bodies (SETTINGS_INITIAL_WINDOW_SIZE). Default 256 KiB.
    pub initial_window_size: u32,
    /// The connection's receive window, shared by its streams. Default 1 MiB.
    pub connection_window_size: u32,
    /// Largest frame payload the client may send (SETTINGS_MAX_FRAME_SIZE). Default 16 KiB.
    pub max_frame_size: u32,
    /// Serve cleartext HTTP/2 with prior knowledge (h2c) on a listener without TLS. Default true.
    pub cleartext: bool,
    /// Serve HTTP/1.x on the listener too. Default true; false answers an HTTP/1.x request with 505 and closes.
    pub http1: bool,
}

impl Default for H2Options {
    fn default() -> Self {
        H2Options {
            max_concurrent_streams: 100,
            initial_window_size: 256 * 1024,
            connection_window_size: 1024 * 1024,
            max_frame_size: 16 * 1024,
            cleartext: true,
            http1: true,
        }
    }
}

/// The validated settings and the h2 builder made from them (cloned per connection).
pub(crate) struct Settings {
    pub opts: H2Options,
    builder: h2::server::Builder,
}

impl Settings {
    /// Checks the options and builds the h2 builder. `max_header_list` is the request head limit.
    pub fn new(opts: H2Options, max_header_list: usize) -> Result<Settings, String> {
        if opts.max_concurrent_streams == 0 {
            return Err("http2.maxConcurrentStreams must be at least 1".into());
        }
        if !(65_535..=(1 << 31) - 1).contains(&opts.initial_window_size) {
            return Err(format!(
                "http2.initialWindowSize must be between 65535 and 2147483647, not {}",
                opts.initial_window_size
            ));
        }
        if !(16_384..=(1 << 24) - 1).contains(&opts.max_frame_size) {
            return Err(format!(
                "http2.maxFrameSize must be between 16384 and 16777215, not {}",
                opts.max_frame_size
            ));
        }
        if !(65_535..=(1 << 31) - 1).contains(&opts.connection_window_size) {
            return Err(format!(
                "http2.connectionWindowSize must be between 65535 and 2147483647, not {}",
                opts.connection_window_size
            ));
        }
        let mut b = h2::server::Builder::new();
        b.max_concurrent_streams(opts.max_concurrent_streams)
            .initial_window_size(opts.initial_window_size)
            .initial_connection_window_size(opts.connection_window_size)
            .max_frame_size(opts.max_frame_size)
            .max_header_list_size(max_header_list.min(u32::MAX as usize) as u32)
            // Streams the client resets before we accept them, and resets h2 must send for the client's
            // protocol errors: past these the connection ends with ENHANCE_YOUR_CALM (CVE-2023-44487 class).
            .max_pending_accept_reset_streams(50)
            .max_local_error_reset_streams(Some(256))
            .max_concurrent_reset_streams(100);
        Ok(Settings { opts, builder: b })
    }
}

/// What the h2 connection object is doing.
enum State {
    /// Waiting for the client's preface and SETTINGS (ours are written already).
    Handshake(Handshake<Pipe, Bytes>),
    Open(Connection<Pipe, Bytes>),
    /// Closed (gracefully, or after an error whose GOAWAY is in the output).
    Done,
}

/// A connection that speaks HTTP/2 (`Conn::h2`; the connection's phase is `Phase::H2`).
pub(crate) struct H2Conn {
    pipe: Pipe,
    state: State,
    streams: Vec<Stream>,
    /// JS dispatches found in this round, handed out one per `h2_step` call.
    dispatch: VecDeque<(u32, u32)>,
    flag: Arc<Flag>,
    waker: Waker,
    guard: Guard,
    /// When the connection started (the handshake timeout counts from here), server ms.
    started_ms: u64,
    /// The last input or stream end: the idle timeout counts from here while no stream is open.
    active_ms: u64,
    /// A GOAWAY was asked for (server closing, or idle), at this time.
    goaway_ms: Option<u64>,
    /// The connection is over and its streams were let go (`Inner::h2_over` ran).
    over: bool,
    /// Where the next output round starts, so every stream gets its turn at the flush budget.
    cursor: usize,
    /// Scratch: indices of streams to remove after a pass.
    finished: Vec<usize>,
}

/// What accepting produced. (Only ever a return value, never stored: boxing the large variant would cost an
/// allocation per stream for nothing.)
#[allow(clippy::large_enum_variant)]
enum Accepted {
    Stream(http::Request<RecvStream>, SendResponse<Bytes>),
    Pending,
    /// The connection is over (the client closed it, an error ended it, or a graceful close finished).
    Gone,
}

impl H2Conn {
    fn new(settings: &Settings, now: u64) -> H2Conn {
        let pipe = Pipe::default();
        let (flag, waker) = Flag::new_waker();
        let hs = settings.builder.handshake(pipe.clone());
        H2Conn {
            pipe,
            state: State::Handshake(hs),
            streams: Vec::new(),
            dispatch: VecDeque::new(),
            flag,
            waker,
            guard: Guard::new(GuardLimits::default(), now),
            started_ms: now,
            active_ms: now,
            goaway_ms: None,
            over: false,
            cursor: 0,
            finished: Vec::new(),
        }
    }

    /// Advances the handshake, then takes the next stream the client opened.
    fn accept(&mut self) -> Accepted {
        let mut cx = Context::from_waker(&self.waker);
        loop {
            match &mut self.state {
                State::Handshake(hs) => match std::pin::Pin::new(hs).poll(&mut cx) {
                    Poll::Ready(Ok(c)) => self.state = State::Open(c),
                    Poll::Ready(Err(_)) => {
                        self.state = State::Done;
                        return Accepted::Gone;
                    }
                    Poll::Pending => return Accepted::Pending,
                },
                State::Open(c) => {
                    return match c.poll_accept(&mut cx) {
                        Poll::Ready(Some(Ok((req, respond)))) => Accepted::Stream(req, respond),
                        Poll::Ready(Some(Err(_)) | None) => {
                            self.state = State::Done;
                            Accepted::Gone
                        }
                        Poll::Pending => Accepted::Pending,
                    }
                }
                State::Done => return Accepted::Pending,
            }
        }
    }

    /// Lets h2 write what it has (frames of sent data, window updates, acks, GOAWAY). False once it is over.
    /// `woken()` then says whether h2 woke a task meanwhile (capacity assigned to a stream, say).
    fn drive(&mut self) -> bool {
        self.flag.take();
        let mut cx = Context::from_waker(&self.waker);
        match &mut self.state {
            State::Open(c) => match c.poll_closed(&mut cx) {
                Poll::Pending => true,
                Poll::Ready(_) => {
                    self.state = State::Done;
                    false
                }
            },
            State::Handshake(_) => true,
            State::Done => false,
        }
    }

    fn woken(&self) -> bool {
        self.flag.take()
    }

    fn is_done(&self) -> bool {
        matches!(self.state, State::Done)
    }

    fn position(&self, idx: usize) -> Option<usize> {
        self.streams.iter().position(|s| s.idx == idx)
    }
}

use std::future::Future;

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
                    req.streaming = st.body_open;
                    h2.dispatch.push_back((req.id(st.idx), route));
                }
            }
        }
        self.h2_pump(cid);
        self.touch(cid);
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
        let Some(idx) = self.reqs.alloc(cid) else {
            respond.send_reset(h2::Reason::REFUSED_STREAM);
            return;
        };
        let body_limit = self.cfg.body_limit;
        let req = self.reqs.get_mut(idx);
        gale_h2::request_head(&parts, &mut req.head);
        req.minor = 2;
        req.keep_alive = true;
        let parsed = gale_http::parse_head(&req.head, &self.cfg.limits, &mut self.hdr_scratch);
        let mut too_large = false;
        match parsed {
            Ok(Some(head)) => {
                req.headers.extend_from_slice(&self.hdr_scratch);
                req.method = head.method;
                req.target = head.target;
                req.path = head.path;
                req.query = head.query;
                req.head_only = head.method.get(&req.head) == b"HEAD";
                too_large = matches!(head.body, gale_http::BodyKind::Length(n) if n > body_limit);
                self.route(idx);
            }
            Ok(None) => self.h2_error(idx, &gale_http::Error::request_timeout()),
            Err(e) => self.h2_error(idx, &e),
        }
        if too_large {
            self.h2_error(idx, &gale_http::Error::body_too_large(body_limit));
        }
        let req = self.reqs.get_mut(idx);
        if let (Some(Action::Js(_)), Some(wr)) = (req.action, req.ws_route) {
            req.ws_route = None;
            match self.ws_routes[wr as usize].http {
                Some(js) => req.action = Some(Action::Js(js)),
                None => self.native_text(
                    idx,
                    426,
                    b"",
                    b"Upgrade Required: WebSockets are served over HTTP/1.1; open them on an HTTP/1.1 connection.",
                ),
            }
        }
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
                stream::answer_native(self.reqs.get_mut(idx));
            }
            _ => {
                st.stop_body();
                stream::answer_native(self.reqs.get_mut(idx));
            }
        }
        if let Some(h2) = self.conns[cid].h2.as_deref_mut() {
            h2.streams.push(st);
        }
    }

    /// Encodes an error answer for `idx` (bad head, limits) as its native response.
    fn h2_error(&mut self, idx: usize, err: &gale_http::Error) {
        crate::wire::native_error(self.reqs.get_mut(idx), true, &self.date, err);
    }

    /// Receives body data and resets for every stream.
    fn h2_receive(&mut self, cid: usize) {
        let now = self.now;
        let (h2, reqs, events, cfg, date) = h2_of!(self, cid, cfg, date);
        let Some(h2) = h2 else {
            return;
        };
        let mut cx = Context::from_waker(&h2.waker);
        h2.finished.clear();
        for (i, st) in h2.streams.iter_mut().enumerate() {
            if st.receive(reqs, events, cfg.body_limit, date, &mut cx) {
                h2.finished.push(i);
            }
        }
        h2.remove_finished(now);
    }
}

impl H2Conn {
    /// Drops the streams listed in `finished` (their records are already freed or detached).
    fn remove_finished(&mut self, now: u64) {
        if self.finished.is_empty() {
            return;
        }
        self.finished.sort_unstable();
        while let Some(i) = self.finished.pop() {
            self.streams.swap_remove(i);
        }
        if self.streams.is_empty() {
            self.active_ms = now;
        }
    }
}
