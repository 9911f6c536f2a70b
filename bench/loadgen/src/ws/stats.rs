//! What gale-loadgen-ws counts: errors by kind, valid and invalid messages (with the first invalid one described),
//! connect and echo latency histograms, and their JSON summaries.

use std::time::Duration;

use hdrhistogram::Histogram;
use serde_json::json;
use tokio_tungstenite::tungstenite::Message;

#[derive(Debug, Default)]
pub struct Errors {
    pub connect: u64,
    pub read: u64,
    pub write: u64,
    pub timeout: u64,
    pub closed: u64,
}

impl Errors {
    pub fn total(&self) -> u64 {
        self.connect + self.read + self.write + self.timeout + self.closed
    }
    pub fn json(&self) -> serde_json::Value {
        json!({"connect": self.connect, "read": self.read, "write": self.write, "timeout": self.timeout,
               "closed": self.closed})
    }
}

/// Why a read ended without a data message.
#[derive(Debug, Clone, Copy)]
pub enum Kind {
    Read,
    Closed,
    /// The server sent bytes that are not an acceptable frame (counted as an invalid message).
    Invalid,
}

#[derive(Debug)]
pub struct Stats {
    pub errors: Errors,
    pub first_error: Option<String>,
    pub valid: u64,
    pub invalid: u64,
    pub first_invalid: Option<String>,
    pub connects: u64,
    pub connect_us: Histogram<u64>,
    pub echo_us: Histogram<u64>,
}

pub fn histogram() -> Histogram<u64> {
    Histogram::new_with_bounds(1, 3_600_000_000, 3).expect("histogram bounds")
}

impl Stats {
    pub fn new() -> Self {
        Stats {
            errors: Errors::default(),
            first_error: None,
            valid: 0,
            invalid: 0,
            first_invalid: None,
            connects: 0,
            connect_us: histogram(),
            echo_us: histogram(),
        }
    }
    pub fn error(&mut self, what: impl FnOnce(&mut Errors) -> &mut u64, why: String) {
        *what(&mut self.errors) += 1;
        self.first_error.get_or_insert(why);
    }
    pub fn record(&mut self, k: Kind, why: String) {
        match k {
            Kind::Read => self.error(|e| &mut e.read, why),
            Kind::Closed => self.error(|e| &mut e.closed, why),
            Kind::Invalid => self.invalid_because(|| why),
        }
    }
    /// An invalid message with a reason given by the caller.
    pub fn invalid_because(&mut self, why: impl FnOnce() -> String) {
        self.invalid += 1;
        if self.first_invalid.is_none() {
            self.first_invalid = Some(why());
        }
    }
    /// A message that should have been the exact text `expected`: `kind` ("text", "binary") and its bytes.
    pub fn invalid(&mut self, kind: &str, got: &[u8], expected: &[u8]) {
        self.invalid_because(|| {
            let at = if kind == "text" {
                let i = got
                    .iter()
                    .zip(expected)
                    .position(|(a, b)| a != b)
                    .unwrap_or(got.len().min(expected.len()));
                format!(" (first difference at byte {i})")
            } else {
                String::new()
            };
            format!(
                "expected the {}-byte text message {}, got {kind}, {} bytes: {}{at}",
                expected.len(),
                if expected.len() > 40 {
                    "sent".to_string()
                } else {
                    escape(expected)
                },
                got.len(),
                escape(got)
            )
        });
    }
}

/// Bytes as text, non-printable ones as `\xNN`, at most 120 of them.
pub fn escape(data: &[u8]) -> String {
    let mut s = String::new();
    for &b in data.iter().take(120) {
        if (0x20..0x7f).contains(&b) && b != b'\\' {
            s.push(b as char);
        } else {
            s.push_str(&format!("\\x{b:02x}"));
        }
    }
    s
}

/// `text, N bytes: <first 120 bytes>` with non-printable bytes as `\xNN`.
pub fn describe(m: &Message) -> String {
    let (kind, data): (&str, &[u8]) = match m {
        Message::Text(t) => ("text", t.as_bytes()),
        Message::Binary(b) => ("binary", b),
        Message::Ping(b) => ("ping", b),
        Message::Pong(b) => ("pong", b),
        Message::Close(_) => ("close", b""),
        Message::Frame(_) => ("frame", b""),
    };
    format!("{kind}, {} bytes: {}", data.len(), escape(data))
}

/// Nanoseconds this thread has been on a CPU (`/proc/thread-self/schedstat`), when the kernel says.
pub fn thread_cpu_ns() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    s.split_whitespace().next()?.parse().ok()
}

/// Process `pid`'s CPU time (utime + stime of all its threads, `/proc/PID/stat`) in seconds, as the harness reads a
/// server's (bench/lib/proc.ts cpuSeconds).
pub fn process_cpu_s(pid: u32) -> Option<f64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The fields after the command name, which is in parentheses and may hold spaces: utime and stime are the 12th
    // and 13th of them.
    let rest = &stat[stat.rfind(')')? + 2..];
    let mut f = rest.split(' ').skip(11);
    let ticks: u64 = f.next()?.parse::<u64>().ok()? + f.next()?.parse::<u64>().ok()?;
    // SAFETY: sysconf only reads a configuration value.
    let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    Some(ticks as f64 / if hz > 0 { hz as f64 } else { 100.0 })
}

pub fn us(d: Duration) -> u64 {
    u64::try_from(d.as_micros()).unwrap_or(u64::MAX).max(1)
}

pub fn summary(h: &Histogram<u64>) -> serde_json::Value {
    if h.is_empty() {
        return json!(null);
    }
    json!({"min": h.min(), "mean": (h.mean() * 10.0).round() / 10.0, "median": h.value_at_quantile(0.5),
           "p95": h.value_at_quantile(0.95), "p99": h.value_at_quantile(0.99), "max": h.max(),
           "stddev": (h.stdev() * 10.0).round() / 10.0})
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_invalid_echo_says_where_it_differs() {
        let mut s = Stats::new();
        s.invalid("text", b"0001", b"0000");
        s.invalid("text", b"x", b"0000");
        assert_eq!(s.invalid, 2);
        let first = s.first_invalid.unwrap_or_default();
        assert!(
            first.contains(
                "4-byte text message 0000, got text, 4 bytes: 0001 (first difference at byte 3)"
            ),
            "{first}"
        );
        assert_eq!(
            describe(&Message::binary(vec![0u8, b'a'])),
            "binary, 2 bytes: \\x00a"
        );
    }

    #[test]
    fn reads_cpu_times() {
        assert!(thread_cpu_ns().is_some());
        assert!(process_cpu_s(std::process::id()).is_some_and(|s| s >= 0.0));
        assert_eq!(process_cpu_s(u32::MAX), None);
    }
}
