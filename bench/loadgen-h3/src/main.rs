//! gale-loadgen-h3: an HTTP/3 load generator and test client for Gale (quinn + h3 on one thread) that checks the
//! status and exact body of every response and prints one JSON line, in gale-loadgen's form (bench/loadgen-h3/README.md).

mod cli;
mod run;
mod tls;
mod wt;

use std::process::ExitCode;

/// What a latency sample measures, printed with the figures.
const LATENCY_FROM: &str =
    "per request: from opening its stream to the end of its response body (one request at a time per stream)";

/// What UDP segmentation offload this kernel gives a socket on the loopback, as quinn-udp probes it (the server's
/// socket gets the same): datagrams per GSO send and per GRO receive, 1 = none.
fn udp_offload() -> serde_json::Value {
    let probe = std::net::UdpSocket::bind("127.0.0.1:0")
        .and_then(|s| quinn::udp::UdpSocketState::new((&s).into()));
    match probe {
        Ok(st) => {
            serde_json::json!({ "gso_segments": st.max_gso_segments(), "gro_segments": st.gro_segments() })
        }
        Err(e) => serde_json::json!({ "error": e.to_string() }),
    }
}

fn main() -> ExitCode {
    let args = match cli::parse(std::env::args().skip(1)) {
        Ok(cli::Command::Run(a)) => a,
        Ok(cli::Command::Help) => {
            print!("{}", cli::USAGE);
            return ExitCode::SUCCESS;
        }
        Ok(cli::Command::Version) => {
            println!("gale-loadgen-h3 {}", env!("CARGO_PKG_VERSION"));
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            eprintln!("gale-loadgen-h3: {e}\n\n{}", cli::USAGE);
            return ExitCode::from(2);
        }
    };
    let stats = match run::run(&args) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("gale-loadgen-h3: {e}");
            return ExitCode::from(3);
        }
    };
    let requests = stats.ok + stats.invalid;
    let secs = stats.duration.as_secs_f64();
    let h = &stats.latency;
    let e = &stats.errors;
    let pct = |q: f64| h.value_at_quantile(q);
    let line = serde_json::json!({
        "requests": requests,
        "ok": stats.ok,
        "invalid": stats.invalid,
        "first_invalid": stats.first_invalid,
        "errors": {
            "connect": e.connect, "read": e.read, "write": e.write,
            "timeout": e.timeout, "closed": e.closed, "status": stats.status_errors,
        },
        "duration_s": (secs * 1e6).round() / 1e6,
        "rps": if secs > 0.0 { (requests as f64 / secs).round() } else { 0.0 },
        "latency_us": {
            "p50": pct(0.5), "p90": pct(0.9), "p99": pct(0.99), "p999": pct(0.999),
            "max": h.max(), "mean": (h.mean() * 10.0).round() / 10.0, "min": h.min(),
        },
        "latency_from": LATENCY_FROM,
        "connections": args.connections,
        "streams": args.streams,
        "protocol": args.mode.name(),
        "message_bytes": (args.mode != cli::Mode::H3).then_some(args.size),
        "lost": stats.lost,
        "open_s": stats.opened_in.map(|d| (d.as_secs_f64() * 1e3).round() / 1e3),
        "open_connect_errors": stats.open_connect_errors,
        "udp_offload": udp_offload(),
    });
    println!("{line}");
    let clean = stats.invalid == 0
        && e.connect + e.read + e.write + e.timeout + e.closed + stats.open_connect_errors == 0
        && requests > 0;
    if clean {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
