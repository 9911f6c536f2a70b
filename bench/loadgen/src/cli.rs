//! Command line of gale-loadgen: options, the target URL, and the request bytes sent on every connection.

use std::net::{SocketAddr, ToSocketAddrs};
use std::time::Duration;

pub const USAGE: &str = "\
Usage: gale-loadgen --url http://127.0.0.1:PORT/path (--expect-body STRING | --expect-body-file FILE) [options]

Single-threaded HTTP/1.1 load generator that validates the status and exact body of every response and prints one
JSON line to stdout. Exit code: 0 = every response valid and no error, 1 = some were not, 2 = usage error.

Options:
  --url URL               http://HOST[:PORT][/path] (required)
  --connections N         open keep-alive connections (default 100)
  --max-connecting N      connections opened at once (default 64); the counted run starts once all are up
  --duration SECS         counted seconds (default 10)
  --warmup SECS           seconds of uncounted load before the counted run (default 0)
  --pipeline N            requests kept in flight per connection (default 1)
  --timeout SECS          a response slower than this counts as a timeout error (default 2)
  --method M              request method (default GET)
  --header 'NAME: VALUE'  extra request header (repeatable)
  --body STRING           request body (Content-Length is added)
  --body-file FILE        request body from a file
  --expect-status N       expected status code (default 200)
  --expect-body STRING    expected body bytes
  --expect-body-file FILE expected body bytes from a file
  -h, --help              this text
  -V, --version           version
";

#[derive(Debug, Clone)]
pub struct Args {
    pub addr: SocketAddr,
    /// The request, as sent once per pipelined slot.
    pub request: Vec<u8>,
    pub connections: usize,
    /// Connections in the connecting phase at once.
    pub max_connecting: usize,
    pub duration: Duration,
    pub warmup: Duration,
    pub pipeline: usize,
    pub timeout: Duration,
    pub expect_status: u16,
    pub expect_body: Vec<u8>,
}

#[derive(Debug)]
pub enum Command {
    Run(Args),
    Help,
    Version,
}

fn secs(name: &str, v: &str, min: f64) -> Result<Duration, String> {
    match v.parse::<f64>() {
        Ok(s) if s.is_finite() && s >= min && s <= 86_400.0 => Ok(Duration::from_secs_f64(s)),
        _ => Err(format!(
            "--{name} must be a number of seconds ≥ {min} (got {v:?})"
        )),
    }
}

fn int(name: &str, v: &str, min: usize, max: usize) -> Result<usize, String> {
    match v.parse::<usize>() {
        Ok(n) if (min..=max).contains(&n) => Ok(n),
        _ => Err(format!(
            "--{name} must be an integer from {min} to {max} (got {v:?})"
        )),
    }
}

fn read(name: &str, path: &str) -> Result<Vec<u8>, String> {
    std::fs::read(path).map_err(|e| format!("--{name} {path}: {e}"))
}

/// Splits `http://host[:port][/path]` into (host header value, socket address, path).
pub fn parse_url(url: &str) -> Result<(String, SocketAddr, String), String> {
    let rest = url
        .strip_prefix("http://")
        .ok_or_else(|| format!("only http:// URLs are supported (got {url:?})"))?;
    let (authority, path) = match rest.find(['/', '?']) {
        Some(i) if rest.as_bytes()[i] == b'?' => (&rest[..i], format!("/{}", &rest[i..])),
        Some(i) => (&rest[..i], rest[i..].to_string()),
        None => (rest, "/".to_string()),
    };
    if authority.is_empty() || authority.contains('@') {
        return Err(format!("bad host in URL {url:?}"));
    }
    let (host, port) = match authority.rfind(':') {
        Some(i) if !authority[i..].contains(']') => {
            let port = authority[i + 1..]
                .parse::<u16>()
                .map_err(|_| format!("bad port in URL {url:?}"))?;
            (&authority[..i], port)
        }
        _ => (authority, 80),
    };
    let bare = host.trim_start_matches('[').trim_end_matches(']');
    let addr = (bare, port)
        .to_socket_addrs()
        .map_err(|e| format!("cannot resolve {host}: {e}"))?
        .next()
        .ok_or_else(|| format!("{host} has no address"))?;
    Ok((authority.to_string(), addr, path))
}

/// The request bytes: request line, Host, the extra headers, Content-Length when there is a body (or the method
/// usually has one), blank line, body.
pub fn build_request(
    method: &str,
    host: &str,
    path: &str,
    headers: &[String],
    body: Option<&[u8]>,
) -> Vec<u8> {
    let mut r = format!("{method} {path} HTTP/1.1\r\nHost: {host}\r\n").into_bytes();
    let mut has_length = false;
    for h in headers {
        has_length |= h
            .split(':')
            .next()
            .is_some_and(|n| n.trim().eq_ignore_ascii_case("content-length"));
        r.extend_from_slice(h.trim().as_bytes());
        r.extend_from_slice(b"\r\n");
    }
    let needs_length = body.is_some() || matches!(method, "POST" | "PUT" | "PATCH");
    if needs_length && !has_length {
        r.extend_from_slice(
            format!("Content-Length: {}\r\n", body.map_or(0, <[u8]>::len)).as_bytes(),
        );
    }
    r.extend_from_slice(b"\r\n");
    r.extend_from_slice(body.unwrap_or_default());
    r
}

