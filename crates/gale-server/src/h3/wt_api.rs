//! What JS asks of WebTransport sessions and streams (`Server::wt_*`, called by gale-node's wt.rs): accept a CONNECT,
//! open streams, write, end, reset, stop, pause, datagrams, close. Each borrows the endpoint's table (wt.rs) briefly;
//! the tasks of wt_io.rs do the I/O.

use std::rc::Rc;

use bytes::Bytes;

use super::wt::{refuse, StreamRec, WtRecv, WtSend, HIGH_WATER, MAX_BUFFERED};
use super::{wt_io, Ctx};
use crate::{Server, WtStatus};

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
            wt_io::deliver(&ctx, key, &conn, stream, send, recv);
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
        exec.spawn(wt_io::open(ctx.clone(), id, conn, h3_id, bidi));
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
        // Refused only for a writer that went on past `Buffered` (node:streams wait for the drain): one large write
        // to a stream with little queued goes in whole.
        if s.out_len > HIGH_WATER && s.out_len + data.len() > MAX_BUFFERED {
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
