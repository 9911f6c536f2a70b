//! Mode `broadcast`: clients join in steps; at each step broadcasts go out one after another from rotating clients
//! and each must reach every client as the exact `{"type":"broadcastResult","payload":P}`; stepping stops when the
//! p95 round trip passes --limit-ms.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;
use std::time::{Duration, Instant};

use futures_util::stream::SplitStream;
use futures_util::{SinkExt, StreamExt};
use serde_json::json;
use tokio::sync::{mpsc, oneshot};
use tokio::time::timeout;
use tokio_tungstenite::tungstenite::Message;

use crate::cli::Args;
use crate::conn::{connect, next_data, Ws};
use crate::stats::{describe, summary, us, Stats};

struct Pending {
    sent: Instant,
    got: Vec<bool>,
    left: usize,
    done: Option<oneshot::Sender<Duration>>,
}

struct Shared {
    stats: Stats,
    /// Expected broadcastResult text → its delivery state.
    pending: HashMap<String, Pending>,
    /// Client id → the echo it waits for.
    echo: HashMap<usize, (String, Instant, oneshot::Sender<()>)>,
    stopping: bool,
}

async fn client_reader(id: usize, mut rx: SplitStream<Ws>, sh: Rc<RefCell<Shared>>) {
    loop {
        let m = next_data(&mut rx).await;
        let mut s = sh.borrow_mut();
        let m = match m {
            Ok(m) => m,
            Err((k, why)) => {
                if !s.stopping {
                    s.stats.record(k, format!("client {id}: {why}"));
                }
                return;
            }
        };
        let Message::Text(t) = &m else {
            s.stats.invalid += 1;
            s.stats
                .first_invalid
                .get_or_insert_with(|| format!("client {id}: unexpected message {}", describe(&m)));
            continue;
        };
        let s = &mut *s;
        if let Some(p) = s.pending.get_mut(t.as_str()) {
            if p.got.get(id).copied().unwrap_or(true) {
                s.stats.invalid += 1;
                s.stats
                    .first_invalid
                    .get_or_insert_with(|| format!("client {id} got a broadcast twice (or was not connected when it was sent): {}", describe(&m)));
                continue;
            }
            p.got[id] = true;
            p.left -= 1;
            s.stats.valid += 1;
            if p.left == 0 {
                let rtt = p.sent.elapsed();
                if let Some(done) = p.done.take() {
                    let _ = done.send(rtt);
                }
                s.pending.remove(t.as_str());
            }
            continue;
        }
        if s.echo
            .get(&id)
            .is_some_and(|(want, _, _)| want.as_str() == t.as_str())
        {
            let (_, sent, done) = s.echo.remove(&id).expect("checked");
            s.stats.valid += 1;
            let _ = s.stats.echo_us.record(us(sent.elapsed()));
            let _ = done.send(());
            continue;
        }
        s.stats.invalid += 1;
        s.stats
            .first_invalid
            .get_or_insert_with(|| format!("client {id}: unexpected message {}", describe(&m)));
    }
}

struct Client {
    tx: mpsc::UnboundedSender<Message>,
}

