//! One connection's WebTransport sessions, without I/O: which session each stream and datagram from the peer belongs
//! to, streams that arrive before their session is accepted (held, within a count and a time, then refused), the
//! limits on sessions and on streams per session, draining, and which streams go when a session ends.

use std::collections::{BTreeMap, BTreeSet, VecDeque};

/// The error codes this layer answers with (draft-ietf-webtrans-http3 §9.5, RFC 9114 §8.1).
pub mod codes {
    /// A stream held for a session that was not accepted in time, or over the held-stream limit.
    pub const BUFFERED_STREAM_REJECTED: u64 = 0x3994_bd84;
    /// A stream of a session that ended (or never was one).
    pub const SESSION_GONE: u64 = 0x170d_7b68;
    /// A CONNECT over the session limit, or a stream over a session's stream limit: not processed, the rest goes on.
    pub const H3_REQUEST_REJECTED: u64 = 0x010b;
}

/// How many sessions, streams and held streams a connection may have; `hold_ms` is how long a stream may wait for
/// its session to be accepted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Sessions at once on one connection, counting those the app has not answered yet.
    pub sessions: usize,
    /// Streams the peer has open at once in one session (unidirectional and bidirectional together).
    pub streams: usize,
    /// Streams held on the connection for sessions not accepted yet.
    pub held: usize,
    /// Milliseconds a held stream waits for its session.
    pub hold_ms: u64,
}

/// What to do with a stream the peer opened, its header read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Admit {
    /// Hand it to its session's handler.
    Deliver,
    /// Keep it until its session is accepted ([`Sessions::accept`]) or refused, or its time is up
    /// ([`Sessions::expire`]).
    Hold,
    /// Reset its send side and stop reading with this HTTP/3 error code; the session goes on.
    Refuse(u64),
}

#[derive(Debug, Default)]
struct Session {
    /// The app accepted it (a 2xx went out); before that streams are held.
    open: bool,
    /// A DRAIN_WEBTRANSPORT_SESSION was sent or received.
    draining: bool,
    /// The peer's streams delivered to it and not closed yet.
    streams: BTreeSet<u64>,
}

/// A connection's sessions, keyed by their CONNECT stream's ID.
#[derive(Debug)]
pub struct Sessions {
    limits: Limits,
    sessions: BTreeMap<u64, Session>,
    /// Held streams in arrival order: (session ID, stream ID, arrival time in ms).
    held: VecDeque<(u64, u64, u64)>,
}

impl Sessions {
    pub fn new(limits: Limits) -> Sessions {
        Sessions {
            limits,
            sessions: BTreeMap::new(),
            held: VecDeque::new(),
        }
    }

    /// Sessions open or awaiting the app's answer.
    pub fn len(&self) -> usize {
        self.sessions.len()
    }

    pub fn is_empty(&self) -> bool {
        self.sessions.is_empty()
    }

    /// Streams held for sessions not accepted yet.
    pub fn held(&self) -> usize {
        self.held.len()
    }

    /// A CONNECT with `:protocol = webtransport` arrived on request stream `id`; the app decides next. Over the session
    /// limit it is `Err(H3_REQUEST_REJECTED)`: the engine resets that CONNECT stream and the connection goes on (the
    /// draft forbids closing the connection for it).
    pub fn connect(&mut self, id: u64) -> Result<(), u64> {
        if self.sessions.len() >= self.limits.sessions || self.sessions.contains_key(&id) {
            return Err(codes::H3_REQUEST_REJECTED);
        }
        self.sessions.insert(id, Session::default());
        Ok(())
    }

    /// The app accepted session `id`: it is open, and `out` gets the streams held for it, in arrival order, to deliver
    /// now (at most the session's stream limit; held ones past it are given to `refuse` with H3_REQUEST_REJECTED).
    /// False when `id` is no session awaiting an answer.
    pub fn accept(&mut self, id: u64, out: &mut Vec<u64>, refuse: &mut Vec<(u64, u64)>) -> bool {
        let Some(s) = self.sessions.get_mut(&id) else {
            return false;
        };
        if s.open {
            return false;
        }
        s.open = true;
        let limit = self.limits.streams;
        self.held.retain(|&(sid, stream, _)| {
            if sid != id {
                return true;
            }
            if s.streams.len() < limit {
                s.streams.insert(stream);
                out.push(stream);
            } else {
                refuse.push((stream, codes::H3_REQUEST_REJECTED));
            }
            false
        });
        true
    }

