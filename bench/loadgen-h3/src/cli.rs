//! Command line of gale-loadgen-h3: the target, the certificate to trust, the request, the expectation and the load.

use std::net::{SocketAddr, ToSocketAddrs};
use std::time::Duration;

pub const USAGE: &str = "\
Usage: gale-loadgen-h3 --url https://HOST:PORT/path --ca FILE (--expect-body STRING | --expect-body-file FILE |
       --target PATH=FILE …) [options]

HTTP/3 load generator and test client (quinn + h3, one thread) that validates the status and exact body of every
response and prints one JSON line to stdout. Exit code: 0 = every response valid and no error, 1 = some were not,
2 = usage error.

Options:
  --url URL               https://HOST:PORT[/path] (required)
  --ca FILE               PEM certificate(s) to trust for the server (required)
  --server-name NAME      TLS server name (default: the URL's host)
  --connections N         QUIC connections (default 10)
  --streams N             requests in flight per connection, each on its own stream (default 1)
  --duration SECS         counted seconds (default 10)
  --warmup SECS           seconds of uncounted load before the counted run (default 0)
  --requests N            stop after N counted requests in all (default: no limit; --duration still applies)
  --timeout SECS          a request unanswered this long counts as a timeout error (default 2)
  --method M              request method (default GET)
  --header 'NAME: VALUE'  extra request header (repeatable)
  --body STRING           request body (content-length is added)
  --body-file FILE        request body from a file
  --expect-status N       expected status code (default 200)
  --expect-body STRING    expected body bytes
  --expect-body-file FILE expected body bytes from a file
  --mode MODE             h3 (requests, the default), wt-stream (a WebTransport session per connection, each
                          stream worker echoing messages on its own bidirectional stream) or wt-datagram (each
                          worker echoing datagrams, one in flight); the URL is the WebTransport endpoint
  --size N                WebTransport message bytes (default 64, at least 8)
  --target PATH=FILE[,FILE…]  (the last = splits) instead of the URL's path and --expect-body: requests rotate through the targets
                          (repeatable), each answer must be one of the target's files (say a file and its .br)
  -h, --help              this text
  -V, --version           version
";

#[derive(Debug, Clone)]
pub struct Args {
    pub mode: Mode,
    /// WebTransport message bytes.
    pub size: usize,
    pub addr: SocketAddr,
    pub server_name: String,
    /// DER certificates from --ca.
    pub roots: Vec<Vec<u8>>,
    pub connections: usize,
    pub streams: usize,
    pub duration: Duration,
    pub warmup: Duration,
    pub requests: Option<u64>,
    pub timeout: Duration,
    pub method: http::Method,
    pub headers: Vec<(http::HeaderName, http::HeaderValue)>,
    pub body: Option<Vec<u8>>,
    pub expect_status: u16,
    /// What each request asks for, in turn: its URI and the bodies an answer may have (one of them, exactly).
    pub targets: Vec<Target>,
}

/// What the load is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    H3,
    WtStream,
    WtDatagram,
}

impl Mode {
    pub fn name(self) -> &'static str {
        match self {
            Mode::H3 => "h3",
            Mode::WtStream => "wt-stream",
            Mode::WtDatagram => "wt-datagram",
        }
    }
}

/// One request target of the rotation.
#[derive(Debug, Clone)]
pub struct Target {
    pub uri: String,
    pub bodies: Vec<Vec<u8>>,
}

