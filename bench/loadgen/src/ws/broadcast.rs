//! Mode `broadcast`: clients join in steps; at each step broadcasts go out from rotating clients, --concurrent in
//! flight, and each must reach every client as the exact `{"type":"broadcastResult","payload":P}`; stepping stops when
//! the p95 round trip passes --limit-ms or when this generator is the bottleneck (on its CPU for 95 % of a step).
//! Clients use the minimal client of raw.rs: receiving a delivery is one read and a byte comparison with the few
//! broadcasts in flight, so the generator stays below the server's cost per delivery for as long as it can.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;
use std::time::{Duration, Instant};

use serde_json::json;
use tokio::sync::{mpsc, oneshot};
use tokio::time::timeout;

use crate::cli::Args;
use crate::client;
use crate::raw;
use crate::stats::{escape, summary, thread_cpu_ns, us, Stats};

/// A broadcast in flight: its exact expected text and who got it.
struct Pending {
    expected: Vec<u8>,
    sent: Instant,
    got: Vec<bool>,
    left: usize,
}

struct Shared {
    stats: Stats,
    /// The broadcasts in flight (at most --concurrent).
    pending: Vec<Pending>,
    /// Round trips of finished broadcasts, for the step loop.
    done: mpsc::UnboundedSender<Duration>,
    /// Client id → the echo it waits for.
    echo: HashMap<usize, (Vec<u8>, Instant, oneshot::Sender<()>)>,
    stopping: bool,
}

/// What a client's reader saw in one text frame.
fn on_text(id: usize, t: &[u8], s: &mut Shared) {
    if let Some(i) = s.pending.iter().position(|p| p.expected == t) {
        let p = &mut s.pending[i];
        if p.got.get(id).copied().unwrap_or(true) {
            s.stats.invalid_because(|| {
                format!(
                    "client {id} got a broadcast twice (or was not connected when it was sent): text, {} bytes: {}",
                    t.len(),
                    escape(t)
                )
            });
            return;
        }
        p.got[id] = true;
        p.left -= 1;
        let finished = p.left == 0;
        s.stats.valid += 1;
        if finished {
            let p = s.pending.swap_remove(i);
            let _ = s.done.send(p.sent.elapsed());
        }
        return;
    }
    if s.echo.get(&id).is_some_and(|(want, _, _)| want == t) {
        let (_, sent, done) = s.echo.remove(&id).expect("checked");
        s.stats.valid += 1;
        let _ = s.stats.echo_us.record(us(sent.elapsed()));
        let _ = done.send(());
        return;
    }
    s.stats.invalid_because(|| {
        format!(
            "client {id}: unexpected message text, {} bytes: {}",
            t.len(),
            escape(t)
        )
    });
}

impl client::Receiver for Shared {
    fn stats(&mut self) -> &mut Stats {
        &mut self.stats
    }
    fn stopping(&self) -> bool {
        self.stopping
    }
    fn on_text(&mut self, id: usize, t: &[u8]) -> Option<Vec<u8>> {
        on_text(id, t, self);
        None
    }
}

struct Client {
    /// Whole masked frames to write.
    tx: mpsc::UnboundedSender<Vec<u8>>,
}

/// A masked text frame (the mask varies from frame to frame; it need not be unpredictable here).
fn text_frame(text: &str, seq: u64) -> Vec<u8> {
    let m = (seq.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 32) as u32;
    raw::client_frame(1, text.as_bytes(), m.to_be_bytes())
}

