//! Mode `idle`: opens --connections WebSocket connections at --rate per second, holds them open and silent for
//! --hold seconds (the harness reads the server's memory meanwhile: `holding N` and `checking` on stderr mark the
//! window), then pings every one (64 at a time), which must answer with the same pong, and closes them.

use std::cell::RefCell;
use std::io::Write;
use std::rc::Rc;
use std::time::{Duration, Instant};

use futures_util::{SinkExt, StreamExt};
use serde_json::json;
use tokio::time::timeout;
use tokio_tungstenite::tungstenite::Message;

use crate::cli::Args;
use crate::conn::{connect, Ws};
use crate::stats::{describe, histogram, summary, us, Stats};

/// Pings in flight at once after the hold.
const CHECKING: usize = 64;

/// Opens one connection; errors are counted in `st`.
async fn open(a: Rc<Args>, st: Rc<RefCell<Stats>>) -> Option<Ws> {
    let t0 = Instant::now();
    match timeout(a.timeout, connect(&a, None)).await {
        Ok(Ok(ws)) => {
            let mut s = st.borrow_mut();
            s.connects += 1;
            let _ = s.connect_us.record(us(t0.elapsed()));
            Some(ws)
        }
        Ok(Err(why)) => {
            st.borrow_mut().error(|e| &mut e.connect, why);
            None
        }
        Err(_) => {
            st.borrow_mut()
                .error(|e| &mut e.timeout, "connect + handshake timed out".into());
            None
        }
    }
}

/// Pings connection `i` and waits for its pong: Ok(round trip) or the error already counted.
async fn check(i: usize, ws: &mut Ws, a: &Args, st: &RefCell<Stats>) -> Result<Duration, ()> {
    let payload = format!("idle-{i}").into_bytes();
    let t = Instant::now();
    if let Err(e) = ws.send(Message::Ping(payload.clone().into())).await {
        st.borrow_mut()
            .error(|e| &mut e.write, format!("connection {i}: ping: {e}"));
        return Err(());
    }
    let got = timeout(a.timeout, async {
        loop {
            match ws.next().await {
                None => return Err(("closed", "closed by the server while idle".to_string())),
                Some(Err(e)) => return Err(("read", format!("read: {e}"))),
                Some(Ok(Message::Pong(p))) if p[..] == payload[..] => return Ok(()),
                // A server's own ping (answered by tungstenite) is not the answer.
                Some(Ok(Message::Ping(_))) => {}
                Some(Ok(m)) => return Err(("invalid", describe(&m))),
            }
        }
    })
    .await;
    let mut s = st.borrow_mut();
    match got {
        Ok(Ok(())) => {
            s.valid += 1;
            Ok(t.elapsed())
        }
        Err(_) => {
            s.error(
                |e| &mut e.timeout,
                format!("connection {i}: no pong within --timeout"),
            );
            Err(())
        }
        Ok(Err(("closed", why))) => {
            s.error(|e| &mut e.closed, format!("connection {i}: {why}"));
            Err(())
        }
        Ok(Err(("read", why))) => {
            s.error(|e| &mut e.read, format!("connection {i}: {why}"));
            Err(())
        }
        Ok(Err((_, what))) => {
            s.invalid_because(|| {
                format!("connection {i}: expected the pong of its ping, got {what}")
            });
            Err(())
        }
    }
}

pub async fn run(a: Rc<Args>) -> (Stats, Duration, serde_json::Value) {
    let st = Rc::new(RefCell::new(Stats::new()));
    let start = Instant::now();
    // Ramp: every 10 ms, start as many connects as the rate allows so far.
    let mut tasks = Vec::with_capacity(a.connections);
    let mut tick = tokio::time::interval(Duration::from_millis(10));
    while tasks.len() < a.connections {
        tick.tick().await;
        let due = ((start.elapsed().as_secs_f64() * a.rate as f64).ceil() as usize)
            .clamp(1, a.connections);
        while tasks.len() < due {
            tasks.push(tokio::task::spawn_local(open(a.clone(), st.clone())));
        }
    }
    let mut conns = Vec::with_capacity(a.connections);
    for t in tasks {
        if let Ok(Some(ws)) = t.await {
            conns.push(ws);
        }
    }
    let open_s = start.elapsed().as_secs_f64();
    let opened = conns.len();
    let mut err = std::io::stderr();
    let _ = writeln!(err, "holding {opened}");
    tokio::time::sleep(a.hold).await;
    let _ = writeln!(err, "checking");
    let mut pong = histogram();
    // At most CHECKING pings in flight, so a pong's round trip is not mostly the queue of 10 000 others.
    let rtts: Vec<Result<Duration, ()>> = futures_util::stream::iter(conns.iter_mut().enumerate())
        .map(|(i, ws)| check(i, ws, &a, &st))
        .buffer_unordered(CHECKING)
        .collect()
        .await;
    for rtt in rtts.into_iter().flatten() {
        let _ = pong.record(us(rtt));
    }
    let elapsed = start.elapsed();
    drop(conns);
    let extra = json!({"connections": a.connections, "opened": opened, "rate": a.rate,
                       "open_s": (open_s * 1000.0).round() / 1000.0, "hold_s": a.hold.as_secs_f64(),
                       "pong_us": summary(&pong)});
    let st = Rc::try_unwrap(st).expect("tasks done").into_inner();
    (st, elapsed, extra)
}
