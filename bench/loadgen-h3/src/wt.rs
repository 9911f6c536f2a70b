//! WebTransport load (`--mode wt-stream` or `wt-datagram`): each connection opens one session (an extended CONNECT
//! with `:protocol` webtransport, answered 200) and its `--streams` workers echo `--size`-byte messages, checking
//! every byte: on a bidirectional stream of each worker's own (its header, then message after message, each read
//! back whole before the next), or as datagrams (numbered; one reader per connection hands each echo to its worker;
//! one not back within `--timeout` is counted lost, as datagrams may be).

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;
use std::time::{Duration, Instant};

use bytes::Bytes;

use crate::cli::Args;
use crate::run::Shared;

/// QUIC's variable-length integer (RFC 9000 §16).
fn varint(v: u64, out: &mut Vec<u8>) {
    match v {
        0..=0x3f => out.push(v as u8),
        0x40..=0x3fff => out.extend_from_slice(&((v as u16) | 0x4000).to_be_bytes()),
        0x4000..=0x3fff_ffff => out.extend_from_slice(&((v as u32) | 0x8000_0000).to_be_bytes()),
        _ => out.extend_from_slice(&(v | 0xc000_0000_0000_0000).to_be_bytes()),
    }
}

/// A session: the QUIC connection, its CONNECT stream's ID, and what keeps HTTP/3 and the CONNECT stream alive.
pub struct Session {
    pub conn: quinn::Connection,
    pub id: u64,
    _keep: tokio::task::JoinHandle<()>,
}

/// Opens a connection and a WebTransport session on it.
pub async fn open(endpoint: &quinn::Endpoint, args: &Args) -> Result<Session, String> {
    let conn = endpoint
        .connect(args.addr, &args.server_name)
        .map_err(|e| e.to_string())?
        .await
        .map_err(|e| e.to_string())?;
    let mut builder = h3::client::builder();
    builder.enable_extended_connect(true).enable_datagram(true);
    let (mut driver, mut sender) = builder
        .build::<_, _, Bytes>(h3_quinn::Connection::new(conn.clone()))
        .await
        .map_err(|e| e.to_string())?;
    let mut req = http::Request::builder()
        .method(http::Method::CONNECT)
        .uri(&args.targets[0].uri)
        .body(())
        .map_err(|e| e.to_string())?;
    req.extensions_mut()
        .insert(h3::ext::Protocol::WEB_TRANSPORT);
    let mut stream = sender.send_request(req).await.map_err(|e| e.to_string())?;
    let status = stream
        .recv_response()
        .await
        .map_err(|e| e.to_string())?
        .status();
    if status != 200 {
        return Err(format!("the CONNECT was answered {status}"));
    }
    let id = stream.id().into_inner();
    let keep = tokio::task::spawn_local(async move {
        let _held = (stream, sender);
        std::future::poll_fn(|cx| driver.poll_close(cx)).await;
    });
    Ok(Session {
        conn,
        id,
        _keep: keep,
    })
}

/// Message `n` of `size` bytes: its number, then a filler that changes with it (a stale or shifted echo differs).
fn message(n: u64, size: usize) -> Vec<u8> {
    let mut m = n.to_le_bytes().to_vec();
    m.extend((0..size.saturating_sub(8)).map(|i| b'a' + ((n as usize + i) % 26) as u8));
    m.truncate(size.max(8));
    m
}

fn record(sh: &Shared, ok: bool, t0: Instant, why: impl FnOnce() -> String) {
    if !sh.counting() {
        return;
    }
    let mut st = sh.stats.borrow_mut();
    if ok {
        st.ok += 1;
    } else {
        st.invalid += 1;
        st.first_invalid.get_or_insert_with(why);
    }
    let _ = st.latency.record((t0.elapsed().as_micros() as u64).max(1));
}

