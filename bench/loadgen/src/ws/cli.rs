//! gale-loadgen-ws's command line: usage text, options and their checks (+ tests).

use std::net::{SocketAddr, ToSocketAddrs};
use std::time::Duration;

pub const USAGE: &str = "\
Usage: gale-loadgen-ws --mode echo|fastws|broadcast|idle|sio-echo|sio-broadcast --url ws://127.0.0.1:PORT/path
       [options]

Single-threaded WebSocket load generator that checks every reply (exact text) and prints one JSON line.
Exit code: 0 = every message valid and no error, 1 = not, 2 = usage error.

echo: --connections workers each repeatedly connect, send --messages text messages of --size '0' one after another
(waiting for each exact echo) and close, until --duration has passed.
fastws: the same over the fast-ws protocol: subprotocol `fast-ws`, the server's first frame must be \\x00\\x02, each
message is the event `echo` with a reply id (\\x05 41f \\x16 ID \\x01 [\"000…\"] \\x02) and must be answered by exactly
\\x06 ID \\x01 [\"000…\"] \\x02.
broadcast: clients are added --step at a time (each checks one {\"type\":\"echo\"} round trip when it joins); at each
step --samples broadcasts are sent from rotating clients, --concurrent of them in flight, and a broadcast's round trip
lasts until every client got its {\"type\":\"broadcastResult\"}. Stepping stops when the p95 round trip exceeds
--limit-ms, when this generator was on its CPU for 95 % of a step (it is then the bottleneck), at --max-clients, or
when --duration has passed; each step reports its deliveries per second.
idle: opens --connections connections at --rate per second, prints `holding N` on stderr once all are open, holds
them for --hold seconds without traffic, prints `checking` on stderr, then pings every one (each must answer with
its pong) and closes them.
sio-echo: Socket.IO (Engine.IO 4, websocket transport) without a Socket.IO library: --connections sockets each
connect to --namespace (open packet and connect answer checked), send --messages events 42ID[\"echo\",\"000…\"]
(--size '0's), --concurrent of them in flight, each answered by exactly 43ID[\"000…\"], disconnect (41) and
connect again, until --duration has passed. Server pings (2) are answered (3).
sio-broadcast: --connections sockets join --namespace (default /broadcast), 64 connecting at once; then for
--duration seconds they take turns emitting [\"broadcast\",{\"id\":N,\"ts\":T,\"pad\":\"000…\"}] with an ack id,
--concurrent in flight; every socket must get [\"broadcastResult\",<the same payload>] exactly once and the sender
the ack 43ID[]. With --server-pid, the server's CPU time over the broadcast phase is reported.

Options:
  --mode echo|fastws|broadcast|idle|sio-echo|sio-broadcast   (required)
  --url ws://HOST:PORT/PATH  (required; sio-*: the path defaults to /socket.io/ and ?EIO=4&transport=websocket
                          is added when the URL has no query)
  --connections N         echo/fastws/sio-echo: concurrent connections; idle: connections to open;
                          sio-broadcast: sockets in the room (default 100)
  --messages N            echo/fastws/sio-echo: messages per connection (default 100)
  --size N                echo/fastws/sio-echo: message size in bytes (default 1024)
  --over http1|h2c        echo/fastws: each WebSocket on a TCP connection of its own by an HTTP/1.1 upgrade
                          (default), or as a stream of a cleartext HTTP/2 connection of its own (RFC 8441)
  --streams N             --over h2c: WebSockets sharing each HTTP/2 connection (default 1: each its own)
  --duration SECS         echo/fastws/sio-*: seconds of load; broadcast: time budget for stepping (default 10)
  --timeout SECS          connect / echo / broadcast delivery / pong slower than this is a timeout error (default 5)
  --step N                broadcast: clients added per step (default 50)
  --max-clients N         broadcast: stop stepping here (default 10000)
  --samples N             broadcast: broadcasts per step (default 20)
  --concurrent N          broadcast/sio-broadcast: broadcasts in flight at once; sio-echo: events in flight per
                          socket (default 1)
  --padding N             broadcast/sio-broadcast: padding bytes in each payload (default 100)
  --namespace /NAME       sio-*: the Socket.IO namespace (default / for sio-echo, /broadcast for sio-broadcast)
  --server-pid PID        sio-broadcast: read this process's CPU time (/proc/PID/stat) around the broadcast phase
  --limit-ms N            broadcast: p95 round trip limit (default 500)
  --rate N                idle: connections opened per second (default 1000)
  --hold SECS             idle: how long all connections stay open and idle (default 3)
  -h, --help              this text
  -V, --version           version
";

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Mode {
    Echo,
    FastWs,
    Broadcast,
    Idle,
    SioEcho,
    SioBroadcast,
}

impl Mode {
    pub fn name(self) -> &'static str {
        match self {
            Mode::Echo => "echo",
            Mode::FastWs => "fastws",
            Mode::Broadcast => "broadcast",
            Mode::Idle => "idle",
            Mode::SioEcho => "sio-echo",
            Mode::SioBroadcast => "sio-broadcast",
        }
    }
}

/// What the echo modes' WebSockets ride on (`--over`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Over {
    /// An HTTP/1.1 upgrade on a TCP connection of their own.
    Http1,
    /// An extended CONNECT on a cleartext HTTP/2 connection of their own (RFC 8441).
    H2c,
}

impl Over {
    pub fn name(self) -> &'static str {
        match self {
            Over::Http1 => "http1",
            Over::H2c => "h2c",
        }
    }
}

#[derive(Debug)]
pub struct Args {
    pub mode: Mode,
    pub over: Over,
    /// `--over h2c`: WebSockets per HTTP/2 connection (1: each its own).
    pub streams: usize,
    pub url: String,
    pub addr: SocketAddr,
    pub connections: usize,
    pub messages: usize,
    pub size: usize,
    pub duration: Duration,
    pub timeout: Duration,
    pub step: usize,
    pub max_clients: usize,
    pub samples: usize,
    pub concurrent: usize,
    pub padding: usize,
    pub limit: Duration,
    pub rate: usize,
    pub hold: Duration,
    /// sio-*: the Socket.IO namespace (`/` or `/name`).
    pub namespace: String,
    /// sio-broadcast: the server process whose CPU time is read around the broadcast phase.
    pub server_pid: Option<u32>,
}

fn num<T: std::str::FromStr>(name: &str, v: &str) -> Result<T, String> {
    v.parse::<T>()
        .map_err(|_| format!("--{name}: not a valid number: {v:?}"))
}

fn secs(name: &str, v: &str) -> Result<Duration, String> {
    match v.parse::<f64>() {
        Ok(s) if s.is_finite() && s > 0.0 && s <= 86_400.0 => Ok(Duration::from_secs_f64(s)),
        _ => Err(format!(
            "--{name} must be a positive number of seconds (got {v:?})"
        )),
    }
}

/// `ws://host:port/path` → socket address (the URL itself is handed to the handshake).
fn parse_url(url: &str) -> Result<SocketAddr, String> {
    let rest = url
        .strip_prefix("ws://")
        .ok_or_else(|| format!("only ws:// URLs are supported (got {url:?})"))?;
    let authority = rest.split(['/', '?']).next().unwrap_or("");
    let with_port = if authority
        .rsplit_once(':')
        .is_some_and(|(_, p)| !p.contains(']'))
    {
        authority.to_string()
    } else {
        format!("{authority}:80")
    };
    with_port
        .to_socket_addrs()
        .map_err(|e| format!("cannot resolve {authority:?}: {e}"))?
        .next()
        .ok_or_else(|| format!("{authority:?} resolves to no address"))
}

/// The Engine.IO endpoint of a sio-* URL: the path defaults to `/socket.io/`, and a URL without a query asks for
/// Engine.IO 4 over the websocket transport from the start (`?EIO=4&transport=websocket`), as socket.io-client does
/// with `transports: ['websocket']`.
fn engine_io_url(url: &str) -> String {
    let rest = url.strip_prefix("ws://").unwrap_or(url);
    let (authority, path) = rest.split_at(rest.find(['/', '?']).unwrap_or(rest.len()));
    let path = match path {
        "" | "/" => "/socket.io/",
        p if p.starts_with('?') => return format!("ws://{authority}/socket.io/{p}"),
        p => p,
    };
    if path.contains('?') {
        format!("ws://{authority}{path}")
    } else {
        format!("ws://{authority}{path}?{}", crate::sio::QUERY)
    }
}

pub enum Command {
    Run(Box<Args>),
    Help,
    Version,
}

pub fn parse(argv: impl Iterator<Item = String>) -> Result<Command, String> {
    let mut mode = None;
    let mut url = None;
    let mut a = Args {
        mode: Mode::Echo,
        over: Over::Http1,
        streams: 1,
        url: String::new(),
        addr: SocketAddr::from(([127, 0, 0, 1], 0)),
        connections: 100,
        messages: 100,
        size: 1024,
        duration: Duration::from_secs(10),
        timeout: Duration::from_secs(5),
        step: 50,
        max_clients: 10_000,
        samples: 20,
        concurrent: 1,
        padding: 100,
        limit: Duration::from_millis(500),
        rate: 1000,
        hold: Duration::from_secs(3),
        namespace: String::new(),
        server_pid: None,
    };
    let mut it = argv;
    while let Some(flag) = it.next() {
        match flag.as_str() {
            "-h" | "--help" => return Ok(Command::Help),
            "-V" | "--version" => return Ok(Command::Version),
            _ => {}
        }
        let name = flag
            .strip_prefix("--")
            .ok_or_else(|| format!("unexpected argument {flag:?}"))?;
        let v = it.next().ok_or_else(|| format!("{flag} needs a value"))?;
        match name {
            "mode" => {
                mode = Some(match v.as_str() {
                    "echo" => Mode::Echo,
                    "fastws" => Mode::FastWs,
                    "broadcast" => Mode::Broadcast,
                    "idle" => Mode::Idle,
                    "sio-echo" => Mode::SioEcho,
                    "sio-broadcast" => Mode::SioBroadcast,
                    _ => {
                        return Err(format!(
                            "--mode must be echo, fastws, broadcast, idle, sio-echo or sio-broadcast (got {v:?})"
                        ))
                    }
                })
            }
            "url" => url = Some(v),
            "over" => {
                a.over = match v.as_str() {
                    "http1" => Over::Http1,
                    "h2c" => Over::H2c,
                    _ => return Err(format!("--over must be http1 or h2c (got {v:?})")),
                }
            }
            "connections" => a.connections = num(name, &v)?,
            "streams" => a.streams = num(name, &v)?,
            "messages" => a.messages = num(name, &v)?,
            "size" => a.size = num(name, &v)?,
            "duration" => a.duration = secs(name, &v)?,
            "timeout" => a.timeout = secs(name, &v)?,
            "step" => a.step = num(name, &v)?,
            "max-clients" => a.max_clients = num(name, &v)?,
            "samples" => a.samples = num(name, &v)?,
            "concurrent" => a.concurrent = num::<usize>(name, &v)?.max(1),
            "padding" => a.padding = num(name, &v)?,
            "limit-ms" => a.limit = Duration::from_millis(num(name, &v)?),
            "rate" => a.rate = num(name, &v)?,
            "hold" => a.hold = secs(name, &v)?,
            "namespace" => {
                if !v.starts_with('/') || v.contains([',', '?', '#']) {
                    return Err(format!(
                        "--namespace must start with / and hold no , ? or # (got {v:?})"
                    ));
                }
                a.namespace = v;
            }
            "server-pid" => a.server_pid = Some(num(name, &v)?),
            _ => return Err(format!("unknown option {flag}")),
        }
    }
    a.mode = mode.ok_or("--mode is required")?;
    if a.over == Over::H2c && !matches!(a.mode, Mode::Echo | Mode::FastWs) {
        return Err("--over h2c is for the echo and fastws modes".into());
    }
    if a.streams == 0 || (a.streams > 1 && a.over != Over::H2c) {
        return Err("--streams is 1, or more with --over h2c".into());
    }
    a.url = url.ok_or("--url is required")?;
    a.addr = parse_url(&a.url)?;
    if matches!(a.mode, Mode::SioEcho | Mode::SioBroadcast) {
        a.url = engine_io_url(&a.url);
        if a.namespace.is_empty() {
            a.namespace = if a.mode == Mode::SioEcho {
                "/"
            } else {
                "/broadcast"
            }
            .into();
        }
    }
    if a.connections == 0
        || a.messages == 0
        || a.step == 0
        || a.samples == 0
        || a.max_clients == 0
        || a.rate == 0
    {
        return Err(
            "--connections, --messages, --step, --samples, --max-clients and --rate must be ≥ 1"
                .into(),
        );
    }
    Ok(Command::Run(Box::new(a)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(s: &str) -> Result<Command, String> {
        parse(s.split_whitespace().map(String::from))
    }

    #[test]
    fn parses_options_and_url() {
        let Ok(Command::Run(a)) =
            args("--mode broadcast --url ws://127.0.0.1:9/broadcast --step 5 --limit-ms 100")
        else {
            panic!("should parse");
        };
        assert_eq!(a.mode, Mode::Broadcast);
        assert_eq!(a.addr, SocketAddr::from(([127, 0, 0, 1], 9)));
        assert_eq!((a.step, a.limit), (5, Duration::from_millis(100)));
        let Ok(Command::Run(a)) =
            args("--mode idle --url ws://127.0.0.1:9/echo --rate 50 --hold 1.5")
        else {
            panic!("should parse");
        };
        assert_eq!(
            (a.mode, a.rate, a.hold),
            (Mode::Idle, 50, Duration::from_millis(1500))
        );
        assert!(
            matches!(args("--mode fastws --url ws://127.0.0.1:9/fws"), Ok(Command::Run(a)) if a.mode == Mode::FastWs)
        );
        assert!(
            args("--url ws://127.0.0.1:9/").is_err(),
            "--mode is required"
        );
        assert!(args("--mode echo --url http://127.0.0.1:9/").is_err());
        assert!(args("--mode echo --url ws://127.0.0.1:9/ --connections 0").is_err());
        assert!(args("--mode echo --url ws://127.0.0.1:9/ --bogus 1").is_err());
        assert!(args("--mode sio --url ws://127.0.0.1:9/").is_err());
    }

    #[test]
    fn sio_modes_get_the_engine_io_url_and_a_namespace() {
        let Ok(Command::Run(a)) = args("--mode sio-echo --url ws://127.0.0.1:9 --concurrent 4")
        else {
            panic!("should parse");
        };
        assert_eq!(
            (a.url.as_str(), a.namespace.as_str(), a.concurrent),
            (
                "ws://127.0.0.1:9/socket.io/?EIO=4&transport=websocket",
                "/",
                4
            )
        );
        let Ok(Command::Run(a)) =
            args("--mode sio-broadcast --url ws://127.0.0.1:9/io/ --server-pid 42")
        else {
            panic!("should parse");
        };
        assert_eq!(
            (a.url.as_str(), a.namespace.as_str(), a.server_pid),
            (
                "ws://127.0.0.1:9/io/?EIO=4&transport=websocket",
                "/broadcast",
                Some(42)
            )
        );
        assert_eq!(
            engine_io_url("ws://h:1/socket.io/?EIO=4&transport=websocket&x=1"),
            "ws://h:1/socket.io/?EIO=4&transport=websocket&x=1"
        );
        assert!(args("--mode sio-echo --url ws://127.0.0.1:9/ --namespace chat").is_err());
        assert!(args("--mode sio-echo --url ws://127.0.0.1:9/ --namespace /a,b").is_err());
    }
}
