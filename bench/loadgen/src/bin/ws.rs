//! gale-loadgen-ws: a single-threaded WebSocket load generator for Gale's benchmark harness (tokio current-thread
//! runtime + tokio-tungstenite). Modes `echo` and `broadcast` (bench/loadgen/README.md); every echo and every broadcast
//! delivery is compared with the exact expected text, and one JSON line of results is printed.

use std::cell::RefCell;
use std::collections::HashMap;
use std::net::{SocketAddr, ToSocketAddrs};
use std::process::ExitCode;
use std::rc::Rc;
use std::time::{Duration, Instant};

use futures_util::stream::SplitStream;
use futures_util::{SinkExt, StreamExt};
use hdrhistogram::Histogram;
use serde_json::json;
use tokio::net::TcpStream;
use tokio::sync::{mpsc, oneshot};
use tokio::time::timeout;
use tokio_tungstenite::tungstenite::{Message, Utf8Bytes};
use tokio_tungstenite::{client_async, WebSocketStream};

const USAGE: &str = "\
Usage: gale-loadgen-ws --mode echo|broadcast --url ws://127.0.0.1:PORT/path [options]

Single-threaded WebSocket load generator that checks every echo (exact text) and prints one JSON line.
Exit code: 0 = every message valid and no error, 1 = not, 2 = usage error.

echo: --connections workers each repeatedly connect, send --messages text messages of --size '0' one after another
(waiting for each exact echo) and close, until --duration has passed.
broadcast: clients are added --step at a time (each checks one {\"type\":\"echo\"} round trip when it joins); at each
step --samples broadcasts are sent one after another from rotating clients, and a broadcast's round trip lasts until
every client got its {\"type\":\"broadcastResult\"}. Stepping stops when the p95 round trip exceeds --limit-ms, at
--max-clients, or when --duration has passed.

Options:
  --mode echo|broadcast   (required)
  --url ws://HOST:PORT/PATH  (required)
  --connections N         echo: concurrent connections (default 100)
  --messages N            echo: messages per connection (default 100)
  --size N                echo: message size in bytes (default 1024)
  --duration SECS         echo: seconds of load; broadcast: time budget for stepping (default 10)
  --timeout SECS          connect / echo / broadcast delivery slower than this is a timeout error (default 5)
  --step N                broadcast: clients added per step (default 50)
  --max-clients N         broadcast: stop stepping here (default 10000)
  --samples N             broadcast: broadcasts per step (default 20)
  --padding N             broadcast: padding bytes in each payload (default 100)
  --limit-ms N            broadcast: p95 round trip limit (default 500)
  -h, --help              this text
  -V, --version           version
";

#[derive(Debug, Clone, Copy, PartialEq)]
enum Mode {
    Echo,
    Broadcast,
}

#[derive(Debug)]
struct Args {
    mode: Mode,
    url: String,
    addr: SocketAddr,
    connections: usize,
    messages: usize,
    size: usize,
    duration: Duration,
    timeout: Duration,
    step: usize,
    max_clients: usize,
    samples: usize,
    padding: usize,
    limit: Duration,
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
    let authority = rest.split('/').next().unwrap_or("");
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

enum Command {
    Run(Args),
    Help,
    Version,
}

fn parse(argv: impl Iterator<Item = String>) -> Result<Command, String> {
    let mut mode = None;
    let mut url = None;
    let mut a = Args {
        mode: Mode::Echo,
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
        padding: 100,
        limit: Duration::from_millis(500),
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
                    "broadcast" => Mode::Broadcast,
                    _ => return Err(format!("--mode must be echo or broadcast (got {v:?})")),
                })
            }
            "url" => url = Some(v),
            "connections" => a.connections = num(name, &v)?,
            "messages" => a.messages = num(name, &v)?,
            "size" => a.size = num(name, &v)?,
            "duration" => a.duration = secs(name, &v)?,
            "timeout" => a.timeout = secs(name, &v)?,
            "step" => a.step = num(name, &v)?,
            "max-clients" => a.max_clients = num(name, &v)?,
            "samples" => a.samples = num(name, &v)?,
            "padding" => a.padding = num(name, &v)?,
            "limit-ms" => a.limit = Duration::from_millis(num(name, &v)?),
            _ => return Err(format!("unknown option {flag}")),
        }
    }
    a.mode = mode.ok_or("--mode is required")?;
    a.url = url.ok_or("--url is required")?;
    a.addr = parse_url(&a.url)?;
    if a.connections == 0 || a.messages == 0 || a.step == 0 || a.samples == 0 || a.max_clients == 0
    {
        return Err(
            "--connections, --messages, --step, --samples and --max-clients must be ≥ 1".into(),
        );
    }
    Ok(Command::Run(a))
}

