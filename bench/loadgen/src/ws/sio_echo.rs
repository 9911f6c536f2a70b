//! Mode `sio-echo`: Socket.IO spoken over raw.rs's minimal client (no Socket.IO library): sockets send `echo` events,
//! --concurrent in flight, each acked by exactly `43ID["000…"]`, and reconnect every --messages; also opening a socket
//! (open packet and connect answer checked), which sio-broadcast shares.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;
use std::time::{Duration, Instant};

use tokio::time::timeout;

use crate::cli::Args;
use crate::raw::{client_frame, client_frame_into, Data, RawConn, MASK};
use crate::sio::{self, Packet};
use crate::stats::{escape, us, Kind, Stats};

/// Why opening a socket failed, counted by the caller.
pub enum Fail {
    Connect(String),
    Write(String),
    Timeout(String),
    Read(Kind, String),
    Invalid(String),
}

impl Fail {
    pub fn count(self, st: &mut Stats) {
        match self {
            Fail::Connect(why) => st.error(|e| &mut e.connect, why),
            Fail::Write(why) => st.error(|e| &mut e.write, why),
            Fail::Timeout(why) => st.error(|e| &mut e.timeout, why),
            Fail::Read(k, why) => st.record(k, why),
            Fail::Invalid(why) => st.invalid_because(|| why),
        }
    }
}

/// A masked text frame of `text`.
pub fn text_frame(text: &[u8]) -> Vec<u8> {
    client_frame(1, text, MASK)
}

/// The next text frame (copied: only used while opening), at the latest at `until`.
async fn next_text(c: &mut RawConn, until: Instant, what: &str) -> Result<Vec<u8>, Fail> {
    let left = until.saturating_duration_since(Instant::now());
    match timeout(left, c.next()).await {
        Err(_) => Err(Fail::Timeout(format!("no {what} within --timeout"))),
        Ok(Err((Kind::Invalid, why))) => Err(Fail::Invalid(why)),
        Ok(Err((k, why))) => Err(Fail::Read(k, format!("before the {what}: {why}"))),
        Ok(Ok(Data::Text(t))) => Ok(t.to_vec()),
        Ok(Ok(Data::Binary(b))) => Err(Fail::Invalid(format!(
            "expected the {what}, got binary, {} bytes: {}",
            b.len(),
            escape(b)
        ))),
    }
}

/// Opens a Socket.IO socket on --namespace within --timeout: TCP connect, WebSocket handshake, the Engine.IO open
/// packet (checked), the namespace connect and the server's answer (checked); a ping meanwhile is answered.
pub async fn open_socket(a: &Args) -> Result<RawConn, Fail> {
    let until = Instant::now() + a.timeout;
    let mut c = match timeout(a.timeout, RawConn::open(a, None, None)).await {
        Ok(Ok(c)) => c,
        Ok(Err(why)) => return Err(Fail::Connect(why)),
        Err(_) => return Err(Fail::Timeout("connect + handshake timed out".into())),
    };
    let open = next_text(&mut c, until, "Engine.IO open packet").await?;
    match sio::parse(&open) {
        Ok(Packet::Open(json)) => sio::check_open(json).map_err(Fail::Invalid)?,
        _ => {
            return Err(Fail::Invalid(format!(
                "expected the Engine.IO open packet 0{{\"sid\":…}}, got text, {} bytes: {}",
                open.len(),
                escape(&open)
            )))
        }
    };
    let connect = text_frame(sio::connect(&a.namespace).as_bytes());
    c.send(&connect).await.map_err(Fail::Write)?;
    loop {
        let t = next_text(&mut c, until, "connect answer").await?;
        if sio::parse(&t) == Ok(Packet::Ping) {
            c.send(&text_frame(sio::PONG)).await.map_err(Fail::Write)?;
            continue;
        }
        sio::check_connected(&t, &a.namespace).map_err(Fail::Invalid)?;
        return Ok(c);
    }
}

/// What every socket sends and expects.
struct Echo {
    /// `/nsp,` or nothing.
    prefix: String,
    /// The event's arguments `["echo","000…"]`.
    args: Vec<u8>,
    /// The ack's arguments `["000…"]`: the payload back.
    ack_args: Vec<u8>,
}

/// Why an ack's arguments are not the payload, with the first differing byte.
fn wrong_ack(id: u64, got: &[u8], want: &[u8]) -> String {
    let i = got
        .iter()
        .zip(want)
        .position(|(a, b)| a != b)
        .unwrap_or(got.len().min(want.len()));
    format!(
        "ack {id}: expected the {}-byte arguments [\"000…\"] (the event's payload), got {} bytes: {} (first difference \
         at byte {i})",
        want.len(),
        got.len(),
        escape(got)
    )
}

