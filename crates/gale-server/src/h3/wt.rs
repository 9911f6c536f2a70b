//! WebTransport on the HTTP/3 listener: the sessions and streams JS names by id, what JS asks of them (`Server::wt_*`)
//! and what they tell JS (`WtEvent`). The session layer (limits, held streams, codes) is gale-wt's sans-IO
//! `Sessions`, one per connection; the tasks that move bytes are in wt_io.rs.

use std::cell::RefCell;
use std::collections::{HashMap, VecDeque};
use std::rc::Rc;
use std::task::Waker;

use bytes::Bytes;
use gale_wt::session::{codes, Sessions};
use h3::stream::BufRecvStream;

use super::Ctx;
use crate::{Event, Server, WtEvent, WtStatus};

/// The send half of a WebTransport stream, and its receive half (h3's, which keeps bytes read past the header).
pub(super) type WtSend = BufRecvStream<h3_quinn::SendStream<Bytes>, Bytes>;
pub(super) type WtRecv = BufRecvStream<h3_quinn::RecvStream, Bytes>;

/// Output buffered for a stream above which a write says `Buffered` (and a drain event follows).
pub(super) const HIGH_WATER: usize = 64 * 1024;
/// Output buffered for a stream above which a write is refused (`Dropped`): a client that never reads cannot make
/// the server hold more.
pub(super) const MAX_BUFFERED: usize = 4 * 1024 * 1024;

/// One QUIC connection's WebTransport state, shared by its task and its sessions' and streams' tasks.
pub(super) struct WtConn {
    pub sessions: Sessions,
    /// Each session's id for JS, by its CONNECT stream's ID.
    pub keys: HashMap<u64, u32>,
    /// Streams the client opened before their session was accepted, by stream ID: their session and halves.
    pub held: HashMap<u64, (u64, Option<WtSend>, WtRecv)>,
    pub quic: quinn::Connection,
    /// Opens the server's streams on this connection.
    pub opener: h3_quinn::OpenStreams,
    /// The session layer's clock starts here (held streams' times are ms since).
    pub epoch: std::time::Instant,
}

/// A session, from its CONNECT to its end.
pub(super) struct SessionRec {
    pub conn: Rc<RefCell<WtConn>>,
    /// Its CONNECT stream's ID.
    pub h3_id: u64,
    /// JS accepted it (the 200 goes out).
    pub accepted: bool,
    /// JS closed it: the CLOSE capsule's code and reason, to send.
    pub close: Option<(u32, String)>,
    /// A DRAIN capsule to send (the server is closing).
    pub drain: bool,
    /// Its task (the CONNECT stream's).
    pub waker: Option<Waker>,
}

/// A stream of a session, the client's or the server's.
#[derive(Default)]
pub(super) struct StreamRec {
    pub session: u32,
    /// The session's CONNECT stream ID (the session layer's name for it).
    pub session_h3: u64,
    /// Its QUIC stream ID once open (the client's at once; the server's once quinn opened it).
    pub quic_id: Option<u64>,
    /// The stream has a send half (bidirectional, or the server's unidirectional).
    pub sends: bool,
    /// Bytes JS wrote that are not handed to QUIC yet.
    pub out: VecDeque<Bytes>,
    pub out_len: usize,
    /// JS ended its sending (FIN after `out`).
    pub fin: bool,
    /// JS reset its sending, or stopped the client's, with these HTTP/3 codes.
    pub reset: Option<u64>,
    pub stop: Option<u64>,
    /// JS is not reading: the task stops taking bytes, so QUIC's flow control stops the client.
    pub paused: bool,
    /// A write said `Buffered`: a drain event is owed.
    pub want_drain: bool,
    /// The send half is gone (finished, reset, or stopped by the client).
    pub send_done: bool,
    pub waker: Option<Waker>,
}

