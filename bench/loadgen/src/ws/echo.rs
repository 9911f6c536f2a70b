//! Modes `echo` and `fastws`: each of --connections workers connects, sends --messages messages one after another
//! (each only after the exact answer to the previous one), closes and connects again until --duration has passed.
//! `echo` expects each text back as sent; `fastws` speaks the fast-ws protocol (greeting, `echo` events, replies).

use std::cell::RefCell;
use std::rc::Rc;
use std::time::{Duration, Instant};

use futures_util::{SinkExt, StreamExt};
use tokio::time::timeout;
use tokio_tungstenite::tungstenite::{Message, Utf8Bytes};

use crate::cli::{Args, Mode};
use crate::conn::{connect, next_data, Ws};
use crate::fastws;
use crate::stats::{describe, escape, us, Stats};

/// What a worker sends and expects.
enum Proto {
    /// The payload, sent as a text message and expected back as it was.
    Ws(Utf8Bytes),
    /// The `echo` event id and ENC(payload).
    FastWs { id: String, encoded: String },
}

impl Proto {
    /// The `seq`-th message of a connection and the exact answer expected.
    fn message(&self, seq: u16) -> (Utf8Bytes, Utf8Bytes) {
        match self {
            Proto::Ws(p) => (p.clone(), p.clone()),
            Proto::FastWs { id, encoded } => (
                fastws::event(id, seq, encoded).into(),
                fastws::reply(seq, encoded).into(),
            ),
        }
    }
}

/// Connects (fastws: with the subprotocol, then waits for the greeting). Errors are counted here; None = not usable.
async fn open(a: &Args, proto: &Proto, st: &RefCell<Stats>) -> Option<Ws> {
    let fast = matches!(proto, Proto::FastWs { .. });
    let t0 = Instant::now();
    let mut ws = match timeout(a.timeout, connect(a, fast.then_some(fastws::PROTOCOL))).await {
        Ok(Ok(ws)) => ws,
        Ok(Err(why)) => {
            st.borrow_mut().error(|e| &mut e.connect, why);
            tokio::time::sleep(Duration::from_millis(10)).await;
            return None;
        }
        Err(_) => {
            st.borrow_mut()
                .error(|e| &mut e.timeout, "connect + handshake timed out".into());
            return None;
        }
    };
    if fast {
        match timeout(a.timeout, next_data(&mut ws)).await {
            Err(_) => {
                st.borrow_mut().error(
                    |e| &mut e.timeout,
                    "no fast-ws greeting within --timeout".into(),
                );
                return None;
            }
            Ok(Err((k, why))) => {
                st.borrow_mut()
                    .record(k, format!("before the greeting: {why}"));
                return None;
            }
            Ok(Ok(Message::Text(t))) if t.as_str() == fastws::GREETING => {}
            Ok(Ok(m)) => {
                st.borrow_mut().invalid_because(|| {
                    format!(
                        "server version mismatch: the first frame must be the 2-byte text {}, got {}",
                        escape(fastws::GREETING.as_bytes()),
                        describe(&m)
                    )
                });
                return None;
            }
        }
    }
    let mut s = st.borrow_mut();
    s.connects += 1;
    let _ = s.connect_us.record(us(t0.elapsed()));
    Some(ws)
}

async fn worker(a: Rc<Args>, st: Rc<RefCell<Stats>>, proto: Rc<Proto>, deadline: Instant) {
    while Instant::now() < deadline {
        let Some(mut ws) = open(&a, &proto, &st).await else {
            // A server that answers wrongly would otherwise be reconnected to in a busy loop.
            if st.borrow().invalid > 0 {
                return;
            }
            continue;
        };
        let mut healthy = true;
        let mut seq: u16 = 0;
        for _ in 0..a.messages {
            if Instant::now() >= deadline {
                break;
            }
            let (msg, expected) = proto.message(seq);
            seq = seq.wrapping_add(1);
            let t = Instant::now();
            if let Err(e) = ws.send(Message::Text(msg)).await {
                st.borrow_mut()
                    .error(|e| &mut e.write, format!("write: {e}"));
                healthy = false;
                break;
            }
            match timeout(a.timeout, next_data(&mut ws)).await {
                Err(_) => {
                    st.borrow_mut()
                        .error(|e| &mut e.timeout, "no echo within --timeout".into());
                    healthy = false;
                    break;
                }
                Ok(Err((k, why))) => {
                    st.borrow_mut().record(k, why);
                    healthy = false;
                    break;
                }
                Ok(Ok(m)) => {
                    let mut s = st.borrow_mut();
                    if matches!(&m, Message::Text(got) if got.as_str() == expected.as_str()) {
                        s.valid += 1;
                        let _ = s.echo_us.record(us(t.elapsed()));
                    } else {
                        s.invalid(&m, expected.as_str());
                        healthy = false;
                        break;
                    }
                }
            }
        }
        if healthy {
            let _ = timeout(Duration::from_secs(1), async {
                if ws.close(None).await.is_ok() {
                    while let Some(Ok(_)) = ws.next().await {}
                }
            })
            .await;
        }
    }
}

pub async fn run(a: Rc<Args>) -> (Stats, Duration) {
    let st = Rc::new(RefCell::new(Stats::new()));
    let payload = "0".repeat(a.size);
    let proto = Rc::new(match a.mode {
        Mode::FastWs => Proto::FastWs {
            id: fastws::event_id("echo"),
            encoded: fastws::encode_string(&payload),
        },
        _ => Proto::Ws(payload.into()),
    });
    let start = Instant::now();
    let deadline = start + a.duration;
    let mut tasks = Vec::with_capacity(a.connections);
    for _ in 0..a.connections {
        tasks.push(tokio::task::spawn_local(worker(
            a.clone(),
            st.clone(),
            proto.clone(),
            deadline,
        )));
    }
    for t in tasks {
        let _ = t.await;
    }
    let elapsed = start.elapsed();
    let st = Rc::try_unwrap(st).expect("workers done").into_inner();
    (st, elapsed)
}
