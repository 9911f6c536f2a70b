//! The load: `--connections` QUIC connections, each with `--streams` workers that send one request at a time on a new
//! stream and check its status and body, on one current-thread Tokio runtime. A lost connection is opened again.

use std::cell::{Cell, RefCell};
use std::net::{Ipv4Addr, Ipv6Addr, SocketAddr};
use std::rc::Rc;
use std::time::{Duration, Instant};

use bytes::{Buf, Bytes};
use hdrhistogram::Histogram;

use crate::cli::Args;

#[derive(Debug, Default, Clone, Copy)]
pub struct Errors {
    /// The connection or its HTTP/3 setup failed.
    pub connect: u64,
    /// A stream failed while the response was read.
    pub read: u64,
    /// A stream failed while the request was sent.
    pub write: u64,
    pub timeout: u64,
    /// The connection closed under a request.
    pub closed: u64,
}

pub struct Stats {
    pub ok: u64,
    pub invalid: u64,
    pub first_invalid: Option<String>,
    pub status_errors: u64,
    pub errors: Errors,
    /// Microseconds from opening a request's stream to the end of its response body.
    pub latency: Histogram<u64>,
    pub duration: Duration,
    /// How long opening every connection took (None: not all opened within 10 s).
    pub opened_in: Option<Duration>,
    pub open_connect_errors: u64,
    /// WebTransport datagrams not echoed within --timeout (datagrams may be lost; not an error).
    pub lost: u64,
}

enum Outcome {
    Valid,
    /// What was wrong, and whether the status was.
    Invalid(String, bool),
}

enum Failure {
    Write,
    Read,
    /// The connection is gone: the worker stops and the connection is opened again.
    Closed,
}

/// State shared by the workers (one thread, so Rc + Cell).
pub(crate) struct Shared {
    pub args: Args,
    pub stats: RefCell<Stats>,
    /// Workers count what completes from here (the end of the warm-up) on.
    count_from: Cell<Option<Instant>>,
    /// No new request after this instant.
    stop_at: Cell<Option<Instant>>,
    /// Counted requests started, for --requests.
    started: Cell<u64>,
    body: Bytes,
    /// The next target of the rotation.
    next: Cell<usize>,
}

impl Shared {
    pub fn stopping(&self) -> bool {
        self.stop_at.get().is_some_and(|t| Instant::now() >= t)
            || self.args.requests.is_some_and(|n| self.started.get() >= n)
    }

    pub fn counting(&self) -> bool {
        self.count_from.get().is_some_and(|t| Instant::now() >= t)
    }
}

type Sender = h3::client::SendRequest<h3_quinn::OpenStreams, Bytes>;

/// Opens one QUIC connection with HTTP/3 on it; its driver runs as its own task until the connection ends.
async fn connect(endpoint: &quinn::Endpoint, args: &Args) -> Result<Sender, String> {
    let conn = endpoint
        .connect(args.addr, &args.server_name)
        .map_err(|e| e.to_string())?
        .await
        .map_err(|e| e.to_string())?;
    let (mut driver, sender) = h3::client::new(h3_quinn::Connection::new(conn))
        .await
        .map_err(|e| e.to_string())?;
    tokio::task::spawn_local(async move {
        std::future::poll_fn(|cx| driver.poll_close(cx)).await;
    });
    Ok(sender)
}