/// Connects client `id`, starts its reader and writer, and checks one echo round trip.
async fn add_client(id: usize, a: Rc<Args>, sh: Rc<RefCell<Shared>>) -> Option<Client> {
    let t0 = Instant::now();
    let (tcp, rest) = match timeout(a.timeout, raw::connect(&a)).await {
        Ok(Ok(x)) => x,
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
    let tx = client::spawn(id, tcp, rest, sh.clone());
    let payload = format!(
        r#"{{"id":"echo-{id}","ts":{},"pad":"{}"}}"#,
        us(t0.elapsed()),
        "0".repeat(a.padding)
    );
    let text = format!(r#"{{"type":"echo","payload":{payload}}}"#);
    let (done, wait) = oneshot::channel();
    sh.borrow_mut()
        .echo
        .insert(id, (text.clone().into_bytes(), Instant::now(), done));
    let _ = tx.send(text_frame(&text, id as u64));
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

/// The generator counts as the bottleneck of a step when it was on its CPU this much of the step's time.
const SATURATED: f64 = 0.95;

pub async fn run(a: Rc<Args>) -> (Stats, Duration, serde_json::Value) {
    let (done_tx, mut done_rx) = mpsc::unbounded_channel();
    let sh = Rc::new(RefCell::new(Shared {
        stats: Stats::new(),
        pending: Vec::new(),
        done: done_tx,
        echo: HashMap::new(),
        stopping: false,
    }));
    let start = Instant::now();
    let mut clients: Vec<Client> = Vec::new();
    let mut steps = Vec::new();
    let mut rtt_all = crate::stats::histogram();
    let mut held: usize = 0;
    let mut held_rtt = json!(null);
    let mut held_rate = json!(null);
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
        let (t0, cpu0) = (Instant::now(), thread_cpu_ns());
        let (mut sent, mut in_flight) = (0, 0);
        while rtts.len() < a.samples {
            while in_flight < a.concurrent && sent < a.samples {
                seq += 1;
                sent += 1;
                in_flight += 1;
                let sender = (seq as usize) % n;
                let payload = format!(
                    r#"{{"id":{seq},"ts":{},"pad":"{}"}}"#,
                    us(start.elapsed()),
                    "0".repeat(a.padding)
                );
                let expected = format!(r#"{{"type":"broadcastResult","payload":{payload}}}"#);
                let frame = text_frame(
                    &format!(r#"{{"type":"broadcast","payload":{payload}}}"#),
                    seq,
                );
                sh.borrow_mut().pending.push(Pending {
                    expected: expected.into_bytes(),
                    sent: Instant::now(),
                    got: vec![false; n],
                    left: n,
                });
                let _ = clients[sender].tx.send(frame);
            }
            match timeout(a.timeout, done_rx.recv()).await {
                Ok(Some(rtt)) => {
                    in_flight -= 1;
                    rtts.push(us(rtt));
                    let _ = rtt_all.record(us(rtt));
                }
                _ => {
                    let mut s = sh.borrow_mut();
                    let left: usize = s.pending.iter().map(|p| p.left).sum();
                    s.pending.clear();
                    let i = rtts.len();
                    s.stats.error(
                        |e| &mut e.timeout,
                        format!("broadcast {i} at {n} clients: {left} deliveries missing after --timeout"),
                    );
                    stopped = "a broadcast timed out";
                    break 'steps;
                }
            }
        }
        let wall = t0.elapsed();
        let busy = match (cpu0, thread_cpu_ns()) {
            (Some(c0), Some(c1)) => {
                Some(c1.saturating_sub(c0) as f64 / wall.as_nanos().max(1) as f64)
            }
            _ => None,
        };
        let rate = (n * a.samples) as f64 / wall.as_secs_f64();
        let mut sorted = rtts.clone();
        let p = p95(&mut sorted);
        let mean = rtts.iter().sum::<u64>() as f64 / rtts.len() as f64;
        let step = json!({"clients": n, "rtt_us": {"min": sorted[0], "median": sorted[sorted.len() / 2],
                          "mean": mean.round(), "p95": p, "max": sorted[sorted.len() - 1]},
                          "deliveries_per_s": rate.round(), "generator_cpu": busy.map(|b| (b * 100.0).round() / 100.0)});
        steps.push(step.clone());
        if Duration::from_micros(p) > a.limit {
            stopped = "p95 round trip over the limit";
            break;
        }
        held = n;
        held_rtt = step["rtt_us"].clone();
        held_rate = step["deliveries_per_s"].clone();
        if busy.is_some_and(|b| b >= SATURATED) {
            stopped = "the generator saturated its core (the server may go further)";
            break;
        }
    }
    sh.borrow_mut().stopping = true;
    drop(clients);
    tokio::time::sleep(Duration::from_millis(50)).await;
    let elapsed = start.elapsed();
    let extra = json!({"clients_held": held, "held_rtt_us": held_rtt, "held_deliveries_per_s": held_rate,
                       "stopped": stopped, "steps": steps, "limit_ms": a.limit.as_millis() as u64,
                       "concurrent": a.concurrent, "broadcast_rtt_us": summary(&rtt_all)});
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