/// Sends --messages events on `c`, --concurrent in flight (the first even past the deadline, so that a connection
/// that got through always tests the server), and checks every ack. true when the socket ended healthy.
async fn session(
    a: &Args,
    c: &mut RawConn,
    e: &Echo,
    st: &RefCell<Stats>,
    deadline: Instant,
) -> bool {
    let mut flying: VecDeque<(u64, Instant)> = VecDeque::with_capacity(a.concurrent);
    // Frames to write; held while more frames are already buffered, so answers to a burst go out in one write.
    let mut out = Vec::with_capacity((e.args.len() + 40) * a.concurrent);
    let mut text = Vec::with_capacity(e.args.len() + 40);
    let (mut next_id, mut sent) = (0u64, 0usize);
    loop {
        let now = Instant::now();
        while flying.len() < a.concurrent && sent < a.messages && (sent == 0 || now < deadline) {
            text.clear();
            sio::event_into(&mut text, &e.prefix, next_id, &e.args);
            client_frame_into(&mut out, 1, &text, MASK);
            flying.push_back((next_id, now));
            next_id += 1;
            sent += 1;
        }
        if !out.is_empty() && !c.buffered() {
            if let Err(why) = c.send(&out).await {
                st.borrow_mut().error(|e| &mut e.write, why);
                return false;
            }
            out.clear();
        }
        let Some(&(oldest, since)) = flying.front() else {
            return true;
        };
        let got = match timeout(a.timeout.saturating_sub(since.elapsed()), c.next()).await {
            Err(_) => {
                st.borrow_mut().error(
                    |e| &mut e.timeout,
                    format!("no ack within --timeout (event {oldest})"),
                );
                return false;
            }
            Ok(Err((k, why))) => {
                st.borrow_mut().record(k, why);
                return false;
            }
            Ok(Ok(Data::Binary(b))) => {
                let n = b.len();
                st.borrow_mut()
                    .invalid_because(|| format!("unexpected binary message, {n} bytes"));
                return false;
            }
            Ok(Ok(Data::Text(t))) => t,
        };
        match sio::parse(got) {
            Ok(Packet::Sio {
                kind: sio::ACK,
                nsp,
                id: Some(id),
                data,
            }) if nsp == a.namespace.as_bytes() => {
                let Some(i) = flying.iter().position(|&(k, _)| k == id) else {
                    st.borrow_mut().invalid_because(|| {
                        format!(
                            "an ack for event {id}, which is not awaiting one (acked twice, or never sent): {}",
                            escape(got)
                        )
                    });
                    return false;
                };
                let (_, t) = flying.remove(i).expect("found above");
                let mut s = st.borrow_mut();
                if data != e.ack_args {
                    s.invalid_because(|| wrong_ack(id, data, &e.ack_args));
                    return false;
                }
                s.valid += 1;
                let _ = s.echo_us.record(us(t.elapsed()));
            }
            Ok(Packet::Ping) => client_frame_into(&mut out, 1, sio::PONG, MASK),
            Ok(Packet::Close) => {
                st.borrow_mut().error(
                    |e| &mut e.closed,
                    "Engine.IO close packet (1) from the server".into(),
                );
                return false;
            }
            Ok(Packet::Sio {
                kind: sio::DISCONNECT,
                ..
            }) => {
                st.borrow_mut().error(
                    |e| &mut e.closed,
                    format!("the server disconnected the socket: {}", escape(got)),
                );
                return false;
            }
            _ => {
                st.borrow_mut().invalid_because(|| {
                    format!(
                        "expected an ack 43<id>[\"000…\"], got text, {} bytes: {}",
                        got.len(),
                        escape(got)
                    )
                });
                return false;
            }
        }
    }
}

async fn worker(a: Rc<Args>, st: Rc<RefCell<Stats>>, e: Rc<Echo>, deadline: Instant) {
    while Instant::now() < deadline {
        let t0 = Instant::now();
        let mut c = match open_socket(&a).await {
            Ok(c) => c,
            Err(f) => {
                let refused = matches!(f, Fail::Connect(_));
                f.count(&mut st.borrow_mut());
                // A server that answers wrongly would otherwise be reconnected to in a busy loop.
                if st.borrow().invalid > 0 {
                    return;
                }
                if refused {
                    tokio::time::sleep(Duration::from_millis(10)).await;
                }
                continue;
            }
        };
        {
            let mut s = st.borrow_mut();
            s.connects += 1;
            let _ = s.connect_us.record(us(t0.elapsed()));
        }
        if session(&a, &mut c, &e, &st, deadline).await {
            let _ = c
                .send(&text_frame(sio::disconnect(&a.namespace).as_bytes()))
                .await;
            c.close().await;
        }
    }
}

pub async fn run(a: Rc<Args>) -> (Stats, Duration) {
    let st = Rc::new(RefCell::new(Stats::new()));
    let payload = "0".repeat(a.size);
    let e = Rc::new(Echo {
        prefix: sio::nsp_prefix(&a.namespace),
        args: serde_json::to_vec(&("echo", &payload)).expect("strings serialize"),
        ack_args: serde_json::to_vec(&[&payload]).expect("strings serialize"),
    });
    let start = Instant::now();
    let deadline = start + a.duration;
    let tasks: Vec<_> = (0..a.connections)
        .map(|_| tokio::task::spawn_local(worker(a.clone(), st.clone(), e.clone(), deadline)))
        .collect();
    for t in tasks {
        let _ = t.await;
    }
    let elapsed = start.elapsed();
    let st = Rc::try_unwrap(st).expect("workers done").into_inner();
    (st, elapsed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_wrong_ack_says_where_it_differs() {
        let want = serde_json::to_vec(&["0000"]).expect("json");
        assert_eq!(want, b"[\"0000\"]");
        let why = wrong_ack(21, b"[\"0001\"]", &want);
        assert!(
            why.starts_with("ack 21: expected the 8-byte arguments [\"000…\"] (the event's payload), got 8 bytes: [\"0001\"] (first difference at byte 5)"),
            "{why}"
        );
        assert!(wrong_ack(1, b"[]", &want).ends_with("(first difference at byte 1)"));
    }
}