/// Every session and stream of one HTTP/3 endpoint, by their ids for JS.
#[derive(Default)]
pub(super) struct WtTable {
    next: u32,
    pub sessions: HashMap<u32, SessionRec>,
    pub streams: HashMap<u32, StreamRec>,
}

impl WtTable {
    /// A fresh id for a session or stream (never 0, not reused before 2^32 more).
    pub fn id(&mut self) -> u32 {
        self.next = self.next.wrapping_add(1).max(1);
        self.next
    }
}

/// Hands `evs` to JS (at the end of this loop turn, as the engine's own events).
pub(super) fn emit(ctx: &Ctx, evs: impl IntoIterator<Item = WtEvent>) {
    let Some(server) = ctx.server.upgrade() else {
        return;
    };
    let mut any = false;
    {
        let mut inner = server.inner.borrow_mut();
        for e in evs {
            inner.events.push_back(Event::Wt(e));
            any = true;
        }
    }
    if any {
        server.after_call();
    }
}

/// Ends session `key`: its streams are reset and stopped (SESSION_GONE), held ones refused, and JS hears `Close`.
pub(super) fn end_session(ctx: &Ctx, key: u32, code: u32, reason: &[u8]) {
    let mut table = ctx.wt.borrow_mut();
    let Some(rec) = table.sessions.remove(&key) else {
        return;
    };
    let mut gone = Vec::new();
    {
        let mut conn = rec.conn.borrow_mut();
        conn.keys.remove(&rec.h3_id);
        conn.sessions.end(rec.h3_id, &mut gone);
        for id in gone {
            if let Some((_, send, mut recv)) = conn.held.remove(&id) {
                refuse(send, &mut recv, codes::SESSION_GONE);
            }
        }
    }
    for s in table.streams.values_mut().filter(|s| s.session == key) {
        s.reset.get_or_insert(codes::SESSION_GONE);
        s.stop.get_or_insert(codes::SESSION_GONE);
        s.out.clear();
        s.out_len = 0;
        if let Some(w) = &s.waker {
            w.wake_by_ref();
        }
    }
    drop(table);
    if !rec.accepted {
        return;
    }
    if let Some(server) = ctx.server.upgrade() {
        let mut inner = server.inner.borrow_mut();
        inner.wt_sessions -= 1;
        inner.maybe_finished();
    }
    emit(
        ctx,
        [WtEvent::Close {
            session: key,
            code,
            reason: reason.into(),
        }],
    );
}

/// Refuses a stream: its send half reset and its receive half stopped with `code`.
pub(super) fn refuse(send: Option<WtSend>, recv: &mut WtRecv, code: u64) {
    use h3::quic::{RecvStream, SendStream};
    if let Some(mut s) = send {
        s.reset(code);
    }
    recv.stop_sending(code);
}

impl Server {
    /// The endpoint's shared state, while HTTP/3 serves.
    fn wt_ctx(&self) -> Option<Rc<Ctx>> {
        self.quic.borrow().as_ref().map(|q| q.ctx.clone())
    }

    /// Accepts request `id`, a WebTransport CONNECT (HTTP/3 extended CONNECT with `:protocol` webtransport) a JS
    /// route is answering: the session's id, or None when `id` is no such request or can no longer be accepted. The
    /// 200 goes out from the stream's task; streams the client opened meanwhile are delivered after this returns.
    pub fn wt_accept(&self, id: u32) -> Option<u32> {
        let ctx = self.wt_ctx()?;
        let key = {
            let mut inner = self.inner.borrow_mut();
            let idx = inner.reqs.lookup(id)?;
            inner.pulled_wt_accept(idx)?
        };
        self.after_call();
        let mut table = ctx.wt.borrow_mut();
        let rec = table.sessions.get_mut(&key)?;
        rec.accepted = true;
        let (conn, h3_id) = (rec.conn.clone(), rec.h3_id);
        if let Some(w) = &rec.waker {
            w.wake_by_ref();
        }
        drop(table);
        let (mut out, mut refused) = (Vec::new(), Vec::new());
        let delivered: Vec<(u64, Option<WtSend>, WtRecv)> = {
            let mut c = conn.borrow_mut();
            c.sessions.accept(h3_id, &mut out, &mut refused);
            for (stream, code) in refused {
                if let Some((_, send, mut recv)) = c.held.remove(&stream) {
                    refuse(send, &mut recv, code);
                }
            }
            out.iter()
                .filter_map(|s| c.held.remove(s).map(|(_, send, recv)| (*s, send, recv)))
                .collect()
        };
        for (stream, send, recv) in delivered {
            super::wt_io::deliver(&ctx, key, &conn, stream, send, recv);
        }
        Some(key)
    }