/// One request on a new stream: sends it, reads the response and compares it with the expectation.
async fn request(sender: &mut Sender, sh: &Shared) -> Result<Outcome, Failure> {
    let args = &sh.args;
    let target = &args.targets[sh.next.get()];
    sh.next.set((sh.next.get() + 1) % args.targets.len());
    let mut req = http::Request::builder()
        .method(args.method.clone())
        .uri(&target.uri);
    for (name, value) in &args.headers {
        req = req.header(name, value);
    }
    if !sh.body.is_empty() || args.body.is_some() {
        req = req.header(http::header::CONTENT_LENGTH, sh.body.len());
    }
    let req = req.body(()).map_err(|_| Failure::Write)?;
    let closed = |e: &h3::error::StreamError| {
        matches!(
            e,
            h3::error::StreamError::ConnectionError { .. } | h3::error::StreamError::RemoteClosing
        )
    };
    let mut stream = sender.send_request(req).await.map_err(|e| {
        if closed(&e) {
            Failure::Closed
        } else {
            Failure::Write
        }
    })?;
    if !sh.body.is_empty() {
        stream.send_data(sh.body.clone()).await.map_err(|e| {
            if closed(&e) {
                Failure::Closed
            } else {
                Failure::Write
            }
        })?;
    }
    stream.finish().await.map_err(|e| {
        if closed(&e) {
            Failure::Closed
        } else {
            Failure::Write
        }
    })?;
    let read_err = |e: h3::error::StreamError| {
        if closed(&e) {
            Failure::Closed
        } else {
            Failure::Read
        }
    };
    let response = stream.recv_response().await.map_err(read_err)?;
    let status = response.status().as_u16();
    // Compared with each allowed body as the body arrives; a copy is kept only for the description of a wrong body.
    let bodies = &target.bodies;
    let (mut at, mut same) = (0usize, vec![true; bodies.len()]);
    let mut seen = Vec::new();
    while let Some(mut chunk) = stream.recv_data().await.map_err(read_err)? {
        while chunk.has_remaining() {
            let part = chunk.chunk();
            let n = part.len();
            for (ok, expect) in same.iter_mut().zip(bodies) {
                *ok = *ok && at + n <= expect.len() && &expect[at..at + n] == part;
            }
            if seen.len() < 120 {
                seen.extend_from_slice(&part[..n.min(120 - seen.len())]);
            }
            at += n;
            chunk.advance(n);
        }
    }
    let matched = same.iter().zip(bodies).any(|(&ok, b)| ok && at == b.len());
    if status == args.expect_status && matched {
        Ok(Outcome::Valid)
    } else {
        let shown: String = seen
            .iter()
            .map(|&b| {
                if (0x20..0x7f).contains(&b) {
                    (b as char).to_string()
                } else {
                    format!("\\x{b:02x}")
                }
            })
            .collect();
        Ok(Outcome::Invalid(
            format!("status {status}, {at}-byte body: {shown}"),
            status != args.expect_status,
        ))
    }
}

/// A worker: requests one after another on its connection until the run stops or the connection is lost.
async fn worker(mut sender: Sender, sh: Rc<Shared>) -> bool {
    while !sh.stopping() {
        let counted = sh.counting();
        if counted {
            sh.started.set(sh.started.get() + 1);
        }
        let t0 = Instant::now();
        let res = tokio::time::timeout(sh.args.timeout, request(&mut sender, &sh)).await;
        let us = t0.elapsed().as_micros() as u64;
        let mut st = sh.stats.borrow_mut();
        let lost = match res {
            Ok(Ok(outcome)) => {
                if counted {
                    match outcome {
                        Outcome::Valid => st.ok += 1,
                        Outcome::Invalid(why, wrong_status) => {
                            st.invalid += 1;
                            st.status_errors += u64::from(wrong_status);
                            st.first_invalid.get_or_insert(why);
                        }
                    }
                    let _ = st.latency.record(us.max(1));
                }
                false
            }
            Ok(Err(f)) => {
                if counted {
                    match f {
                        Failure::Write => st.errors.write += 1,
                        Failure::Read => st.errors.read += 1,
                        Failure::Closed => st.errors.closed += 1,
                    }
                }
                matches!(f, Failure::Closed)
            }
            Err(_) => {
                if counted {
                    st.errors.timeout += 1;
                }
                false
            }
        };
        if lost {
            return true;
        }
    }
    false
}