type Ws = WebSocketStream<TcpStream>;

#[derive(Debug, Default)]
struct Errors {
    connect: u64,
    read: u64,
    write: u64,
    timeout: u64,
    closed: u64,
}

impl Errors {
    fn total(&self) -> u64 {
        self.connect + self.read + self.write + self.timeout + self.closed
    }
    fn json(&self) -> serde_json::Value {
        json!({"connect": self.connect, "read": self.read, "write": self.write, "timeout": self.timeout,
               "closed": self.closed})
    }
}

#[derive(Debug)]
struct Stats {
    errors: Errors,
    first_error: Option<String>,
    valid: u64,
    invalid: u64,
    first_invalid: Option<String>,
    connects: u64,
    connect_us: Histogram<u64>,
    echo_us: Histogram<u64>,
}

impl Stats {
    fn new() -> Self {
        let h = || Histogram::new_with_bounds(1, 3_600_000_000, 3).expect("histogram bounds");
        Stats {
            errors: Errors::default(),
            first_error: None,
            valid: 0,
            invalid: 0,
            first_invalid: None,
            connects: 0,
            connect_us: h(),
            echo_us: h(),
        }
    }
    fn error(&mut self, what: impl FnOnce(&mut Errors) -> &mut u64, why: String) {
        *what(&mut self.errors) += 1;
        self.first_error.get_or_insert(why);
    }
    fn invalid(&mut self, got: &Message, expected: &str) {
        self.invalid += 1;
        if self.first_invalid.is_none() {
            let at = match got {
                Message::Text(t) => {
                    let (g, e) = (t.as_bytes(), expected.as_bytes());
                    let i = g
                        .iter()
                        .zip(e)
                        .position(|(a, b)| a != b)
                        .unwrap_or(g.len().min(e.len()));
                    format!(" (first difference at byte {i})")
                }
                _ => String::new(),
            };
            self.first_invalid = Some(format!(
                "expected the {}-byte text message sent, got {}{at}",
                expected.len(),
                describe(got)
            ));
        }
    }
}

/// `text, N bytes: <first 120 bytes>` with non-printable bytes as `\xNN`.
fn describe(m: &Message) -> String {
    let (kind, data): (&str, &[u8]) = match m {
        Message::Text(t) => ("text", t.as_bytes()),
        Message::Binary(b) => ("binary", b),
        Message::Ping(b) => ("ping", b),
        Message::Pong(b) => ("pong", b),
        Message::Close(_) => ("close", b""),
        Message::Frame(_) => ("frame", b""),
    };
    let mut s = format!("{kind}, {} bytes: ", data.len());
    for &b in data.iter().take(120) {
        if (0x20..0x7f).contains(&b) && b != b'\\' {
            s.push(b as char);
        } else {
            s.push_str(&format!("\\x{b:02x}"));
        }
    }
    s
}

fn us(d: Duration) -> u64 {
    u64::try_from(d.as_micros()).unwrap_or(u64::MAX).max(1)
}

fn summary(h: &Histogram<u64>) -> serde_json::Value {
    if h.is_empty() {
        return json!(null);
    }
    json!({"min": h.min(), "mean": (h.mean() * 10.0).round() / 10.0, "median": h.value_at_quantile(0.5),
           "p95": h.value_at_quantile(0.95), "p99": h.value_at_quantile(0.99), "max": h.max(),
           "stddev": (h.stdev() * 10.0).round() / 10.0})
}

/// TCP connect + WebSocket handshake.
async fn connect(a: &Args) -> Result<Ws, String> {
    let tcp = TcpStream::connect(a.addr)
        .await
        .map_err(|e| format!("connect: {e}"))?;
    let _ = tcp.set_nodelay(true);
    let (ws, _) = client_async(a.url.as_str(), tcp)
        .await
        .map_err(|e| format!("handshake: {e}"))?;
    Ok(ws)
}

