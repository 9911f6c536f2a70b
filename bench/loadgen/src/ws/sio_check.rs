//! What sio-broadcast checks: the broadcasts in flight, each one's exact delivery text and its sender's exact ack,
//! who got what (a duplicate, a changed payload or an unknown message is invalid, with the reason), and the timeout
//! errors of a broadcast that did not reach everyone (+ tests).

use std::time::{Duration, Instant};

use tokio::sync::mpsc;

use crate::client::Receiver;
use crate::sio::{self, Packet};
use crate::stats::{escape, Stats};

/// A broadcast in flight.
pub struct Pending {
    pub id: u64,
    /// `42<prefix>["broadcastResult",P]`: what every socket must get.
    pub expected: Vec<u8>,
    /// `43<prefix><ack id>[]`: what the sender must get.
    pub ack: Vec<u8>,
    pub sender: usize,
    pub sent: Instant,
    pub got: Vec<bool>,
    pub left: usize,
    pub acked: bool,
}

pub struct Shared {
    pub stats: Stats,
    pub pending: Vec<Pending>,
    /// Round trips of finished broadcasts (every delivery and the ack in), for the main loop.
    pub done: mpsc::UnboundedSender<Duration>,
    pub deliveries: u64,
    pub acks: u64,
    /// `42<prefix>["broadcastResult",{"id":`: how a delivery starts, to name the broadcast of a wrong one.
    pub result_start: Vec<u8>,
    pub stopping: bool,
}

impl Shared {
    fn finish_if_done(&mut self, k: usize) {
        if self.pending[k].left == 0 && self.pending[k].acked {
            let p = self.pending.swap_remove(k);
            let _ = self.done.send(p.sent.elapsed());
        }
    }

    /// Why `t`, received by socket `i`, is no delivery or ack of a broadcast in flight.
    fn describe(&self, i: usize, t: &[u8]) -> String {
        let shown = |t: &[u8]| format!("text, {} bytes: {}", t.len(), escape(t));
        if let Some(rest) = t.strip_prefix(&self.result_start[..]) {
            let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
            let id = std::str::from_utf8(&rest[..digits])
                .ok()
                .and_then(|d| d.parse::<u64>().ok());
            // The payload: from its `{"id":` to before the closing `]`.
            let start = self.result_start.len() - br#"{"id":"#.len();
            let payload = |t: &[u8]| escape(&t[start..t.len() - 1]);
            return match id.and_then(|id| self.pending.iter().find(|p| p.id == id)) {
                Some(p) => format!(
                    "broadcast {}: client {i} got {}, not the payload sent ({})",
                    p.id,
                    payload(t),
                    payload(&p.expected)
                ),
                None => format!(
                    "client {i} got a broadcastResult of no broadcast in flight (a duplicate, or a changed id): {}",
                    shown(t)
                ),
            };
        }
        match sio::parse(t) {
            Ok(Packet::Sio {
                kind: sio::ACK,
                id,
                ..
            }) => format!(
                "client {i}: an ack (id {id:?}) that is not exactly 43<ack id>[] for a broadcast it sent: {}",
                shown(t)
            ),
            Ok(Packet::Sio {
                kind: sio::EVENT,
                ..
            }) => format!(
                "client {i}: an event that is no broadcastResult of a broadcast in flight: {}",
                shown(t)
            ),
            _ => format!("client {i}: unexpected message {}", shown(t)),
        }
    }
}

/// What socket `i` received in one text frame; true when it must answer a ping.
pub fn on_text(i: usize, t: &[u8], s: &mut Shared) -> bool {
    if s.stopping {
        return false;
    }
    if let Some(k) = s.pending.iter().position(|p| p.expected == t) {
        let p = &mut s.pending[k];
        if std::mem::replace(&mut p.got[i], true) {
            let id = p.id;
            s.stats
                .invalid_because(|| format!("broadcast {id}: client {i} got it twice"));
            return false;
        }
        p.left -= 1;
        s.deliveries += 1;
        s.stats.valid += 1;
        s.finish_if_done(k);
        return false;
    }
    if let Some(k) = s
        .pending
        .iter()
        .position(|p| p.sender == i && !p.acked && p.ack == t)
    {
        s.pending[k].acked = true;
        s.acks += 1;
        s.stats.valid += 1;
        s.finish_if_done(k);
        return false;
    }
    match sio::parse(t) {
        Ok(Packet::Ping) => true,
        Ok(Packet::Close) => {
            s.stats.error(
                |e| &mut e.closed,
                format!("client {i}: Engine.IO close packet (1) from the server"),
            );
            false
        }
        Ok(Packet::Sio {
            kind: sio::DISCONNECT,
            ..
        }) => {
            s.stats.error(
                |e| &mut e.closed,
                format!(
                    "client {i}: the server disconnected the socket: {}",
                    escape(t)
                ),
            );
            false
        }
        _ => {
            let why = s.describe(i, t);
            s.stats.invalid_because(|| why);
            false
        }
    }
}

