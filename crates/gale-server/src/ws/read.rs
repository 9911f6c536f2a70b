//! The read side of an upgraded connection: frames decoded by gale-ws, messages handed to JS through
//! `Step::WsMessage`, pings answered, close frames answered, and protocol errors closed with their code.

use gale_ws::{CloseError, Event as Frame, Opcode};

use crate::conn::Phase;
use crate::engine::{Inner, Step};
use crate::Event;

/// Capacity of a socket's message buffers kept between messages.
const KEEP_BUFFER: usize = 64 * 1024;

impl Inner {
    /// Decodes frames from `data[*pos..]` until a message is complete (returned for JS) or input runs out.
    pub(crate) fn ws_step(&mut self, cid: usize, data: &[u8], pos: &mut usize) -> Step {
        let now = self.now;
        loop {
            let Some(conn) = self.conns.get_mut(cid) else {
                return Step::Stop;
            };
            if conn.phase != Phase::Ws {
                *pos = data.len();
                return Step::Stop;
            }
            let avail = &data[*pos..];
            if avail.is_empty() {
                return Step::Stop;
            }
            let Some(ws) = conn.ws.as_mut() else {
                return Step::Stop;
            };
            let (n, ev) = match ws.decoder.decode(avail) {
                Ok(r) => r,
                Err(e) => {
                    *pos = data.len();
                    self.ws_fail(cid, e);
                    return Step::Stop;
                }
            };
            *pos += n;
            if n > 0 {
                ws.last_recv = now;
                ws.ping_after = 0;
            }
            match ev {
                None if n == 0 => return Step::Stop,
                None => {}
                Some(Frame::Text) | Some(Frame::Binary) => {
                    if ws.close_sent {
                        // Closing: data that crosses our close frame is dropped (RFC 6455 5.5.1).
                        continue;
                    }
                    let binary = ev == Some(Frame::Binary);
                    let sid = ws.sid;
                    let payload = ws.decoder.take_payload();
                    return Step::WsMessage {
                        cid,
                        sid,
                        binary,
                        payload,
                    };
                }
                Some(Frame::Ping) if !ws.close_sent => {
                    let payload = ws.decoder.payload();
                    gale_ws::write_frame(&mut conn.wbuf, Opcode::Pong, payload, false, None);
                    self.touch(cid);
                }
                Some(Frame::Ping) | Some(Frame::Pong) => {}
                Some(Frame::Close { code }) => {
                    let reason = ws.decoder.payload().to_vec();
                    ws.set_close(code, &reason);
                    // Echo the peer's code (none when it sent none), then close our side.
                    let echo = if code == 1005 { None } else { Some(code) };
                    *pos = data.len();
                    self.ws_send_close(cid, echo, b"");
                    return Step::Stop;
                }
            }
        }
    }

    /// Gives the message buffer back to the decoder after JS has seen it (keeps its capacity).
    pub(crate) fn ws_restore(&mut self, cid: usize, sid: u32, payload: Vec<u8>) {
        if let Some(ws) = self.conns.get_mut(cid).and_then(|c| c.ws.as_mut()) {
            // A rare big message's buffer is not kept: thousands of sockets would each hold one.
            if ws.sid == sid && payload.capacity() <= KEEP_BUFFER {
                ws.decoder.restore_payload(payload);
            }
        }
    }

    /// Bad input: close with the error's code and reason; JS hears the same.
    pub(crate) fn ws_fail(&mut self, cid: usize, e: CloseError) {
        if let Some(ws) = self.conns.get_mut(cid).and_then(|c| c.ws.as_mut()) {
            ws.set_close(e.code, e.reason.as_bytes());
        }
        self.ws_send_close(cid, Some(e.code), e.reason.as_bytes());
    }

