//! Mode `sio-broadcast`: --connections sockets join --namespace, then take turns emitting `broadcast` with an ack id,
//! --concurrent in flight, for --duration; every socket must get each `broadcastResult` exactly once and the sender its
//! ack (checked in sio_check.rs). With --server-pid, the server's CPU over the broadcast phase is reported.

use std::cell::RefCell;
use std::rc::Rc;
use std::time::{Duration, Instant};

use serde_json::json;
use tokio::sync::mpsc;

use crate::cli::Args;
use crate::client;
use crate::raw::{self, MASK};
use crate::sio;
use crate::sio_check::{timed_out, Pending, Shared};
use crate::sio_echo::{open_socket, text_frame};
use crate::stats::{histogram, process_cpu_s, summary, thread_cpu_ns, us, Stats};

/// Sockets connecting at once: all of them at once would overflow a server's accept backlog.
const CONNECTING: usize = 64;

struct Client {
    /// Whole masked frames to write.
    tx: mpsc::UnboundedSender<Vec<u8>>,
    next_ack: u64,
}

/// Opens socket `i` (errors counted) and starts its reader and writer.
async fn add_client(i: usize, a: Rc<Args>, sh: Rc<RefCell<Shared>>) -> Option<Client> {
    let t0 = Instant::now();
    let c = match open_socket(&a).await {
        Ok(c) => c,
        Err(f) => {
            f.count(&mut sh.borrow_mut().stats);
            return None;
        }
    };
    {
        let mut s = sh.borrow_mut();
        s.stats.connects += 1;
        let _ = s.stats.connect_us.record(us(t0.elapsed()));
    }
    let (tcp, rest) = c.into_parts();
    let tx = client::spawn(i, tcp, rest, sh);
    Some(Client { tx, next_ack: 0 })
}

pub async fn run(a: Rc<Args>) -> (Stats, Duration, serde_json::Value) {
    let n = a.connections;
    let prefix = sio::nsp_prefix(&a.namespace);
    let (done_tx, mut done_rx) = mpsc::unbounded_channel();
    let sh = Rc::new(RefCell::new(Shared {
        stats: Stats::new(),
        pending: Vec::new(),
        done: done_tx,
        deliveries: 0,
        acks: 0,
        result_start: format!("42{prefix}[\"broadcastResult\",{{\"id\":").into_bytes(),
        stopping: false,
    }));
    // Connect every socket, CONNECTING at a time, before the first broadcast.
    let c0 = Instant::now();
    let mut clients: Vec<Client> = Vec::with_capacity(n);
    while clients.len() < n {
        let first = clients.len();
        let added = futures_util::future::join_all(
            (first..(first + CONNECTING).min(n)).map(|i| add_client(i, a.clone(), sh.clone())),
        )
        .await;
        let all = added.iter().all(Option::is_some);
        clients.extend(added.into_iter().flatten());
        // A socket that could not join (counted) fails the run: no broadcast is sent.
        if !all {
            break;
        }
    }
    let connect_s = c0.elapsed().as_secs_f64();
    let pad = "0".repeat(a.padding);
    let mut rtt = histogram();
    let (mut seq, mut finished) = (0u64, 0u64);
    let (mut phase, mut server_cpu, mut client_cpu) = (Duration::ZERO, None, None);
    if clients.len() == n {
        let s0 = a.server_pid.and_then(process_cpu_s);
        let (t0, cpu0) = (Instant::now(), thread_cpu_ns());
        let deadline = t0 + a.duration;
        loop {
            let now = Instant::now();
            while sh.borrow().pending.len() < a.concurrent && now < deadline {
                let sender = (seq % n as u64) as usize;
                let c = &mut clients[sender];
                let payload = format!(r#"{{"id":{seq},"ts":{},"pad":"{pad}"}}"#, us(now - t0));
                let text = format!("42{prefix}{}[\"broadcast\",{payload}]", c.next_ack);
                sh.borrow_mut().pending.push(Pending {
                    id: seq,
                    expected: format!("42{prefix}[\"broadcastResult\",{payload}]").into_bytes(),
                    ack: sio::ack(&prefix, c.next_ack, b"[]"),
                    sender,
                    sent: now,
                    got: vec![false; n],
                    left: n,
                    acked: false,
                });
                let _ = c.tx.send(text_frame(text.as_bytes()));
                c.next_ack += 1;
                seq += 1;
            }
            let oldest = sh.borrow().pending.iter().map(|p| p.sent).min();
            let Some(oldest) = oldest else { break };
            // Wake at least every 100 ms: an invalid message ends the phase without waiting for its timeout.
            let wait = a
                .timeout
                .saturating_sub(oldest.elapsed())
                .min(Duration::from_millis(100));
            match tokio::time::timeout(wait, done_rx.recv()).await {
                Ok(Some(d)) => {
                    finished += 1;
                    let _ = rtt.record(us(d));
                }
                Ok(None) => break,
                Err(_) => {}
            }
            let mut s = sh.borrow_mut();
            if s.stats.invalid > 0 || s.stats.errors.total() > 0 {
                break;
            }
            if oldest.elapsed() >= a.timeout {
                let late: Vec<Pending> = {
                    let (late, keep) = std::mem::take(&mut s.pending)
                        .into_iter()
                        .partition(|p| p.sent.elapsed() >= a.timeout);
                    s.pending = keep;
                    late
                };
                for p in &late {
                    timed_out(p, n, &mut s.stats);
                }
                break;
            }
        }
        phase = t0.elapsed();
        // Broadcasts that finished while the loop was deciding to stop.
        while let Ok(d) = done_rx.try_recv() {
            finished += 1;
            let _ = rtt.record(us(d));
        }
        server_cpu = match (s0, a.server_pid.and_then(process_cpu_s)) {
            (Some(s0), Some(s1)) => Some(s1 - s0),
            _ => None,
        };
        client_cpu = match (cpu0, thread_cpu_ns()) {
            (Some(c0), Some(c1)) => Some(c1.saturating_sub(c0) as f64 / 1e9),
            _ => None,
        };
    }
    sh.borrow_mut().stopping = true;
    let bye = text_frame(sio::disconnect(&a.namespace).as_bytes());
    let close = raw::client_frame(8, &1000u16.to_be_bytes(), MASK);
    for c in &clients {
        let _ = c.tx.send(bye.clone());
        let _ = c.tx.send(close.clone());
    }
    drop(clients);
    tokio::time::sleep(Duration::from_millis(50)).await;
    let s = sh.borrow();
    let secs = phase.as_secs_f64();
    let rate = |x: u64| {
        if secs > 0.0 {
            (x as f64 / secs).round()
        } else {
            0.0
        }
    };
    let r3 = |x: f64| (x * 1000.0).round() / 1000.0;
    let extra = json!({
        "clients": n, "in_flight": a.concurrent, "size": a.padding, "namespace": a.namespace,
        "connect_s": r3(connect_s), "broadcasts_sent": seq, "broadcasts": finished,
        "broadcasts_per_s": rate(finished), "deliveries": s.deliveries, "acks": s.acks,
        "deliveries_per_s": rate(s.deliveries), "rtt_us": summary(&rtt),
        "server_cpu_s": server_cpu.map(r3), "client_cpu_s": client_cpu.map(|c| (c * 1e6).round() / 1e6),
        "client_cpu_pct": client_cpu.filter(|_| secs > 0.0).map(|c| (1000.0 * c / secs).round() / 10.0),
    });
    drop(s);
    let stats = std::mem::replace(&mut sh.borrow_mut().stats, Stats::new());
    (stats, phase, extra)
}