/// Connects client `id`, starts its reader and writer, and checks one echo round trip.
async fn add_client(id: usize, a: Rc<Args>, sh: Rc<RefCell<Shared>>) -> Option<Client> {
    let t0 = Instant::now();
    let ws = match timeout(a.timeout, connect(&a, None)).await {
        Ok(Ok(ws)) => ws,
        Ok(Err(why)) => {
            sh.borrow_mut().stats.error(|e| &mut e.connect, why);
            return None;
        }
        Err(_) => {
            sh.borrow_mut()
                .stats
                .error(|e| &mut e.timeout, "connect + handshake timed out".into());
            return None;
        }
    };
    {
        let mut s = sh.borrow_mut();
        s.stats.connects += 1;
        let _ = s.stats.connect_us.record(us(t0.elapsed()));
    }
    let (mut sink, stream) = ws.split();
    let (tx, mut rx) = mpsc::unbounded_channel::<Message>();
    let shw = sh.clone();
    tokio::task::spawn_local(async move {
        while let Some(m) = rx.recv().await {
            if let Err(e) = sink.send(m).await {
                let mut s = shw.borrow_mut();
                if !s.stopping {
                    s.stats
                        .error(|e| &mut e.write, format!("client {id}: write: {e}"));
                }
                return;
            }
        }
        let _ = sink.close().await;
    });
    tokio::task::spawn_local(client_reader(id, stream, sh.clone()));
    let payload = format!(
        r#"{{"id":"echo-{id}","ts":{},"pad":"{}"}}"#,
        us(t0.elapsed()),
        "0".repeat(a.padding)
    );
    let text = format!(r#"{{"type":"echo","payload":{payload}}}"#);
    let (done, wait) = oneshot::channel();
    sh.borrow_mut()
        .echo
        .insert(id, (text.clone(), Instant::now(), done));
    let _ = tx.send(Message::text(text));
    match timeout(a.timeout, wait).await {
        Ok(Ok(())) => Some(Client { tx }),
        _ => {
            let mut s = sh.borrow_mut();
            s.echo.remove(&id);
            s.stats.error(
                |e| &mut e.timeout,
                format!("client {id}: no echo within --timeout"),
            );
            None
        }
    }
}

fn p95(v: &mut [u64]) -> u64 {
    v.sort_unstable();
    let i = ((v.len() as f64) * 0.95).ceil() as usize;
    v[i.clamp(1, v.len()) - 1]
}

pub async fn run(a: Rc<Args>) -> (Stats, Duration, serde_json::Value) {
    let sh = Rc::new(RefCell::new(Shared {
        stats: Stats::new(),
        pending: HashMap::new(),
        echo: HashMap::new(),
        stopping: false,
    }));
    let start = Instant::now();
    let mut clients: Vec<Client> = Vec::new();
    let mut steps = Vec::new();
    let mut rtt_all = crate::stats::histogram();
    let mut held: usize = 0;
    let mut held_rtt = json!(null);
    let mut stopped = "max-clients reached";
    let mut seq: u64 = 0;
    'steps: loop {
        let target = (clients.len() + a.step).min(a.max_clients);
        if target == clients.len() {
            break;
        }
        if start.elapsed() >= a.duration {
            stopped = "time budget (--duration) used up";
            break;
        }
        // Connect the new clients, at most 64 at a time.
        while clients.len() < target {
            let first = clients.len();
            let n = (target - first).min(64);
            let added = futures_util::future::join_all(
                (first..first + n).map(|id| add_client(id, a.clone(), sh.clone())),
            )
            .await;
            for c in added {
                match c {
                    Some(c) => clients.push(c),
                    None => {
                        stopped = "a client could not connect or echo";
                        break 'steps;
                    }
                }
            }
        }
        let n = clients.len();
        let mut rtts = Vec::with_capacity(a.samples);
        for i in 0..a.samples {
            seq += 1;
            let sender = (seq as usize) % n;
            let payload = format!(
                r#"{{"id":{seq},"ts":{},"pad":"{}"}}"#,
                us(start.elapsed()),
                "0".repeat(a.padding)
            );
            let expected = format!(r#"{{"type":"broadcastResult","payload":{payload}}}"#);
            let (done, wait) = oneshot::channel();
            sh.borrow_mut().pending.insert(
                expected.clone(),
                Pending {
                    sent: Instant::now(),
                    got: vec![false; n],
                    left: n,
                    done: Some(done),
                },
            );
            let _ = clients[sender].tx.send(Message::text(format!(
                r#"{{"type":"broadcast","payload":{payload}}}"#
            )));
            match timeout(a.timeout, wait).await {
                Ok(Ok(rtt)) => {
                    rtts.push(us(rtt));
                    let _ = rtt_all.record(us(rtt));
                }
                _ => {
                    let mut s = sh.borrow_mut();
                    let left = s.pending.remove(&expected).map_or(0, |p| p.left);
                    s.stats.error(
                        |e| &mut e.timeout,
                        format!("broadcast {i} at {n} clients: {left} clients did not get it within --timeout"),
                    );
                    stopped = "a broadcast timed out";
                    break 'steps;
                }
            }
        }
        let mut sorted = rtts.clone();
        let p = p95(&mut sorted);
        let mean = rtts.iter().sum::<u64>() as f64 / rtts.len() as f64;
        let step = json!({"clients": n, "rtt_us": {"min": sorted[0], "median": sorted[sorted.len() / 2],
                          "mean": mean.round(), "p95": p, "max": sorted[sorted.len() - 1]}});
        steps.push(step.clone());
        if Duration::from_micros(p) > a.limit {
            stopped = "p95 round trip over the limit";
            break;
        }
        held = n;
        held_rtt = step["rtt_us"].clone();
    }
    sh.borrow_mut().stopping = true;
    drop(clients);
    tokio::time::sleep(Duration::from_millis(50)).await;
    let elapsed = start.elapsed();
    let extra = json!({"clients_held": held, "held_rtt_us": held_rtt, "stopped": stopped, "steps": steps,
                       "limit_ms": a.limit.as_millis() as u64, "broadcast_rtt_us": summary(&rtt_all)});
    let stats = std::mem::replace(&mut sh.borrow_mut().stats, Stats::new());
    (stats, elapsed, extra)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn p95_is_the_nearest_rank() {
        assert_eq!(p95(&mut [5]), 5);
        assert_eq!(p95(&mut (1..=20).rev().collect::<Vec<_>>()), 19);
        assert_eq!(p95(&mut (1..=100).collect::<Vec<_>>()), 95);
    }
}
