//! gale-loadgen-ws: a single-threaded WebSocket load generator for Gale's benchmark harness (tokio current-thread).
//! Modes `echo`, `fastws`, `broadcast`, `idle`, `sio-echo` and `sio-broadcast` (bench/loadgen/README.md); every answer
//! is compared with the exact expected text, and one JSON line of results is printed.

mod broadcast;
mod cli;
mod client;
mod conn;
mod echo;
mod fastws;
mod h2;
mod idle;
mod raw;
mod sio;
mod sio_broadcast;
mod sio_check;
mod sio_echo;
mod stats;

use std::process::ExitCode;
use std::rc::Rc;

use serde_json::json;

use crate::cli::{Command, Mode};
use crate::stats::summary;

fn main() -> ExitCode {
    let a = match cli::parse(std::env::args().skip(1)) {
        Ok(Command::Run(a)) => a,
        Ok(Command::Help) => {
            print!("{}", cli::USAGE);
            return ExitCode::SUCCESS;
        }
        Ok(Command::Version) => {
            println!("gale-loadgen-ws {}", env!("CARGO_PKG_VERSION"));
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            eprintln!("gale-loadgen-ws: {e}\n\n{}", cli::USAGE);
            return ExitCode::from(2);
        }
    };
    let rt = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("gale-loadgen-ws: runtime: {e}");
            return ExitCode::from(3);
        }
    };
    let a = Rc::new(*a);
    let local = tokio::task::LocalSet::new();
    let mode = a.mode;
    let (st, elapsed, extra) = local.block_on(&rt, async move {
        match mode {
            Mode::Echo | Mode::FastWs => {
                let (st, el) = echo::run(a.clone()).await;
                let extra = json!({"connections": a.connections, "messages": a.messages, "size": a.size,
                                   "over": a.over.name(), "streams": a.streams});
                (st, el, extra)
            }
            Mode::Broadcast => broadcast::run(a).await,
            Mode::Idle => idle::run(a).await,
            Mode::SioEcho => {
                let (st, el) = sio_echo::run(a.clone()).await;
                let extra = json!({"connections": a.connections, "messages": a.messages, "size": a.size,
                                   "concurrent": a.concurrent, "namespace": a.namespace});
                (st, el, extra)
            }
            Mode::SioBroadcast => sio_broadcast::run(a).await,
        }
    });
    let secs = elapsed.as_secs_f64();
    let rate = |n: u64| {
        if secs > 0.0 {
            (n as f64 / secs).round()
        } else {
            0.0
        }
    };
    let out = json!({
        "mode": mode.name(),
        "duration_s": (secs * 1e6).round() / 1e6,
        "connects": st.connects,
        "connects_per_s": rate(st.connects),
        "echoes": st.echo_us.len(),
        "echoes_per_s": rate(st.echo_us.len()),
        "valid": st.valid,
        "invalid": st.invalid,
        "first_invalid": st.first_invalid,
        "errors": st.errors.json(),
        "first_error": st.first_error,
        "connect_us": summary(&st.connect_us),
        "echo_us": summary(&st.echo_us),
        "detail": extra,
    });
    println!("{out}");
    if st.invalid == 0 && st.errors.total() == 0 && st.valid > 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