/// A connection: opened, its workers run; opened again while the run lasts if it is lost.
async fn connection(endpoint: quinn::Endpoint, sh: Rc<Shared>, opened: Rc<Cell<usize>>) {
    if sh.args.mode != crate::cli::Mode::H3 {
        return wt_connection(endpoint, sh, opened).await;
    }
    let mut first = true;
    while !sh.stopping() {
        let sender = match connect(&endpoint, &sh.args).await {
            Ok(s) => s,
            Err(e) => {
                connect_failed(&sh, first, &format!("connect: {e}")).await;
                continue;
            }
        };
        if first {
            opened.set(opened.get() + 1);
            first = false;
        }
        // Workers wait until every connection is up (the run starts then).
        while sh.count_from.get().is_none() {
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
        let workers: Vec<_> = (0..sh.args.streams)
            .map(|_| tokio::task::spawn_local(worker(sender.clone(), sh.clone())))
            .collect();
        drop(sender);
        let mut lost = false;
        for w in workers {
            lost |= w.await.unwrap_or(true);
        }
        if !lost {
            break;
        }
    }
}

/// A connection (or session) could not be opened: counted (a connect error in the run, else one of the opening's,
/// which is also printed), then a pause before the next try.
async fn connect_failed(sh: &Shared, first: bool, why: &str) {
    {
        let mut st = sh.stats.borrow_mut();
        if sh.counting() {
            st.errors.connect += 1;
        } else if first {
            st.open_connect_errors += 1;
            eprintln!("gale-loadgen-h3: {why}");
        }
    }
    tokio::time::sleep(Duration::from_millis(100)).await;
}

/// A WebTransport connection (wt.rs): its session opened, its workers run; opened again while the run lasts if lost.
async fn wt_connection(endpoint: quinn::Endpoint, sh: Rc<Shared>, opened: Rc<Cell<usize>>) {
    let mut first = true;
    while !sh.stopping() {
        let session = match crate::wt::open(&endpoint, &sh.args).await {
            Ok(s) => s,
            Err(e) => {
                connect_failed(&sh, first, &format!("WebTransport session: {e}")).await;
                continue;
            }
        };
        if first {
            opened.set(opened.get() + 1);
            first = false;
        }
        while sh.count_from.get().is_none() {
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
        if crate::wt::connection(session, sh.clone()).await {
            break;
        }
    }
}

pub fn run(args: &Args) -> Result<Stats, String> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    let local = tokio::task::LocalSet::new();
    local.block_on(&rt, run_on_loop(args))
}

async fn run_on_loop(args: &Args) -> Result<Stats, String> {
    let bind: SocketAddr = if args.addr.is_ipv6() {
        (Ipv6Addr::UNSPECIFIED, 0).into()
    } else {
        (Ipv4Addr::LOCALHOST, 0).into()
    };
    let mut endpoint = quinn::Endpoint::client(bind).map_err(|e| format!("UDP socket: {e}"))?;
    endpoint.set_default_client_config(crate::tls::client_config(&args.roots, None)?);
    let sh = Rc::new(Shared {
        body: Bytes::from(args.body.clone().unwrap_or_default()),
        next: Cell::new(0),
        args: args.clone(),
        stats: RefCell::new(Stats {
            ok: 0,
            invalid: 0,
            first_invalid: None,
            status_errors: 0,
            errors: Errors::default(),
            latency: Histogram::new_with_bounds(1, 3_600_000_000, 3)
                .expect("valid histogram bounds"),
            duration: Duration::ZERO,
            opened_in: None,
            open_connect_errors: 0,
            lost: 0,
        }),
        count_from: Cell::new(None),
        stop_at: Cell::new(None),
        started: Cell::new(0),
    });
    let opened = Rc::new(Cell::new(0usize));
    let open_start = Instant::now();
    let conns: Vec<_> = (0..args.connections)
        .map(|_| tokio::task::spawn_local(connection(endpoint.clone(), sh.clone(), opened.clone())))
        .collect();
    // The run starts once every connection is up, or after 10 s with those that are.
    while opened.get() < args.connections && open_start.elapsed() < Duration::from_secs(10) {
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
    let all_open = opened.get() == args.connections;
    let start = Instant::now();
    let counted_from = start + args.warmup;
    sh.count_from.set(Some(counted_from));
    sh.stop_at.set(Some(counted_from + args.duration));
    for c in conns {
        let _ = c.await;
    }
    let end = Instant::now();
    endpoint.close(0u32.into(), b"done");
    // Lets the CONNECTION_CLOSE frames go out before the runtime stops.
    tokio::time::sleep(Duration::from_millis(20)).await;
    let shared = Rc::try_unwrap(sh).map_err(|_| "a worker outlived the run".to_string())?;
    let mut stats = shared.stats.into_inner();
    stats.duration = end.saturating_duration_since(counted_from);
    stats.opened_in = all_open.then(|| start - open_start);
    Ok(stats)
}
