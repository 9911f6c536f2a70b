//! The write side of WebSockets: frames into the connection's corked output, permessage-deflate,
//! the `maxBackpressure` policy, and publish, which builds each frame once for all subscribers.

use gale_ws::{Deflater, Opcode};

use crate::engine::Inner;
use crate::ws::{sid_cid, Compression, SendResult};

/// What a message to one socket costs before it is written: its state decides the policy.
enum Gate {
    Open,
    Closed,
    Over,
}

impl Inner {
    fn ws_gate(&mut self, sid: u32) -> Gate {
        let Some(conn) = self.conns.get(sid_cid(sid)) else {
            return Gate::Closed;
        };
        match conn.ws.as_ref() {
            Some(ws) if ws.sid == sid && !ws.close_sent => {
                let opts = &self.ws.routes[ws.route as usize].opts;
                if conn.pending() >= opts.max_backpressure {
                    Gate::Over
                } else {
                    Gate::Open
                }
            }
            _ => Gate::Closed,
        }
    }

    /// Applies the backpressure policy to a socket over its limit.
    fn ws_over_limit(&mut self, sid: u32) {
        let cid = sid_cid(sid);
        let close = self.conns[cid].ws.as_ref().is_some_and(|ws| {
            self.ws.routes[ws.route as usize]
                .opts
                .close_on_backpressure_limit
        });
        if close {
            self.ws_send_close(
                cid,
                Some(1008),
                b"Backpressure limit exceeded: the client does not read fast enough",
            );
        }
    }

    /// After output was added: flush (corked in a batch) and report whether it is above the high-water mark.
    fn ws_after_write(&mut self, cid: usize, sid: u32) -> SendResult {
        self.touch(cid);
        let hwm = self.cfg.high_water_mark;
        match self.conns.get_mut(cid) {
            Some(conn) if conn.pending() > hwm => {
                if let Some(ws) = conn.ws.as_mut().filter(|w| w.sid == sid) {
                    ws.want_drain = true;
                }
                SendResult::Buffered
            }
            Some(_) => SendResult::Sent,
            None => SendResult::Closed,
        }
    }

    /// Sends one message of `len` bytes written by `fill`.
    pub(crate) fn ws_send(
        &mut self,
        sid: u32,
        binary: bool,
        compress: bool,
        len: usize,
        fill: impl FnOnce(&mut Vec<u8>),
    ) -> SendResult {
        match self.ws_gate(sid) {
            Gate::Closed => return SendResult::Closed,
            Gate::Over => {
                self.ws_over_limit(sid);
                return SendResult::Dropped;
            }
            Gate::Open => {}
        }
        let cid = sid_cid(sid);
        let opcode = if binary { Opcode::Binary } else { Opcode::Text };
        let conn = &mut self.conns[cid];
        let ws = conn.ws.as_mut().expect("gate checked");
        let route = &mut self.ws.routes[ws.route as usize];
        let deflate = ws
            .decoder
            .deflate()
            .filter(|_| compress && len >= route.opts.deflate.threshold);
        match deflate {
            None => {
                gale_ws::write_header(&mut conn.wbuf, true, false, opcode, len, None);
                let before = conn.wbuf.len();
                fill(&mut conn.wbuf);
                debug_assert_eq!(conn.wbuf.len() - before, len);
            }
            Some(params) => {
                let mut plain = std::mem::take(&mut self.ws.plain);
                let mut packed = std::mem::take(&mut self.ws.packed);
                plain.clear();
                packed.clear();
                fill(&mut plain);
                let level = route.opts.deflate.level;
                let deflater = match route.opts.compression {
                    Compression::Dedicated => &mut **ws.deflater.get_or_insert_with(|| {
                        Box::new(Deflater::new(
                            params.server_max_window_bits,
                            level,
                            params.server_no_context_takeover,
                        ))
                    }),
                    _ => route
                        .shared
                        .get_or_insert_with(|| Deflater::new(15, level, true)),
                };
                deflater.compress(&plain, &mut packed);
                gale_ws::write_header(&mut conn.wbuf, true, true, opcode, packed.len(), None);
                conn.wbuf.extend_from_slice(&packed);
                self.ws.plain = plain;
                self.ws.packed = packed;
            }
        }
        self.ws_after_write(cid, sid)
    }