    /// Opens a stream in session `session` (`bidi`: both ways; else the server sends only): its id, at once (writes
    /// wait in its buffer until QUIC lets the stream open), or None when the session is gone.
    pub fn wt_open(&self, session: u32, bidi: bool) -> Option<u32> {
        let ctx = self.wt_ctx()?;
        let mut table = ctx.wt.borrow_mut();
        let rec = table
            .sessions
            .get(&session)
            .filter(|r| r.accepted && r.close.is_none())?;
        let (conn, h3_id) = (rec.conn.clone(), rec.h3_id);
        let id = table.id();
        table.streams.insert(
            id,
            StreamRec {
                session,
                session_h3: h3_id,
                sends: true,
                ..StreamRec::default()
            },
        );
        drop(table);
        let exec = ctx.exec.upgrade()?;
        exec.spawn(super::wt_io::open(ctx.clone(), id, conn, h3_id, bidi));
        Some(id)
    }

    /// Writes `data` to stream `stream`, then ends its sending when `fin`.
    pub fn wt_write(&self, stream: u32, data: &[u8], fin: bool) -> WtStatus {
        let Some(ctx) = self.wt_ctx() else {
            return WtStatus::Closed;
        };
        let mut table = ctx.wt.borrow_mut();
        let Some(s) = table.streams.get_mut(&stream) else {
            return WtStatus::Closed;
        };
        if !s.sends || s.fin || s.send_done || s.reset.is_some() {
            return WtStatus::Closed;
        }
        if s.out_len + data.len() > MAX_BUFFERED {
            return WtStatus::Dropped;
        }
        if !data.is_empty() {
            s.out.push_back(Bytes::copy_from_slice(data));
            s.out_len += data.len();
        }
        s.fin = fin;
        if let Some(w) = &s.waker {
            w.wake_by_ref();
        }
        if s.out_len > HIGH_WATER {
            s.want_drain = true;
            WtStatus::Buffered
        } else {
            WtStatus::Sent
        }
    }

    /// Resets stream `stream`'s sending (`stop` false) or stops the client's (`stop` true) with WebTransport
    /// error code `code`.
    pub fn wt_reset(&self, stream: u32, code: u32, stop: bool) {
        let Some(ctx) = self.wt_ctx() else { return };
        let mut table = ctx.wt.borrow_mut();
        let Some(s) = table.streams.get_mut(&stream) else {
            return;
        };
        let code = gale_wt::stream::to_http3(code);
        if stop {
            s.stop.get_or_insert(code);
        } else if s.sends && !s.send_done {
            s.reset.get_or_insert(code);
            s.out.clear();
            s.out_len = 0;
        }
        if let Some(w) = &s.waker {
            w.wake_by_ref();
        }
    }

    /// Stops (`paused`) or resumes taking the client's bytes on stream `stream`.
    pub fn wt_pause(&self, stream: u32, paused: bool) {
        let Some(ctx) = self.wt_ctx() else { return };
        let mut table = ctx.wt.borrow_mut();
        if let Some(s) = table.streams.get_mut(&stream) {
            s.paused = paused;
            if let (false, Some(w)) = (paused, &s.waker) {
                w.wake_by_ref();
            }
        }
    }

