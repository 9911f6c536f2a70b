//! gale-quic-fuzz: a live fuzzer for Gale's HTTP/3 over QUIC datagrams. Batches of sessions (raw datagrams, a real
//! client through a lossy and corrupting relay, generated HTTP/3 streams); after each batch one real HTTP/3 GET must
//! get its exact answer within 5 s. Prints one JSON line; exit 1 when the server stopped answering.

mod gen;
mod sessions;
#[path = "../tls.rs"]
mod tls;

use std::cell::RefCell;
use std::net::{SocketAddr, ToSocketAddrs};
use std::process::ExitCode;
use std::rc::Rc;
use std::time::{Duration, Instant};

use gen::Rng;
use sessions::{Counts, Target};

const USAGE: &str = "\
Usage: gale-quic-fuzz --addr 127.0.0.1:PORT --ca FILE --check-body STRING [options]

Options:
  --addr HOST:PORT       the server's UDP address (required)
  --ca FILE              PEM certificate(s) to trust (required)
  --server-name NAME     TLS server name (default a.test)
  --check-path PATH      the liveness GET's path (default /json)
  --check-body STRING    its exact expected body (required)
  --seconds N            how long to fuzz (default 60)
  --seed N               the PRNG's seed (default: from the clock; printed)
  --concurrency N        sessions per batch (default 32)
";

struct Opts {
    addr: SocketAddr,
    ca: String,
    server_name: String,
    check_path: String,
    check_body: String,
    seconds: f64,
    seed: u64,
    concurrency: u64,
}

fn parse() -> Result<Opts, String> {
    let mut a = std::env::args().skip(1);
    let (mut addr, mut ca, mut body) = (None, None, None);
    let mut o = Opts {
        addr: "127.0.0.1:0".parse().expect("literal"),
        ca: String::new(),
        server_name: "a.test".into(),
        check_path: "/json".into(),
        check_body: String::new(),
        seconds: 60.0,
        seed: std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(1, |d| d.as_micros() as u64 % 1_000_000),
        concurrency: 32,
    };
    while let Some(flag) = a.next() {
        let mut v = || a.next().ok_or_else(|| format!("{flag} needs a value"));
        match flag.as_str() {
            "--addr" => addr = Some(v()?),
            "--ca" => ca = Some(v()?),
            "--server-name" => o.server_name = v()?,
            "--check-path" => o.check_path = v()?,
            "--check-body" => body = Some(v()?),
            "--seconds" => o.seconds = v()?.parse().map_err(|_| "--seconds: a number")?,
            "--seed" => o.seed = v()?.parse().map_err(|_| "--seed: an integer")?,
            "--concurrency" => {
                o.concurrency = v()?.parse().map_err(|_| "--concurrency: an integer")?
            }
            "-h" | "--help" => return Err(String::new()),
            other => return Err(format!("unknown option {other:?}")),
        }
    }
    let addr = addr.ok_or("--addr is required")?;
    o.addr = addr
        .to_socket_addrs()
        .map_err(|e| format!("--addr {addr}: {e}"))?
        .next()
        .ok_or("--addr has no address")?;
    o.ca = ca.ok_or("--ca is required")?;
    o.check_body = body.ok_or("--check-body is required")?;
    Ok(o)
}

fn main() -> ExitCode {
    let o = match parse() {
        Ok(o) => o,
        Err(e) => {
            eprintln!(
                "{}{USAGE}",
                if e.is_empty() {
                    String::new()
                } else {
                    format!("gale-quic-fuzz: {e}\n\n")
                }
            );
            return ExitCode::from(2);
        }
    };
    let client = match tls::pem_certs(&o.ca)
        .and_then(|r| tls::client_config(&r, Some(Duration::from_secs(3))))
    {
        Ok(c) => c,
        Err(e) => {
            eprintln!("gale-quic-fuzz: {e}");
            return ExitCode::from(2);
        }
    };
    let rt = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("gale-quic-fuzz: {e}");
            return ExitCode::from(3);
        }
    };
    let target = Rc::new(Target {
        addr: o.addr,
        server_name: o.server_name.clone(),
        client,
        captured: RefCell::new(Vec::new()),
    });
    let local = tokio::task::LocalSet::new();
    let report = local.block_on(&rt, fuzz(&o, target));
    println!("{}", report.0);
    if report.1 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// Runs the batches; returns the JSON line and whether the server answered after every batch.
async fn fuzz(o: &Opts, t: Rc<Target>) -> (serde_json::Value, bool) {
    let started = Instant::now();
    let mut r = Rng::new(o.seed);
    let (mut batches, mut raw, mut relay, mut frames) = (0u64, 0u64, 0u64, 0u64);
    let totals = Rc::new(RefCell::new(Counts::default()));
    let mut finding: Option<String> = None;
    if let Err(e) = sessions::check(&t, &o.check_path, o.check_body.as_bytes()).await {
        finding = Some(format!("before the first batch: {e}"));
    }
    while finding.is_none() && started.elapsed() < Duration::from_secs_f64(o.seconds) {
        batches += 1;
        let mut tasks = Vec::new();
        for _ in 0..o.concurrency {
            let kind = r.below(10);
            match kind {
                0..=2 => raw += 1,
                3..=5 => relay += 1,
                _ => frames += 1,
            }
            let (t, totals, seed) = (t.clone(), totals.clone(), r.u64());
            tasks.push(tokio::task::spawn_local(async move {
                let mut r = Rng::new(seed);
                let mut c = Counts::default();
                match kind {
                    0..=2 => sessions::raw(&t, &mut r, &mut c).await,
                    3..=5 => sessions::relay(&t, &mut r, &mut c).await,
                    _ => sessions::frames(&t, &mut r, &mut c).await,
                }
                let mut all = totals.borrow_mut();
                all.datagrams += c.datagrams;
                all.bytes += c.bytes;
                all.streams += c.streams;
                all.answered += c.answered;
            }));
        }
        for task in tasks {
            if let Err(e) = task.await {
                finding = Some(format!(
                    "a session of batch {batches} panicked in the fuzzer: {e}"
                ));
            }
        }
        if let Err(first) = sessions::check(&t, &o.check_path, o.check_body.as_bytes()).await {
            // Once more after a pause: a check can lose its own packets to the load just sent.
            tokio::time::sleep(Duration::from_secs(1)).await;
            if let Err(again) = sessions::check(&t, &o.check_path, o.check_body.as_bytes()).await {
                finding = Some(format!(
                    "after batch {batches}: {first}; again 1 s later: {again}"
                ));
            }
        }
    }
    let c = *totals.borrow();
    let json = serde_json::json!({
        "seed": o.seed,
        "seconds": (started.elapsed().as_secs_f64() * 10.0).round() / 10.0,
        "batches": batches,
        "sessions": { "raw": raw, "relay": relay, "frames": frames },
        "datagrams": c.datagrams,
        "bytes": c.bytes,
        "streams": c.streams,
        "answered": c.answered,
        "finding": finding,
    });
    (json, finding.is_none())
}
