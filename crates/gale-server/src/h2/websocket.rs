//! The HTTP/2 connection's side of its WebSocket streams (RFC 8441; one stream is tunnel.rs): an extended CONNECT
//! opens one, each round receives on them, each pump hands their output to h2, and they close with the connection.

use bytes::Bytes;
use h2::server::SendResponse;
use h2::RecvStream;
use http::Method;
use slab::Slab;

use super::state::H2Conn;
use super::stream::Pass;
use super::tunnel::{Received, Tunnel};
use crate::engine::Inner;
use crate::mem::MemWrite;
use crate::transport::MemPipe;

/// The key the engine's handshake is made with. RFC 8441 has no key (the stream is the proof the client meant a
/// WebSocket), so its accept value is dropped with the 101; a fixed valid nonce keeps the handshake the engine's.
const KEY: &[u8] = b"dGhlIHNhbXBsZSBub25jZQ==";
impl Inner {
    /// An extended CONNECT for a WebSocket: its in-process connection, and the equal HTTP/1.1 upgrade written into
    /// it. Refused (REFUSED_STREAM) while the server closes.
    pub(super) fn h2_tunnel(
        &mut self,
        cid: usize,
        mut parts: http::request::Parts,
        recv: RecvStream,
        mut respond: SendResponse<Bytes>,
    ) {
        let Some(key) = self.tunnel_open(cid) else {
            respond.send_reset(h2::Reason::REFUSED_STREAM);
            return;
        };
        parts.method = Method::GET;
        parts.headers.remove(http::header::SEC_WEBSOCKET_KEY);
        let mut head = Vec::with_capacity(256);
        gale_h2::request_head(&parts, &mut head);
        head.truncate(head.len() - 2);
        head.extend_from_slice(b"upgrade: websocket\r\nconnection: Upgrade\r\nsec-websocket-key: ");
        head.extend_from_slice(KEY);
        head.extend_from_slice(b"\r\n\r\n");
        // Gone only over max_connections: the pipe then holds the engine's 503, forwarded as the answer.
        let _: MemWrite = self.mem_write(key, &head);
        let end = recv.is_end_stream();
        if end {
            self.pipes[key].in_eof = true;
        }
        let t = Tunnel::new(key, respond, (!end).then_some(recv));
        if let Some(h2) = self.conns[cid].h2.as_deref_mut() {
            h2.tunnels.push(t);
        }
    }

    /// Receives on connection `cid`'s WebSocket streams: DATA into their pipes (the engine reads it at the end of
    /// the turn), the client's end or reset; gives held window back once the engine has read below the pipe's mark.
    pub(super) fn h2_tunnels_receive(&mut self, cid: usize) {
        let Inner {
            conns,
            pipes,
            deferred,
            ..
        } = self;
        let Some(h2) = conns.get_mut(cid).and_then(|c| c.h2.as_deref_mut()) else {
            return;
        };
        if h2.tunnels.is_empty() {
            return;
        }
        let mut gone = Vec::new();
        let mut fed = Vec::new();
        for t in &mut h2.tunnels {
            let Some(pipe) = pipes.get_mut(t.key) else {
                continue;
            };
            match t.receive(pipe, &h2.swaker) {
                Received::Nothing => {}
                Received::Input => fed.extend(pipe.conn),
                Received::Gone => gone.push(t.key),
            }
        }
        h2.tunnels.retain(|t| !gone.contains(&t.key));
        for mcid in fed {
            // The readable edge of a socket: read at the end of this turn (a paused connection resumes by itself).
            if conns.get(mcid).is_some_and(|c| !c.read_paused) {
                deferred.push(mcid);
            }
        }
        for key in gone {
            self.mem_close(key);
        }
    }

    /// Closes the in-process connections of WebSocket streams that ended (or whose HTTP/2 connection did), by
    /// their pipes' keys: a WebSocket still open there hears 1006, as when a TCP connection drops.
    pub(crate) fn h2_tunnels_close(&mut self, keys: Vec<usize>) {
        for key in keys {
            self.mem_close(key);
        }
    }
}

impl H2Conn {
    /// No stream of either kind is open (the idle timeout runs).
    pub(super) fn idle(&self) -> bool {
        self.streams.is_empty() && self.tunnels.is_empty()
    }

    /// The pipes' keys of every WebSocket stream, which are let go.
    pub(crate) fn take_tunnels(&mut self) -> Vec<usize> {
        self.tunnels.drain(..).map(|t| t.key).collect()
    }

    /// One output pass over the WebSocket streams: each hands what its pipe holds to h2. A pipe something was
    /// taken from is flushed again (its connection may have been waiting for room); finished streams leave, their
    /// keys in `ended`. True when one stopped at the budget with more to send.
    pub(super) fn tunnels_output(
        &mut self,
        pipes: &mut Slab<MemPipe>,
        budget: &mut usize,
        dirty: &mut Vec<usize>,
        ended: &mut Vec<usize>,
    ) -> bool {
        let mut more = false;
        let waker = &self.swaker;
        self.tunnels.retain_mut(|t| {
            let Some(pipe) = pipes.get_mut(t.key) else {
                return false;
            };
            let (pass, took) = t.output(pipe, budget, waker);
            if took {
                dirty.extend(pipe.conn);
            }
            match pass {
                Pass::Keep => true,
                Pass::More => {
                    more = true;
                    true
                }
                Pass::Finished => {
                    ended.push(t.key);
                    false
                }
            }
        });
        more
    }
}