/// One worker's stream: echoes until the run stops. False when the stream or connection failed.
pub async fn stream_worker(s: Rc<Session>, sh: Rc<Shared>) -> bool {
    let Ok((mut send, mut recv)) = s.conn.open_bi().await else {
        return false;
    };
    let mut head = Vec::new();
    varint(0x41, &mut head);
    varint(s.id, &mut head);
    if send.write_all(&head).await.is_err() {
        return false;
    }
    let size = sh.args.size;
    let mut back = vec![0u8; size.max(8)];
    let mut n = 0u64;
    while !sh.stopping() {
        n += 1;
        let msg = message(n, size);
        let t0 = Instant::now();
        let echoed = tokio::time::timeout(sh.args.timeout, async {
            send.write_all(&msg).await.map_err(|_| ())?;
            recv.read_exact(&mut back).await.map_err(|_| ())
        })
        .await;
        match echoed {
            Ok(Ok(())) => record(&sh, back == msg, t0, || format!("echo {n} differs")),
            Ok(Err(())) => {
                if sh.counting() {
                    sh.stats.borrow_mut().errors.read += 1;
                }
                return false;
            }
            Err(_) => {
                if sh.counting() {
                    sh.stats.borrow_mut().errors.timeout += 1;
                }
                return false;
            }
        }
    }
    let _ = send.finish();
    true
}

type Waiting = Rc<RefCell<HashMap<u64, tokio::sync::oneshot::Sender<Bytes>>>>;

/// A connection's datagram reader: each echo to the worker waiting for its number.
pub async fn datagram_reader(s: Rc<Session>, waiting: Waiting) {
    while let Ok(d) = s.conn.read_datagram().await {
        // The quarter stream ID (one byte for the first sessions), then the message.
        let skip = 1usize << (d.first().map_or(0, |b| b >> 6));
        let body = d.slice(skip.min(d.len())..);
        let n = body
            .get(..8)
            .map_or(0, |b| u64::from_le_bytes(b.try_into().expect("8 bytes")));
        if let Some(tx) = waiting.borrow_mut().remove(&n) {
            let _ = tx.send(body);
        }
    }
}

/// One worker's datagrams: one in flight at a time, numbered apart from the other workers'.
pub async fn datagram_worker(
    s: Rc<Session>,
    sh: Rc<Shared>,
    waiting: Waiting,
    first: u64,
    every: u64,
) -> bool {
    let mut prefix = Vec::new();
    varint(s.id / 4, &mut prefix);
    let mut n = first;
    while !sh.stopping() {
        n += every;
        let msg = message(n, sh.args.size);
        let (tx, rx) = tokio::sync::oneshot::channel();
        waiting.borrow_mut().insert(n, tx);
        let t0 = Instant::now();
        let mut d = prefix.clone();
        d.extend_from_slice(&msg);
        if s.conn.send_datagram(d.into()).is_err() {
            return false;
        }
        match tokio::time::timeout(sh.args.timeout, rx).await {
            Ok(Ok(body)) => record(&sh, body[..] == msg[..], t0, || {
                format!("datagram {n} differs")
            }),
            _ => {
                waiting.borrow_mut().remove(&n);
                if sh.counting() {
                    sh.stats.borrow_mut().lost += 1;
                }
                // A lost datagram is not a failure; the next one goes after a short pause.
                tokio::time::sleep(Duration::from_millis(1)).await;
            }
        }
    }
    true
}

/// A connection's workers for the WebTransport modes; false when it was lost.
pub async fn connection(s: Session, sh: Rc<Shared>) -> bool {
    let s = Rc::new(s);
    let streams = sh.args.streams as u64;
    let workers: Vec<_> = if sh.args.mode == crate::cli::Mode::WtDatagram {
        let waiting: Waiting = Rc::default();
        let reader = tokio::task::spawn_local(datagram_reader(s.clone(), waiting.clone()));
        let w = (0..streams)
            .map(|i| {
                tokio::task::spawn_local(datagram_worker(
                    s.clone(),
                    sh.clone(),
                    waiting.clone(),
                    i,
                    streams,
                ))
            })
            .collect();
        drop(reader);
        w
    } else {
        (0..streams)
            .map(|_| tokio::task::spawn_local(stream_worker(s.clone(), sh.clone())))
            .collect()
    };
    let mut ok = true;
    for w in workers {
        ok &= w.await.unwrap_or(false);
    }
    ok
}