#[derive(Debug)]
pub enum Command {
    Run(Box<Args>),
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

fn int(name: &str, v: &str, min: u64, max: u64) -> Result<u64, String> {
    match v.parse::<u64>() {
        Ok(n) if (min..=max).contains(&n) => Ok(n),
        _ => Err(format!(
            "--{name} must be an integer from {min} to {max} (got {v:?})"
        )),
    }
}

fn read(name: &str, path: &str) -> Result<Vec<u8>, String> {
    std::fs::read(path).map_err(|e| format!("--{name} {path}: {e}"))
}

/// Splits `https://host:port[/path]` into (host, socket address).
/// `--target PATH=FILE[,FILE…]`: the path and the bodies read from the files.
fn target(v: &str) -> Result<(String, Vec<Vec<u8>>), String> {
    // The last `=`: a path's query has its own.
    let (path, files) = v
        .rsplit_once('=')
        .filter(|(p, f)| p.starts_with('/') && !f.is_empty())
        .ok_or_else(|| format!("--target must be PATH=FILE[,FILE…] (got {v:?})"))?;
    let bodies = files
        .split(',')
        .map(|f| read("target", f))
        .collect::<Result<_, _>>()?;
    Ok((path.to_string(), bodies))
}

/// The scheme and authority of an https:// URL (`https://h:1/p?q` → `https://h:1`).
fn origin(url: &str) -> &str {
    let rest = url.get(8..).unwrap_or_default();
    &url[..rest.find('/').map_or(url.len(), |i| i + 8)]
}

pub fn parse_url(url: &str) -> Result<(String, SocketAddr), String> {
    let rest = url
        .strip_prefix("https://")
        .ok_or_else(|| format!("only https:// URLs are supported (got {url:?})"))?;
    let authority = rest.split('/').next().unwrap_or_default();
    let (host, port) = if let Some(v6) = authority.strip_prefix('[') {
        let (h, p) = v6.split_once(']').ok_or("unclosed [ in the URL's host")?;
        (h, p.strip_prefix(':').unwrap_or("443"))
    } else {
        match authority.rsplit_once(':') {
            Some((h, p)) => (h, p),
            None => (authority, "443"),
        }
    };
    let port: u16 = port.parse().map_err(|_| format!("bad port in {url:?}"))?;
    let addr = (host, port)
        .to_socket_addrs()
        .map_err(|e| format!("cannot resolve {host}: {e}"))?
        .next()
        .ok_or_else(|| format!("{host} has no address"))?;
    Ok((host.to_string(), addr))
}

pub fn parse(args: impl Iterator<Item = String>) -> Result<Command, String> {
    let mut args = args.peekable();
    let (mut url, mut ca, mut server_name) = (None, None, None);
    let (mut connections, mut streams, mut requests) = (10u64, 1u64, None);
    let (mut duration, mut warmup, mut timeout) = (
        Duration::from_secs(10),
        Duration::ZERO,
        Duration::from_secs(2),
    );
    let mut method = http::Method::GET;
    let (mut headers, mut body, mut expect_body) = (Vec::new(), None, None);
    let mut expect_status = 200u16;
    let mut targets: Vec<(String, Vec<Vec<u8>>)> = Vec::new();
    let (mut mode, mut size) = (Mode::H3, 64u64);
    while let Some(flag) = args.next() {
        let mut value = || args.next().ok_or_else(|| format!("{flag} needs a value"));
        match flag.as_str() {
            "-h" | "--help" => return Ok(Command::Help),
            "-V" | "--version" => return Ok(Command::Version),
            "--url" => url = Some(value()?),
            "--ca" => ca = Some(value()?),
            "--server-name" => server_name = Some(value()?),
            "--connections" => connections = int("connections", &value()?, 1, 10_000)?,
            "--streams" => streams = int("streams", &value()?, 1, 1_000)?,
            "--requests" => requests = Some(int("requests", &value()?, 1, u64::MAX)?),
            "--duration" => duration = secs("duration", &value()?, 0.1)?,
            "--warmup" => warmup = secs("warmup", &value()?, 0.0)?,
            "--timeout" => timeout = secs("timeout", &value()?, 0.01)?,
            "--method" => {
                let v = value()?;
                method = v
                    .parse()
                    .map_err(|_| format!("--method: bad method {v:?}"))?;
            }
            "--header" => {
                let v = value()?;
                let (name, val) = v
                    .split_once(':')
                    .ok_or_else(|| format!("--header must be 'NAME: VALUE' (got {v:?})"))?;
                let name =
                    http::HeaderName::from_bytes(name.trim().to_ascii_lowercase().as_bytes())
                        .map_err(|_| format!("--header: bad name in {v:?}"))?;
                let val = http::HeaderValue::from_str(val.trim())
                    .map_err(|_| format!("--header: bad value in {v:?}"))?;
                headers.push((name, val));
            }
            "--body" => body = Some(value()?.into_bytes()),
            "--body-file" => body = Some(read("body-file", &value()?)?),
            "--expect-status" => expect_status = int("expect-status", &value()?, 100, 999)? as u16,
            "--expect-body" => expect_body = Some(value()?.into_bytes()),
            "--expect-body-file" => expect_body = Some(read("expect-body-file", &value()?)?),
            "--target" => targets.push(target(&value()?)?),
            "--size" => size = int("size", &value()?, 8, 1 << 20)?,
            "--mode" => {
                mode = match value()?.as_str() {
                    "h3" => Mode::H3,
                    "wt-stream" => Mode::WtStream,
                    "wt-datagram" => Mode::WtDatagram,
                    m => {
                        return Err(format!(
                            "--mode must be h3, wt-stream or wt-datagram (got {m:?})"
                        ))
                    }
                }
            }
            other => return Err(format!("unknown option {other:?}")),
        }
    }
    let url = url.ok_or("--url is required")?;
    let (host, addr) = parse_url(&url)?;
    let roots = crate::tls::pem_certs(
        &ca.ok_or("--ca is required (the server's certificate or its CA, PEM)")?,
    )?;
    let targets = if mode != Mode::H3 {
        vec![Target {
            uri: url.clone(),
            bodies: Vec::new(),
        }]
    } else if targets.is_empty() {
        let body =
            expect_body.ok_or("--expect-body, --expect-body-file or --target is required")?;
        vec![Target {
            uri: url.clone(),
            bodies: vec![body],
        }]
    } else {
        targets
            .into_iter()
            .map(|(path, bodies)| Target {
                uri: format!("{}{path}", origin(&url)),
                bodies,
            })
            .collect()
    };
    Ok(Command::Run(Box::new(Args {
        mode,
        size: size as usize,
        addr,
        server_name: server_name.unwrap_or(host),
        roots,
        connections: connections as usize,
        streams: streams as usize,
        duration,
        warmup,
        requests,
        timeout,
        method,
        headers,
        body,
        expect_status,
        targets,
    })))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls() {
        let (h, a) = parse_url("https://127.0.0.1:8443/x?y=1").unwrap();
        assert_eq!((h.as_str(), a.port()), ("127.0.0.1", 8443));
        let (h, a) = parse_url("https://[::1]:9/").unwrap();
        assert_eq!((h.as_str(), a.port()), ("::1", 9));
        assert_eq!(parse_url("https://127.0.0.1/").unwrap().1.port(), 443);
        assert!(parse_url("http://127.0.0.1:1/")
            .unwrap_err()
            .contains("https://"));
    }

    #[test]
    fn required_and_ranges() {
        let run = |a: &[&str]| parse(a.iter().map(|s| s.to_string()));
        assert!(run(&[]).unwrap_err().contains("--url"));
        assert!(run(&["--url", "https://127.0.0.1:1/"])
            .unwrap_err()
            .contains("--ca"));
        assert!(run(&["--streams", "0"]).unwrap_err().contains("--streams"));
        assert!(run(&["--bogus"]).unwrap_err().contains("unknown option"));
        assert!(matches!(run(&["--help"]), Ok(Command::Help)));
    }

    #[test]
    fn targets() {
        let dir = std::env::temp_dir().join(format!("gale-loadgen-h3-cli-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let (a, b) = (dir.join("a"), dir.join("a.br"));
        std::fs::write(&a, "plain").unwrap();
        std::fs::write(&b, "brotli").unwrap();
        let got = target(&format!("/static/a={},{}", a.display(), b.display()));
        let missing = target(&format!("/x={}", dir.join("none").display()));
        let q = target(&format!("/b?a=1&b=1={}", a.display()));
        std::fs::remove_dir_all(&dir).ok();
        let (path, bodies) = got.unwrap();
        assert_eq!(path, "/static/a");
        assert_eq!(bodies, vec![b"plain".to_vec(), b"brotli".to_vec()]);
        assert!(missing.unwrap_err().contains("--target"));
        assert!(target("static/a=x").unwrap_err().contains("PATH=FILE"));
        assert!(target("/a=").unwrap_err().contains("PATH=FILE"));
        assert_eq!(q.unwrap().0, "/b?a=1&b=1");
        assert_eq!(origin("https://127.0.0.1:9/x?y=1"), "https://127.0.0.1:9");
        assert_eq!(origin("https://127.0.0.1:9"), "https://127.0.0.1:9");
    }
}