/// The next data message (pings are answered by tungstenite, pongs skipped), or the error kind and reason.
async fn next_data(
    rx: &mut (impl StreamExt<Item = Result<Message, tokio_tungstenite::tungstenite::Error>> + Unpin),
) -> Result<Message, (Kind, String)> {
    loop {
        match rx.next().await {
            None => return Err((Kind::Closed, "connection closed by the server".into())),
            Some(Err(e)) => return Err((Kind::Read, format!("read: {e}"))),
            Some(Ok(Message::Ping(_) | Message::Pong(_) | Message::Frame(_))) => {}
            Some(Ok(Message::Close(c))) => {
                return Err((Kind::Closed, format!("close frame from the server: {c:?}")))
            }
            Some(Ok(m)) => return Ok(m),
        }
    }
}

#[derive(Debug, Clone, Copy)]
enum Kind {
    Read,
    Closed,
}

fn record(st: &mut Stats, k: Kind, why: String) {
    match k {
        Kind::Read => st.error(|e| &mut e.read, why),
        Kind::Closed => st.error(|e| &mut e.closed, why),
    }
}

// ---------------------------------------------------------------------------------------------------------- echo

async fn echo_worker(a: Rc<Args>, st: Rc<RefCell<Stats>>, payload: Utf8Bytes, deadline: Instant) {
    while Instant::now() < deadline {
        let t0 = Instant::now();
        let mut ws = match timeout(a.timeout, connect(&a)).await {
            Ok(Ok(ws)) => ws,
            Ok(Err(why)) => {
                st.borrow_mut().error(|e| &mut e.connect, why);
                tokio::time::sleep(Duration::from_millis(10)).await;
                continue;
            }
            Err(_) => {
                st.borrow_mut()
                    .error(|e| &mut e.timeout, "connect + handshake timed out".into());
                continue;
            }
        };
        {
            let mut s = st.borrow_mut();
            s.connects += 1;
            let _ = s.connect_us.record(us(t0.elapsed()));
        }
        let mut healthy = true;
        for _ in 0..a.messages {
            if Instant::now() >= deadline {
                break;
            }
            let t = Instant::now();
            if let Err(e) = ws.send(Message::Text(payload.clone())).await {
                st.borrow_mut()
                    .error(|e| &mut e.write, format!("write: {e}"));
                healthy = false;
                break;
            }
            match timeout(a.timeout, next_data(&mut ws)).await {
                Err(_) => {
                    st.borrow_mut()
                        .error(|e| &mut e.timeout, "no echo within --timeout".into());
                    healthy = false;
                    break;
                }
                Ok(Err((k, why))) => {
                    record(&mut st.borrow_mut(), k, why);
                    healthy = false;
                    break;
                }
                Ok(Ok(m)) => {
                    let mut s = st.borrow_mut();
                    if matches!(&m, Message::Text(got) if got.as_str() == payload.as_str()) {
                        s.valid += 1;
                        let _ = s.echo_us.record(us(t.elapsed()));
                    } else {
                        s.invalid(&m, payload.as_str());
                        healthy = false;
                        break;
                    }
                }
            }
        }
        if healthy {
            let _ = timeout(Duration::from_secs(1), async {
                if ws.close(None).await.is_ok() {
                    while let Some(Ok(_)) = ws.next().await {}
                }
            })
            .await;
        }
    }
}

async fn run_echo(a: Rc<Args>) -> (Stats, Duration) {
    let st = Rc::new(RefCell::new(Stats::new()));
    let payload: Utf8Bytes = "0".repeat(a.size).into();
    let start = Instant::now();
    let deadline = start + a.duration;
    let mut tasks = Vec::with_capacity(a.connections);
    for _ in 0..a.connections {
        tasks.push(tokio::task::spawn_local(echo_worker(
            a.clone(),
            st.clone(),
            payload.clone(),
            deadline,
        )));
    }
    for t in tasks {
        let _ = t.await;
    }
    let elapsed = start.elapsed();
    let st = Rc::try_unwrap(st).expect("workers done").into_inner();
    (st, elapsed)
}

// ----------------------------------------------------------------------------------------------------- broadcast

struct Pending {
    sent: Instant,
    got: Vec<bool>,
    left: usize,
    done: Option<oneshot::Sender<Duration>>,
}

struct Shared {
    stats: Stats,
    /// Expected broadcastResult text → its delivery state.
    pending: HashMap<String, Pending>,
    /// Client id → the echo it waits for.
    echo: HashMap<usize, (String, Instant, oneshot::Sender<()>)>,
    stopping: bool,
}