    /// Sends a datagram in session `session`: `Dropped` when it is larger than the path takes (see
    /// `wt_max_datagram`) or the client does not take datagrams.
    pub fn wt_datagram(&self, session: u32, data: &[u8]) -> WtStatus {
        let Some(ctx) = self.wt_ctx() else {
            return WtStatus::Closed;
        };
        let table = ctx.wt.borrow();
        let Some(rec) = table
            .sessions
            .get(&session)
            .filter(|r| r.accepted && r.close.is_none())
        else {
            return WtStatus::Closed;
        };
        let mut buf = Vec::with_capacity(data.len() + 8);
        gale_wt::stream::encode_datagram_prefix(rec.h3_id, &mut buf);
        buf.extend_from_slice(data);
        let sent = rec.conn.borrow().quic.send_datagram(buf.into());
        match sent {
            Ok(()) => WtStatus::Sent,
            Err(quinn::SendDatagramError::ConnectionLost(_)) => WtStatus::Closed,
            Err(_) => WtStatus::Dropped,
        }
    }

    /// The largest datagram payload session `session` can send now (0 when none).
    pub fn wt_max_datagram(&self, session: u32) -> usize {
        let Some(ctx) = self.wt_ctx() else { return 0 };
        let table = ctx.wt.borrow();
        let Some(rec) = table.sessions.get(&session) else {
            return 0;
        };
        let mut prefix = Vec::new();
        gale_wt::stream::encode_datagram_prefix(rec.h3_id, &mut prefix);
        let max = rec.conn.borrow().quic.max_datagram_size();
        max.map_or(0, |m| m.saturating_sub(prefix.len()))
    }

    /// Closes session `session` with `code` and `reason` (a CLOSE_WEBTRANSPORT_SESSION capsule, then the end of its
    /// CONNECT stream); its streams are reset. JS hears `Close` with them.
    pub fn wt_close(&self, session: u32, code: u32, reason: &str) {
        let Some(ctx) = self.wt_ctx() else { return };
        let mut table = ctx.wt.borrow_mut();
        if let Some(rec) = table.sessions.get_mut(&session) {
            rec.close.get_or_insert_with(|| (code, reason.to_owned()));
            if let Some(w) = &rec.waker {
                w.wake_by_ref();
            }
        }
    }
}

/// How long sessions may wind down after a graceful close's DRAIN before the server closes them.
const DRAIN_MS: u64 = 5_000;

impl Ctx {
    /// The server closes gracefully: each accepted session gets a DRAIN capsule, and JS hears `Draining`; sessions
    /// still open `DRAIN_MS` later are closed (code 0, "server is shutting down"), so the close ends.
    pub(super) fn wt_drain_all(self: &Rc<Self>) {
        if let Some(exec) = self.exec.upgrade() {
            let mut timer =
                exec.timer(std::time::Instant::now() + std::time::Duration::from_millis(DRAIN_MS));
            let ctx = self.clone();
            exec.spawn(async move {
                std::future::poll_fn(|cx| timer.as_mut().poll(cx)).await;
                for rec in ctx.wt.borrow_mut().sessions.values_mut() {
                    if rec.accepted && rec.close.is_none() {
                        rec.close = Some((0, "server is shutting down".into()));
                        if let Some(w) = &rec.waker {
                            w.wake_by_ref();
                        }
                    }
                }
            });
        }
        let mut evs = Vec::new();
        for (&key, rec) in self.wt.borrow_mut().sessions.iter_mut() {
            if rec.accepted && rec.conn.borrow_mut().sessions.drain(rec.h3_id) {
                rec.drain = true;
                evs.push(WtEvent::Draining(key));
                if let Some(w) = &rec.waker {
                    w.wake_by_ref();
                }
            }
        }
        emit(self, evs);
    }
}