pub fn parse(argv: impl IntoIterator<Item = String>) -> Result<Command, String> {
    let mut url = None;
    let mut connections = 100;
    let mut max_connecting = 64;
    let mut duration = Duration::from_secs(10);
    let mut warmup = Duration::ZERO;
    let mut pipeline = 1;
    let mut timeout = Duration::from_secs(2);
    let mut method = "GET".to_string();
    let mut headers = Vec::new();
    let mut body = None;
    let mut expect_status = 200;
    let mut expect_body = None;
    let mut it = argv.into_iter();
    while let Some(arg) = it.next() {
        let (name, inline) = match arg.split_once('=') {
            Some((n, v)) if n.starts_with("--") => (n.to_string(), Some(v.to_string())),
            _ => (arg.clone(), None),
        };
        if matches!(name.as_str(), "-h" | "--help") {
            return Ok(Command::Help);
        }
        if matches!(name.as_str(), "-V" | "--version") {
            return Ok(Command::Version);
        }
        let Some(flag) = name.strip_prefix("--") else {
            return Err(format!("unexpected argument {arg:?}"));
        };
        let v = match inline {
            Some(v) => v,
            None => it.next().ok_or_else(|| format!("{name} needs a value"))?,
        };
        match flag {
            "url" => url = Some(v),
            "connections" => connections = int(flag, &v, 1, 1_000_000)?,
            "max-connecting" => max_connecting = int(flag, &v, 1, 1_000_000)?,
            "duration" => duration = secs(flag, &v, 0.001)?,
            "warmup" => warmup = secs(flag, &v, 0.0)?,
            "pipeline" => pipeline = int(flag, &v, 1, 65_536)?,
            "timeout" => timeout = secs(flag, &v, 0.001)?,
            "method" => {
                if v.is_empty() || !v.bytes().all(|b| b.is_ascii_alphabetic()) {
                    return Err(format!("bad --method {v:?}"));
                }
                method = v;
            }
            "header" => {
                if !v.contains(':') || v.contains(['\r', '\n']) {
                    return Err(format!("--header must be 'Name: value' (got {v:?})"));
                }
                headers.push(v);
            }
            "body" => body = Some(v.into_bytes()),
            "body-file" => body = Some(read(flag, &v)?),
            "expect-status" => expect_status = int(flag, &v, 100, 999)? as u16,
            "expect-body" => expect_body = Some(v.into_bytes()),
            "expect-body-file" => expect_body = Some(read(flag, &v)?),
            _ => return Err(format!("unknown option {name}")),
        }
    }
    let url = url.ok_or("--url is required")?;
    let expect_body = expect_body
        .ok_or("--expect-body or --expect-body-file is required (every response is checked)")?;
    let (host, addr, path) = parse_url(&url)?;
    let request = build_request(&method, &host, &path, &headers, body.as_deref());
    Ok(Command::Run(Args {
        addr,
        request,
        connections,
        max_connecting,
        duration,
        warmup,
        pipeline,
        timeout,
        expect_status,
        expect_body,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(s: &str) -> Result<Command, String> {
        parse(s.split(' ').map(String::from))
    }

    #[test]
    fn urls() {
        let (host, addr, path) = parse_url("http://127.0.0.1:8080/a/b?x=1").unwrap();
        assert_eq!(
            (host.as_str(), addr.port(), path.as_str()),
            ("127.0.0.1:8080", 8080, "/a/b?x=1")
        );
        let (host, addr, path) = parse_url("http://127.0.0.1").unwrap();
        assert_eq!(
            (host.as_str(), addr.port(), path.as_str()),
            ("127.0.0.1", 80, "/")
        );
        assert_eq!(parse_url("http://[::1]:81?q").unwrap().2, "/?q");
        assert!(parse_url("https://127.0.0.1/").is_err());
        assert!(parse_url("http://127.0.0.1:x/").is_err());
    }

    #[test]
    fn requests() {
        let r = build_request("GET", "127.0.0.1:1", "/", &[], None);
        assert_eq!(r, b"GET / HTTP/1.1\r\nHost: 127.0.0.1:1\r\n\r\n");
        let h = vec!["content-type: application/json".to_string()];
        let r = build_request("POST", "h", "/p", &h, Some(b"{}"));
        assert_eq!(r, b"POST /p HTTP/1.1\r\nHost: h\r\ncontent-type: application/json\r\nContent-Length: 2\r\n\r\n{}");
    }

    #[test]
    fn options() {
        let Ok(Command::Run(a)) =
            args("--url http://127.0.0.1:9/ --pipeline=16 --expect-body x --duration 0.5")
        else {
            panic!("parse failed");
        };
        assert_eq!(
            (a.pipeline, a.connections, a.max_connecting, a.duration),
            (16, 100, 64, Duration::from_millis(500))
        );
        assert_eq!(a.expect_body, b"x");
        assert!(
            args("--url http://127.0.0.1:9/").is_err(),
            "expected body is required"
        );
        assert!(args("--url http://127.0.0.1:9/ --expect-body x --pipeline 0").is_err());
        assert!(args("--url http://127.0.0.1:9/ --expect-body x --bogus 1").is_err());
        assert!(matches!(args("--help"), Ok(Command::Help)));
    }
}