    /// The sockets `to` reaches, into `subs`: each once, exclusions applied (no JS work per socket).
    fn ws_audience(&mut self, to: &super::Audience<'_>, subs: &mut Vec<u32>) {
        subs.clear();
        let mut except = std::mem::take(&mut self.ws.except);
        except.clear();
        except.extend(to.except.iter().filter_map(|t| self.ws.topics.id(t)));
        let single = to.topics.len() == 1;
        if !single {
            self.ws.publish_gen = self.ws.publish_gen.wrapping_add(1);
        }
        let gen = self.ws.publish_gen;
        for topic in to.topics {
            for &sid in self.ws.topics.subscribers(topic) {
                if Some(sid) == to.exclude
                    || except.iter().any(|&id| self.ws.topics.is_member(id, sid))
                {
                    continue;
                }
                if !single || to.skip_busy {
                    let Some(conn) = self.conns.get_mut(sid_cid(sid)) else {
                        continue;
                    };
                    if to.skip_busy && (conn.want_write || conn.pending() > 0) {
                        continue;
                    }
                    if !single {
                        let Some(ws) = conn.ws.as_mut() else { continue };
                        if ws.publish_gen == gen {
                            continue;
                        }
                        ws.publish_gen = gen;
                    }
                }
                subs.push(sid);
            }
        }
        self.ws.except = except;
    }

    /// Sends `payload` to every socket `to` reaches; returns how many it reached. The frame is
    /// built once (and compressed once for shared-compression sockets).
    pub(crate) fn ws_publish(
        &mut self,
        to: &super::Audience<'_>,
        binary: bool,
        compress: bool,
        payload: &[u8],
    ) -> usize {
        let mut subs = std::mem::take(&mut self.ws.subs);
        self.ws_audience(to, &mut subs);
        if subs.is_empty() {
            self.ws.subs = subs;
            return 0;
        }
        let opcode = if binary { Opcode::Binary } else { Opcode::Text };
        let mut plain = std::mem::take(&mut self.ws.plain);
        plain.clear();
        gale_ws::write_header(&mut plain, true, false, opcode, payload.len(), None);
        plain.extend_from_slice(payload);
        // Shared-compression frames, built on first need, per route (routes may differ in level).
        let mut shared = std::mem::take(&mut self.ws.shared_frames);
        shared
            .iter_mut()
            .for_each(|f: &mut Option<Vec<u8>>| *f = None);
        shared.resize(self.ws.routes.len(), None);
        let mut reached = 0;
        for &sid in &subs {
            match self.ws_gate(sid) {
                Gate::Closed => continue,
                Gate::Over => {
                    self.ws_over_limit(sid);
                    continue;
                }
                Gate::Open => {}
            }
            let cid = sid_cid(sid);
            let conn = &mut self.conns[cid];
            let ws = conn.ws.as_mut().expect("gate checked");
            let r = ws.route as usize;
            let route = &mut self.ws.routes[r];
            let deflate = ws
                .decoder
                .deflate()
                .filter(|_| compress && payload.len() >= route.opts.deflate.threshold);
            match (deflate, route.opts.compression) {
                (None, _) | (Some(_), Compression::Off) => conn.wbuf.extend_from_slice(&plain),
                (Some(_), Compression::Shared) => {
                    let level = route.opts.deflate.level;
                    let frame = shared[r].get_or_insert_with(|| {
                        let d = route
                            .shared
                            .get_or_insert_with(|| Deflater::new(15, level, true));
                        let mut packed = Vec::new();
                        d.compress(payload, &mut packed);
                        let mut f = Vec::with_capacity(packed.len() + 10);
                        gale_ws::write_header(&mut f, true, true, opcode, packed.len(), None);
                        f.extend_from_slice(&packed);
                        f
                    });
                    conn.wbuf.extend_from_slice(frame);
                }
                (Some(params), Compression::Dedicated) => {
                    let level = route.opts.deflate.level;
                    let d = ws.deflater.get_or_insert_with(|| {
                        Box::new(Deflater::new(
                            params.server_max_window_bits,
                            level,
                            params.server_no_context_takeover,
                        ))
                    });
                    let mut packed = std::mem::take(&mut self.ws.packed);
                    packed.clear();
                    d.compress(payload, &mut packed);
                    gale_ws::write_header(&mut conn.wbuf, true, true, opcode, packed.len(), None);
                    conn.wbuf.extend_from_slice(&packed);
                    self.ws.packed = packed;
                }
            }
            self.ws_after_write(cid, sid);
            reached += 1;
        }
        self.ws.plain = plain;
        self.ws.shared_frames = shared;
        self.ws.subs = subs;
        reached
    }

    /// Sends a ping (payload at most 125 bytes).
    pub(crate) fn ws_ping(&mut self, sid: u32, payload: &[u8]) -> SendResult {
        if !matches!(self.ws_gate(sid), Gate::Open) {
            return SendResult::Closed;
        }
        let cid = sid_cid(sid);
        let payload = &payload[..payload.len().min(125)];
        gale_ws::write_frame(
            &mut self.conns[cid].wbuf,
            Opcode::Ping,
            payload,
            false,
            None,
        );
        self.ws_after_write(cid, sid)
    }
}
