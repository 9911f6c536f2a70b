//! gale-loadgen: a single-threaded HTTP/1.1 load generator for Gale's benchmark harness that checks the status and
//! exact body of every response and prints one JSON line of results (see bench/loadgen/README.md).

mod cli;
mod parse;
mod run;

use std::process::ExitCode;

/// What a latency sample measures, printed with the figures.
const LATENCY_FROM: &str = "per response: from the write(2) that completed its request to the read(2) that completed the response";

fn main() -> ExitCode {
    let args = match cli::parse(std::env::args().skip(1)) {
        Ok(cli::Command::Run(a)) => a,
        Ok(cli::Command::Help) => {
            print!("{}", cli::USAGE);
            return ExitCode::SUCCESS;
        }
        Ok(cli::Command::Version) => {
            println!("gale-loadgen {}", env!("CARGO_PKG_VERSION"));
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            eprintln!("gale-loadgen: {e}\n\n{}", cli::USAGE);
            return ExitCode::from(2);
        }
    };
    let stats = match run::run(&args) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("gale-loadgen: event loop failed: {e}");
            return ExitCode::from(3);
        }
    };
    let requests = stats.ok + stats.invalid;
    let secs = stats.duration.as_secs_f64();
    let h = &stats.latency;
    let e = &stats.errors;
    let pct = |q: f64| h.value_at_quantile(q);
    // Written by hand to keep the documented key order; serde_json escapes the one free-form string.
    let first_invalid =
        serde_json::to_string(&stats.first_invalid).unwrap_or_else(|_| "null".into());
    let line = format!(
        concat!(
            r#"{{"requests":{},"ok":{},"invalid":{},"first_invalid":{},"#,
            r#""errors":{{"connect":{},"read":{},"write":{},"timeout":{},"closed":{},"status":{}}},"#,
            r#""duration_s":{:.6},"rps":{:.0},"#,
            r#""latency_us":{{"p50":{},"p90":{},"p99":{},"p999":{},"max":{},"mean":{:.1},"min":{}}},"#,
            r#""latency_from":"{}","connections":{},"pipeline":{},"#,
            r#""open_s":{},"open_connect_errors":{}}}"#,
        ),
        requests,
        stats.ok,
        stats.invalid,
        first_invalid,
        e.connect,
        e.read,
        e.write,
        e.timeout,
        e.closed,
        stats.status_errors,
        secs,
        if secs > 0.0 {
            requests as f64 / secs
        } else {
            0.0
        },
        pct(0.5),
        pct(0.9),
        pct(0.99),
        pct(0.999),
        h.max(),
        h.mean(),
        h.min(),
        LATENCY_FROM,
        args.connections,
        args.pipeline,
        stats
            .opened_in
            .map_or_else(|| "null".to_string(), |d| format!("{:.3}", d.as_secs_f64())),
        stats.open_connect_errors,
    );
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