impl Receiver for Shared {
    fn stats(&mut self) -> &mut Stats {
        &mut self.stats
    }
    fn stopping(&self) -> bool {
        self.stopping
    }
    fn on_text(&mut self, id: usize, t: &[u8]) -> Option<Vec<u8>> {
        on_text(id, t, self).then(|| crate::sio_echo::text_frame(sio::PONG))
    }
}

/// A broadcast not finished within --timeout: one timeout error per missing delivery (and one for a missing ack).
pub fn timed_out(p: &Pending, n: usize, st: &mut Stats) {
    let missing: Vec<usize> = (0..n).filter(|&c| !p.got[c]).collect();
    let mut shown = missing
        .iter()
        .take(5)
        .map(usize::to_string)
        .collect::<Vec<_>>()
        .join(", ");
    if missing.len() > 5 {
        shown.push_str(", …");
    }
    let (id, from, left) = (p.id, p.sender, p.left);
    if left > 0 {
        let sender = if missing.contains(&from) {
            "; the sender among them"
        } else {
            ""
        };
        let why = format!(
            "broadcast {id} (sent by client {from}) at {n} clients: {left} deliver{} missing after --timeout (client{} \
             {shown}{sender})",
            if left == 1 { "y" } else { "ies" },
            if left == 1 { "" } else { "s" },
        );
        st.errors.timeout += left as u64 - 1;
        st.error(|e| &mut e.timeout, why);
    }
    if !p.acked {
        st.error(
            |e| &mut e.timeout,
            format!("broadcast {id} (sent by client {from}): no ack within --timeout"),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shared() -> (Shared, mpsc::UnboundedReceiver<Duration>) {
        let (done, rx) = mpsc::unbounded_channel();
        let s = Shared {
            stats: Stats::new(),
            pending: vec![Pending {
                id: 7,
                expected: br#"42/b,["broadcastResult",{"id":7,"ts":5,"pad":"00"}]"#.to_vec(),
                ack: b"43/b,3[]".to_vec(),
                sender: 1,
                sent: Instant::now(),
                got: vec![false; 2],
                left: 2,
                acked: false,
            }],
            done,
            deliveries: 0,
            acks: 0,
            result_start: br#"42/b,["broadcastResult",{"id":"#.to_vec(),
            stopping: false,
        };
        (s, rx)
    }

    #[test]
    fn a_broadcast_finishes_with_every_delivery_and_the_ack() {
        let (mut s, mut rx) = shared();
        let good = br#"42/b,["broadcastResult",{"id":7,"ts":5,"pad":"00"}]"#;
        assert!(!on_text(0, good, &mut s));
        assert!(!on_text(1, b"43/b,3[]", &mut s));
        assert!(on_text(1, b"2", &mut s), "a ping is to be answered");
        assert!(rx.try_recv().is_err(), "client 1 has not got it yet");
        assert!(!on_text(1, good, &mut s));
        assert!(rx.try_recv().is_ok());
        assert_eq!(
            (s.deliveries, s.acks, s.stats.valid, s.stats.invalid),
            (2, 1, 3, 0)
        );
        assert!(s.pending.is_empty());
    }

    #[test]
    fn wrong_deliveries_and_acks_are_invalid_with_a_reason() {
        let (mut s, _rx) = shared();
        let good = br#"42/b,["broadcastResult",{"id":7,"ts":5,"pad":"00"}]"#;
        on_text(0, good, &mut s);
        on_text(0, good, &mut s);
        on_text(
            1,
            br#"42/b,["broadcastResult",{"id":7,"ts":6,"pad":"00"}]"#,
            &mut s,
        );
        on_text(
            1,
            br#"42/b,["broadcastResult",{"id":8,"ts":5,"pad":"00"}]"#,
            &mut s,
        );
        on_text(0, b"43/b,3[]", &mut s);
        assert_eq!(s.stats.invalid, 4);
        assert_eq!(
            s.stats.first_invalid.as_deref(),
            Some("broadcast 7: client 0 got it twice")
        );
        assert_eq!(
            s.describe(1, br#"42/b,["broadcastResult",{"id":7,"ts":6,"pad":"00"}]"#),
            r#"broadcast 7: client 1 got {"id":7,"ts":6,"pad":"00"}, not the payload sent ({"id":7,"ts":5,"pad":"00"})"#
        );
        assert!(s
            .describe(1, br#"42/b,["broadcastResult",{"id":8}]"#)
            .starts_with("client 1 got a broadcastResult of no broadcast in flight"));
        assert!(s
            .describe(0, b"43/b,3[]")
            .starts_with("client 0: an ack (id Some(3)) that is not exactly"));
    }

    #[test]
    fn a_late_broadcast_counts_each_missing_delivery() {
        let (s, _rx) = shared();
        let mut st = Stats::new();
        timed_out(&s.pending[0], 2, &mut st);
        assert_eq!(st.errors.timeout, 3, "two deliveries and the ack");
        assert_eq!(
            st.first_error.as_deref(),
            Some("broadcast 7 (sent by client 1) at 2 clients: 2 deliveries missing after --timeout (clients 0, 1; the sender among them)")
        );
    }
}