async fn client_reader(id: usize, mut rx: SplitStream<Ws>, sh: Rc<RefCell<Shared>>) {
    loop {
        let m = next_data(&mut rx).await;
        let mut s = sh.borrow_mut();
        let m = match m {
            Ok(m) => m,
            Err((k, why)) => {
                if !s.stopping {
                    record(&mut s.stats, k, format!("client {id}: {why}"));
                }
                return;
            }
        };
        let Message::Text(t) = &m else {
            s.stats.invalid += 1;
            s.stats
                .first_invalid
                .get_or_insert_with(|| format!("client {id}: unexpected message {}", describe(&m)));
            continue;
        };
        let s = &mut *s;
        if let Some(p) = s.pending.get_mut(t.as_str()) {
            if p.got.get(id).copied().unwrap_or(true) {
                s.stats.invalid += 1;
                s.stats
                    .first_invalid
                    .get_or_insert_with(|| format!("client {id} got a broadcast twice (or was not connected when it was sent): {}", describe(&m)));
                continue;
            }
            p.got[id] = true;
            p.left -= 1;
            s.stats.valid += 1;
            if p.left == 0 {
                let rtt = p.sent.elapsed();
                if let Some(done) = p.done.take() {
                    let _ = done.send(rtt);
                }
                s.pending.remove(t.as_str());
            }
            continue;
        }
        if s.echo
            .get(&id)
            .is_some_and(|(want, _, _)| want.as_str() == t.as_str())
        {
            let (_, sent, done) = s.echo.remove(&id).expect("checked");
            s.stats.valid += 1;
            let _ = s.stats.echo_us.record(us(sent.elapsed()));
            let _ = done.send(());
            continue;
        }
        s.stats.invalid += 1;
        s.stats
            .first_invalid
            .get_or_insert_with(|| format!("client {id}: unexpected message {}", describe(&m)));
    }
}

struct Client {
    tx: mpsc::UnboundedSender<Message>,
}

