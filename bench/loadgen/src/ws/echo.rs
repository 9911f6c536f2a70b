//! Modes `echo` and `fastws`: each of --connections workers connects, sends --messages messages one after another
//! (each only after the exact answer to the previous one), closes and connects again until --duration has passed.
//! `echo` expects each text back as sent; `fastws` speaks the fast-ws protocol (greeting, `echo` events, replies).
//! Connections use the minimal client of raw.rs, so an echo costs the generator far less than it costs a server.

use std::cell::RefCell;
use std::rc::Rc;
use std::time::{Duration, Instant};

use tokio::time::timeout;

use crate::cli::{Args, Mode};
use crate::fastws;
use crate::h2::Shared;
use crate::raw::{client_frame, Data, RawConn, MASK};
use crate::stats::{escape, us, Stats};

/// What a worker sends and expects.
enum Proto {
    /// The payload, sent as a text message (the frame built once) and expected back as it was.
    Ws { frame: Vec<u8>, payload: Vec<u8> },
    /// The `echo` event id and ENC(payload).
    FastWs { id: String, encoded: String },
}

impl Proto {
    /// Sends the `seq`-th message of a connection; returns the exact answer expected (None: the payload itself).
    async fn send(&self, c: &mut RawConn, seq: u16) -> Result<Option<Vec<u8>>, String> {
        match self {
            Proto::Ws { frame, .. } => c.send(frame).await.map(|()| None),
            Proto::FastWs { id, encoded } => {
                let text = fastws::event(id, seq, encoded);
                c.send(&client_frame(1, text.as_bytes(), MASK)).await?;
                Ok(Some(fastws::reply(seq, encoded).into_bytes()))
            }
        }
    }
}

/// Connects (fastws: with the subprotocol, then waits for the greeting). Errors are counted here; None = not usable.
async fn open(
    a: &Args,
    proto: &Proto,
    st: &RefCell<Stats>,
    shared: Option<&Shared>,
) -> Option<RawConn> {
    let fast = matches!(proto, Proto::FastWs { .. });
    let t0 = Instant::now();
    let mut c = match timeout(
        a.timeout,
        RawConn::open(a, fast.then_some(fastws::PROTOCOL), shared),
    )
    .await
    {
        Ok(Ok(c)) => c,
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
        let greeting = fastws::GREETING.as_bytes();
        match timeout(a.timeout, c.next()).await {
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
            Ok(Ok(Data::Text(t))) if t == greeting => {}
            Ok(Ok(d)) => {
                let (kind, got) = match d {
                    Data::Text(t) => ("text", t),
                    Data::Binary(b) => ("binary", b),
                };
                st.borrow_mut().invalid_because(|| {
                    format!(
                        "server version mismatch: the first frame must be the 2-byte text {}, got {kind}, {} bytes: {}",
                        escape(greeting),
                        got.len(),
                        escape(got)
                    )
                });
                return None;
            }
        }
    }
    let mut s = st.borrow_mut();
    s.connects += 1;
    let _ = s.connect_us.record(us(t0.elapsed()));
    Some(c)
}

/// One message's round trip on `c`: Ok(true) when the answer was exact; errors and invalid answers are counted.
async fn round_trip(
    a: &Args,
    proto: &Proto,
    c: &mut RawConn,
    seq: u16,
    st: &RefCell<Stats>,
) -> bool {
    let t = Instant::now();
    let expected = match proto.send(c, seq).await {
        Ok(e) => e,
        Err(why) => {
            st.borrow_mut().error(|e| &mut e.write, why);
            return false;
        }
    };
    let want: &[u8] = match (&expected, proto) {
        (Some(e), _) => e,
        (None, Proto::Ws { payload, .. }) => payload,
        (None, Proto::FastWs { .. }) => unreachable!("fast-ws answers are built per message"),
    };
    match timeout(a.timeout, c.next()).await {
        Err(_) => {
            st.borrow_mut()
                .error(|e| &mut e.timeout, "no echo within --timeout".into());
            false
        }
        Ok(Err((k, why))) => {
            st.borrow_mut().record(k, why);
            false
        }
        Ok(Ok(Data::Text(got))) if got == want => {
            let mut s = st.borrow_mut();
            s.valid += 1;
            let _ = s.echo_us.record(us(t.elapsed()));
            true
        }
        Ok(Ok(d)) => {
            let (kind, got) = match d {
                Data::Text(t) => ("text", t),
                Data::Binary(b) => ("binary", b),
            };
            st.borrow_mut().invalid(kind, got, want);
            false
        }
    }
}

async fn worker(
    a: Rc<Args>,
    st: Rc<RefCell<Stats>>,
    proto: Rc<Proto>,
    deadline: Instant,
    shared: Option<Rc<Shared>>,
) {
    while Instant::now() < deadline {
        let Some(mut c) = open(&a, &proto, &st, shared.as_deref()).await else {
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
            if !round_trip(&a, &proto, &mut c, seq, &st).await {
                healthy = false;
                break;
            }
            seq = seq.wrapping_add(1);
        }
        if healthy {
            c.close().await;
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
        _ => Proto::Ws {
            frame: client_frame(1, payload.as_bytes(), MASK),
            payload: payload.into_bytes(),
        },
    });
    // `--streams` > 1: each group of that many workers opens its WebSockets on one HTTP/2 connection, made here
    // one after another (so a group's first streams do not each make their own).
    let mut groups = Vec::new();
    if a.streams > 1 {
        for _ in 0..a.connections.div_ceil(a.streams) {
            let shared = Rc::new(Shared::default());
            if let Err(why) = shared.open(&a).await {
                st.borrow_mut().error(|e| &mut e.connect, why);
            }
            groups.push(shared);
        }
    }
    let start = Instant::now();
    let deadline = start + a.duration;
    let mut tasks = Vec::with_capacity(a.connections);
    for i in 0..a.connections {
        tasks.push(tokio::task::spawn_local(worker(
            a.clone(),
            st.clone(),
            proto.clone(),
            deadline,
            groups.get(i / a.streams.max(1)).cloned(),
        )));
    }
    for t in tasks {
        let _ = t.await;
    }
    let elapsed = start.elapsed();
    let st = Rc::try_unwrap(st).expect("workers done").into_inner();
    (st, elapsed)
}
