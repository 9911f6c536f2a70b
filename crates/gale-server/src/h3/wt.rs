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
use crate::{Event, WtEvent};

/// The send half of a WebTransport stream, and its receive half (h3's, which keeps bytes read past the header).
pub(super) type WtSend = BufRecvStream<h3_quinn::SendStream<Bytes>, Bytes>;
pub(super) type WtRecv = BufRecvStream<h3_quinn::RecvStream, Bytes>;

/// Output buffered for a stream above which a write says `Buffered` (and a drain event follows).
pub(super) const HIGH_WATER: usize = 64 * 1024;
/// Output buffered for a stream above which a write is refused (`Dropped`) when the writer already heard `Buffered`
/// and went on: a client that never reads cannot make the server hold more.
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
            inner.events.push_back(Event::Wt(Box::new(e)));
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