/// Connects client `id`, starts its reader and writer, and checks one echo round trip.
async fn add_client(id: usize, a: Rc<Args>, sh: Rc<RefCell<Shared>>) -> Option<Client> {
    let t0 = Instant::now();
    let ws = match timeout(a.timeout, connect(&a)).await {
        Ok(Ok(ws)) => ws,
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
    let (mut sink, stream) = ws.split();
    let (tx, mut rx) = mpsc::unbounded_channel::<Message>();
    let shw = sh.clone();
    tokio::task::spawn_local(async move {
        while let Some(m) = rx.recv().await {
            if let Err(e) = sink.send(m).await {
                let mut s = shw.borrow_mut();
                if !s.stopping {
                    s.stats
                        .error(|e| &mut e.write, format!("client {id}: write: {e}"));
                }
                return;
            }
        }
        let _ = sink.close().await;
    });
    tokio::task::spawn_local(client_reader(id, stream, sh.clone()));
    let payload = format!(
        r#"{{"id":"echo-{id}","ts":{},"pad":"{}"}}"#,
        us(t0.elapsed()),
        "0".repeat(a.padding)
    );
    let text = format!(r#"{{"type":"echo","payload":{payload}}}"#);
    let (done, wait) = oneshot::channel();
    sh.borrow_mut()
        .echo
        .insert(id, (text.clone(), Instant::now(), done));
    let _ = tx.send(Message::text(text));
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

async fn run_broadcast(a: Rc<Args>) -> (Stats, Duration, serde_json::Value) {
    let sh = Rc::new(RefCell::new(Shared {
        stats: Stats::new(),
        pending: HashMap::new(),
        echo: HashMap::new(),
        stopping: false,
    }));
    let start = Instant::now();
    let mut clients: Vec<Client> = Vec::new();
    let mut steps = Vec::new();
    let mut rtt_all =
        Histogram::<u64>::new_with_bounds(1, 3_600_000_000, 3).expect("histogram bounds");
    let mut held: usize = 0;
    let mut held_rtt = json!(null);
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
        for i in 0..a.samples {
            seq += 1;
            let sender = (seq as usize) % n;
            let payload = format!(
                r#"{{"id":{seq},"ts":{},"pad":"{}"}}"#,
                us(start.elapsed()),
                "0".repeat(a.padding)
            );
            let expected = format!(r#"{{"type":"broadcastResult","payload":{payload}}}"#);
            let (done, wait) = oneshot::channel();
            sh.borrow_mut().pending.insert(
                expected.clone(),
                Pending {
                    sent: Instant::now(),
                    got: vec![false; n],
                    left: n,
                    done: Some(done),
                },
            );
            let _ = clients[sender].tx.send(Message::text(format!(
                r#"{{"type":"broadcast","payload":{payload}}}"#
            )));
            match timeout(a.timeout, wait).await {
                Ok(Ok(rtt)) => {
                    rtts.push(us(rtt));
                    let _ = rtt_all.record(us(rtt));
                }
                _ => {
                    let mut s = sh.borrow_mut();
                    let left = s.pending.remove(&expected).map_or(0, |p| p.left);
                    s.stats.error(
                        |e| &mut e.timeout,
                        format!("broadcast {i} at {n} clients: {left} clients did not get it within --timeout"),
                    );
                    stopped = "a broadcast timed out";
                    break 'steps;
                }
            }
        }
        let mut sorted = rtts.clone();
        let p = p95(&mut sorted);
        let mean = rtts.iter().sum::<u64>() as f64 / rtts.len() as f64;
        let step = json!({"clients": n, "rtt_us": {"min": sorted[0], "median": sorted[sorted.len() / 2],
                          "mean": mean.round(), "p95": p, "max": sorted[sorted.len() - 1]}});
        steps.push(step.clone());
        if Duration::from_micros(p) > a.limit {
            stopped = "p95 round trip over the limit";
            break;
        }
        held = n;
        held_rtt = step["rtt_us"].clone();
    }
    sh.borrow_mut().stopping = true;
    drop(clients);
    tokio::time::sleep(Duration::from_millis(50)).await;
    let elapsed = start.elapsed();
    let extra = json!({"clients_held": held, "held_rtt_us": held_rtt, "stopped": stopped, "steps": steps,
                       "limit_ms": a.limit.as_millis() as u64, "broadcast_rtt_us": summary(&rtt_all)});
    let stats = std::mem::replace(&mut sh.borrow_mut().stats, Stats::new());
    (stats, elapsed, extra)
}

fn main() -> ExitCode {
    let a = match parse(std::env::args().skip(1)) {
        Ok(Command::Run(a)) => a,
        Ok(Command::Help) => {
            print!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        Ok(Command::Version) => {
            println!("gale-loadgen-ws {}", env!("CARGO_PKG_VERSION"));
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            eprintln!("gale-loadgen-ws: {e}\n\n{USAGE}");
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
    let a = Rc::new(a);
    let local = tokio::task::LocalSet::new();
    let mode = a.mode;
    let (st, elapsed, extra) = local.block_on(&rt, async move {
        match mode {
            Mode::Echo => {
                let (st, el) = run_echo(a.clone()).await;
                let extra =
                    json!({"connections": a.connections, "messages": a.messages, "size": a.size});
                (st, el, extra)
            }
            Mode::Broadcast => run_broadcast(a).await,
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
        "mode": match mode { Mode::Echo => "echo", Mode::Broadcast => "broadcast" },
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
        assert!(
            args("--url ws://127.0.0.1:9/").is_err(),
            "--mode is required"
        );
        assert!(args("--mode echo --url http://127.0.0.1:9/").is_err());
        assert!(args("--mode echo --url ws://127.0.0.1:9/ --connections 0").is_err());
        assert!(args("--mode echo --url ws://127.0.0.1:9/ --bogus 1").is_err());
    }

    #[test]
    fn p95_is_the_nearest_rank() {
        assert_eq!(p95(&mut [5]), 5);
        assert_eq!(p95(&mut (1..=20).rev().collect::<Vec<_>>()), 19);
        assert_eq!(p95(&mut (1..=100).collect::<Vec<_>>()), 95);
    }

    #[test]
    fn an_invalid_echo_says_where_it_differs() {
        let mut s = Stats::new();
        s.invalid(&Message::text("0001"), "0000");
        s.invalid(&Message::text("x"), "0000");
        assert_eq!(s.invalid, 2);
        let first = s.first_invalid.unwrap_or_default();
        assert!(
            first.contains(
                "4-byte text message sent, got text, 4 bytes: 0001 (first difference at byte 3)"
            ),
            "{first}"
        );
        assert_eq!(
            describe(&Message::binary(vec![0u8, b'a'])),
            "binary, 2 bytes: \\x00a"
        );
    }
}