    /// Session `id` ended: refused by the app, closed by either side, or its CONNECT stream gone. `out` gets every
    /// stream of it, delivered or held, to reset and stop with SESSION_GONE. False when it was no session.
    pub fn end(&mut self, id: u64, out: &mut Vec<u64>) -> bool {
        let Some(s) = self.sessions.remove(&id) else {
            return false;
        };
        out.extend(s.streams);
        self.held.retain(|&(sid, stream, _)| {
            if sid == id {
                out.push(stream);
            }
            sid != id
        });
        true
    }

    /// A stream the peer opened whose header names `session`, at `now` (ms). A stream for a session not known yet is
    /// held: its CONNECT may still be on its way (the draft lets a client open streams before the answer).
    pub fn stream(&mut self, stream: u64, session: u64, now: u64) -> Admit {
        match self.sessions.get_mut(&session) {
            Some(s) if s.open => {
                if s.streams.len() >= self.limits.streams {
                    Admit::Refuse(codes::H3_REQUEST_REJECTED)
                } else {
                    s.streams.insert(stream);
                    Admit::Deliver
                }
            }
            _ if self.held.len() >= self.limits.held => {
                Admit::Refuse(codes::BUFFERED_STREAM_REJECTED)
            }
            _ => {
                self.held.push_back((session, stream, now));
                Admit::Hold
            }
        }
    }

    /// A delivered stream of `session` is done (both sides closed, or reset): it no longer counts against the limit.
    pub fn stream_closed(&mut self, session: u64, stream: u64) {
        if let Some(s) = self.sessions.get_mut(&session) {
            s.streams.remove(&stream);
        }
    }

    /// Held streams whose time is up at `now` (ms), into `out`, to refuse with BUFFERED_STREAM_REJECTED. Returns the
    /// time (ms) the next one expires, for the engine's timer.
    pub fn expire(&mut self, now: u64, out: &mut Vec<u64>) -> Option<u64> {
        while let Some(&(_, stream, at)) = self.held.front() {
            let due = at.saturating_add(self.limits.hold_ms);
            if due > now {
                return Some(due);
            }
            out.push(stream);
            self.held.pop_front();
        }
        None
    }

    /// Whether a datagram for `session` goes to its handler. Datagrams for sessions not open are dropped rather than
    /// held: they may be lost anyway, and holding none is the tightest limit the draft allows.
    pub fn datagram(&self, session: u64) -> bool {
        self.sessions.get(&session).is_some_and(|s| s.open)
    }

    /// Marks session `id` draining (a DRAIN capsule sent or received). True the first time for an open session, so
    /// the engine sends its capsule once.
    pub fn drain(&mut self, id: u64) -> bool {
        match self.sessions.get_mut(&id) {
            Some(s) if s.open && !s.draining => {
                s.draining = true;
                true
            }
            _ => false,
        }
    }

    /// Whether session `id` is draining.
    pub fn draining(&self, id: u64) -> bool {
        self.sessions.get(&id).is_some_and(|s| s.draining)
    }

    /// The server closes gracefully: `out` gets every open session not yet draining, each now draining, to send its
    /// DRAIN capsule to.
    pub fn drain_all(&mut self, out: &mut Vec<u64>) {
        for (&id, s) in self.sessions.iter_mut() {
            if s.open && !s.draining {
                s.draining = true;
                out.push(id);
            }
        }
    }