    /// Sends our close frame (once), stops reading frames and closes the connection once output is
    /// flushed (lingering briefly so the client reads the frame rather than a reset).
    pub(crate) fn ws_send_close(&mut self, cid: usize, code: Option<u16>, reason: &[u8]) {
        let Some(conn) = self.conns.get_mut(cid) else {
            return;
        };
        let Some(ws) = conn.ws.as_mut() else {
            return;
        };
        if !ws.close_sent {
            ws.close_sent = true;
            match code {
                Some(code) => {
                    ws.set_close(code, reason);
                    gale_ws::write_close(&mut conn.wbuf, code, reason, None);
                }
                None => gale_ws::write_frame(&mut conn.wbuf, Opcode::Close, b"", false, None),
            }
        }
        conn.phase = Phase::Done;
        conn.close_after_flush = true;
        conn.read_paused = false;
        self.touch(cid);
    }

    /// The connection of a socket is being removed: forget its topics and, when `tell`, tell JS how it ended.
    pub(crate) fn ws_closed(&mut self, ws: crate::ws::WsConn, tell: bool) {
        if ws.subscribed {
            if self.ws.watch_topics {
                let events = &mut self.events;
                self.ws.topics.remove_all_reporting(ws.sid, |name| {
                    events.push_back(Event::Topic {
                        name: name.into(),
                        active: false,
                    })
                });
            } else {
                self.ws.topics.remove_all(ws.sid);
            }
        }
        if tell {
            self.events.push_back(Event::WsClose {
                sid: ws.sid,
                code: ws.close_code,
                reason: ws.close_reason,
            });
        }
    }

    /// Idle sockets: ping at half the idle timeout (when enabled), close once the timeout passed (and, with pings, half
    /// of it since the unanswered ping), at the tick after the one that found it so.
    pub(crate) fn ws_tick(&mut self) {
        let now = self.now;
        let mut ping = Vec::new();
        let mut expired = Vec::new();
        for (cid, c) in self.conns.iter_mut() {
            let Some(ws) = c.ws.as_mut() else { continue };
            if c.phase != Phase::Ws {
                continue;
            }
            ws.decoder.shrink_buffers(KEEP_BUFFER);
            // An idle socket keeps no buffers: the output buffer (still sized for the 101 or the last
            // burst) and the request queue of its HTTP days are freed once empty. A busy socket
            // allocates its output buffer again at most once per tick.
            if c.wbuf.is_empty() && c.wbuf.capacity() != 0 {
                c.wbuf = Vec::new();
                c.wpos = 0;
            }
            if c.inflight.is_empty() && c.inflight.capacity() != 0 {
                c.inflight = std::collections::VecDeque::new();
            }
            let opts = &self.ws.routes[ws.route as usize].opts;
            if opts.idle_timeout_ms == 0 {
                continue;
            }
            let quiet = now.saturating_sub(ws.last_recv);
            let half = opts.idle_timeout_ms / 2;
            let pinged = ws.ping_after != 0;
            if opts.send_pings && !pinged && quiet > half {
                // Pinged even when this tick comes past the timeout (the process was busy or starved): a client is
                // closed only for a ping it had half the timeout to answer.
                ws.expiring = false;
                ping.push(cid);
            } else if quiet > opts.idle_timeout_ms
                && (!pinged || quiet.saturating_sub(u64::from(ws.ping_after)) > half)
            {
                // Closed at the next tick if still quiet, not at this one: the loop's poll phase runs between the
                // two and reads what the client sent while this process was not running.
                if ws.expiring {
                    expired.push(cid);
                } else {
                    ws.expiring = true;
                }
            } else {
                ws.expiring = false;
            }
        }
        for cid in ping {
            let conn = &mut self.conns[cid];
            if let Some(ws) = conn.ws.as_mut() {
                // At least 1: quiet > half (a quiet time past u32's 49 days is kept as that).
                ws.ping_after = u32::try_from(self.now.saturating_sub(ws.last_recv))
                    .unwrap_or(u32::MAX)
                    .max(1);
                gale_ws::write_frame(&mut conn.wbuf, Opcode::Ping, b"", false, None);
                self.touch(cid);
            }
        }
        for cid in expired {
            self.ws_send_close(
                cid,
                Some(1001),
                b"Idle timeout: nothing received (not even a pong) within idleTimeout",
            );
        }
    }
}