    /// How many of the peer's streams session `id` has delivered and open.
    pub fn streams(&self, id: u64) -> usize {
        self.sessions.get(&id).map_or(0, |s| s.streams.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LIMITS: Limits = Limits {
        sessions: 2,
        streams: 2,
        held: 3,
        hold_ms: 100,
    };

    #[test]
    fn streams_before_the_answer_are_held_then_delivered() {
        let mut s = Sessions::new(LIMITS);
        // A stream may arrive before its CONNECT, and after it while the app decides.
        assert_eq!(s.stream(2, 0, 0), Admit::Hold);
        s.connect(0).unwrap();
        assert_eq!(s.stream(6, 0, 1), Admit::Hold);
        assert_eq!(s.stream(10, 4, 1), Admit::Hold);
        let (mut out, mut refuse) = (Vec::new(), Vec::new());
        assert!(s.accept(0, &mut out, &mut refuse));
        assert_eq!(out, [2, 6]);
        assert!(refuse.is_empty());
        assert_eq!(s.held(), 1, "session 4's stream stays held");
        assert_eq!(s.streams(0), 2);
        // A second answer is refused: the session is already open.
        assert!(!s.accept(0, &mut out, &mut refuse));
    }

    #[test]
    fn held_streams_past_the_stream_limit_are_refused_on_accept() {
        let mut s = Sessions::new(LIMITS);
        s.connect(0).unwrap();
        for id in [2, 6, 14] {
            assert_eq!(s.stream(id, 0, 0), Admit::Hold);
        }
        let (mut out, mut refuse) = (Vec::new(), Vec::new());
        s.accept(0, &mut out, &mut refuse);
        assert_eq!(out, [2, 6]);
        assert_eq!(refuse, [(14, codes::H3_REQUEST_REJECTED)]);
    }

    #[test]
    fn limits_refuse_with_the_drafts_codes() {
        let mut s = Sessions::new(LIMITS);
        s.connect(0).unwrap();
        s.connect(4).unwrap();
        assert_eq!(
            s.connect(8),
            Err(codes::H3_REQUEST_REJECTED),
            "over the session limit"
        );
        assert_eq!(
            s.connect(0),
            Err(codes::H3_REQUEST_REJECTED),
            "the same CONNECT twice"
        );
        let (mut out, mut refuse) = (Vec::new(), Vec::new());
        s.accept(0, &mut out, &mut refuse);
        assert_eq!(s.stream(2, 0, 0), Admit::Deliver);
        assert_eq!(s.stream(3, 0, 0), Admit::Deliver);
        assert_eq!(s.stream(6, 0, 0), Admit::Refuse(codes::H3_REQUEST_REJECTED));
        s.stream_closed(0, 2);
        assert_eq!(
            s.stream(6, 0, 0),
            Admit::Deliver,
            "a closed stream frees its place"
        );
        // Held streams: three at most on the connection.
        for id in [10, 14, 18] {
            assert_eq!(s.stream(id, 4, 0), Admit::Hold);
        }
        assert_eq!(
            s.stream(22, 4, 0),
            Admit::Refuse(codes::BUFFERED_STREAM_REJECTED)
        );
    }

    #[test]
    fn held_streams_expire_in_arrival_order() {
        let mut s = Sessions::new(LIMITS);
        s.stream(2, 0, 10);
        s.stream(6, 4, 50);
        let mut out = Vec::new();
        assert_eq!(s.expire(109, &mut out), Some(110));
        assert!(out.is_empty());
        assert_eq!(s.expire(110, &mut out), Some(150));
        assert_eq!(out, [2]);
        assert_eq!(s.expire(1_000, &mut out), None);
        assert_eq!(out, [2, 6]);
        assert_eq!(s.held(), 0);
    }

    #[test]
    fn an_ended_session_gives_back_all_its_streams() {
        let mut s = Sessions::new(LIMITS);
        s.connect(0).unwrap();
        let (mut out, mut refuse) = (Vec::new(), Vec::new());
        s.accept(0, &mut out, &mut refuse);
        s.stream(2, 0, 0);
        s.connect(4).unwrap();
        s.stream(6, 4, 0);
        s.stream(10, 4, 0);
        let mut gone = Vec::new();
        assert!(s.end(4, &mut gone), "refused before its answer");
        assert_eq!(gone, [6, 10]);
        gone.clear();
        assert!(s.end(0, &mut gone));
        assert_eq!(gone, [2]);
        assert!(!s.end(0, &mut gone), "ended once");
        assert!(s.is_empty());
        assert!(!s.datagram(0));
    }

    #[test]
    fn datagrams_and_draining_need_an_open_session() {
        let mut s = Sessions::new(LIMITS);
        s.connect(0).unwrap();
        assert!(!s.datagram(0), "not accepted yet");
        assert!(!s.drain(0));
        let (mut out, mut refuse) = (Vec::new(), Vec::new());
        s.accept(0, &mut out, &mut refuse);
        s.connect(4).unwrap();
        s.accept(4, &mut out, &mut refuse);
        assert!(s.datagram(0));
        assert!(s.drain(0));
        assert!(!s.drain(0), "the capsule goes once");
        assert!(s.draining(0));
        let mut all = Vec::new();
        s.drain_all(&mut all);
        assert_eq!(all, [4], "session 0 was draining already");
        assert!(s.datagram(0), "a draining session still takes datagrams");
    }
}
