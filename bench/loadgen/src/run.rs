//! The load loop of gale-loadgen: one mio event loop driving every connection, keeping `pipeline` requests in flight
//! on each, validating every response and recording per-response latency and errors.

use std::collections::VecDeque;
use std::io::{self, Read, Write};
use std::time::{Duration, Instant};

use hdrhistogram::Histogram;
use mio::net::TcpStream;
use mio::{Events, Interest, Poll, Token};

use crate::cli::Args;
use crate::parse::{Completed, Expect, Parser, MAX_HEAD};

/// Bytes read per read(2); a connection's unconsumed head prefix is copied in front of it.
const READ_BUF: usize = 64 * 1024;
/// Wait before retrying a connection whose connect failed (so a dead server does not make a busy loop).
const CONNECT_RETRY: Duration = Duration::from_millis(10);
/// How often in-flight requests are checked against the timeout.
const TIMEOUT_SCAN: Duration = Duration::from_millis(50);
/// The counted run starts once every connection is up, or this long after the start, whichever comes first.
pub const OPEN_LIMIT: Duration = Duration::from_secs(10);

#[derive(Debug, Default, Clone, Copy)]
pub struct Errors {
    pub connect: u64,
    pub read: u64,
    pub write: u64,
    /// Requests still unanswered `--timeout` after they were written (each counted once; the answer is still checked).
    pub timeout: u64,
    /// The server closed the connection (or sent something unparsable); the connection is reopened.
    pub closed: u64,
}

#[derive(Debug)]
pub struct Stats {
    pub ok: u64,
    pub invalid: u64,
    pub first_invalid: Option<String>,
    /// Responses with a status ≥ 400 other than the expected one (they are also invalid).
    pub status_errors: u64,
    pub errors: Errors,
    /// Microseconds from the write that completed a request to the end of its response.
    pub latency: Histogram<u64>,
    pub duration: Duration,
    /// Time from the start until every connection had connected once (None: not within `OPEN_LIMIT`).
    pub opened_in: Option<Duration>,
    /// Connect errors before the counted run started (while opening and during the warm-up): not in `errors`.
    pub open_connect_errors: u64,
}

impl Stats {
    fn new() -> Self {
        Self {
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
        }
    }

    /// Forgets the warm-up (keeping its connect errors in `open_connect_errors`).
    fn reset(&mut self) {
        self.open_connect_errors += self.errors.connect;
        self.ok = 0;
        self.invalid = 0;
        self.first_invalid = None;
        self.status_errors = 0;
        self.errors = Errors::default();
        self.latency.reset();
    }

    fn invalid(&mut self, why: impl FnOnce() -> String) {
        self.invalid += 1;
        if self.first_invalid.is_none() {
            self.first_invalid = Some(why());
        }
    }
}

#[derive(Debug, PartialEq, Eq)]
enum Phase {
    /// Not connected: waiting for `since` (a retry) or for a free connecting slot (`--max-connecting`).
    Down,
    Connecting,
    Up,
}

#[derive(Debug)]
struct Conn {
    stream: Option<TcpStream>,
    phase: Phase,
    /// Whether it has been up at least once.
    was_up: bool,
    /// When connecting started, or when to retry (`Down`).
    since: Instant,
    /// Write time of each request sent and not yet answered, oldest first.
    inflight: VecDeque<Instant>,
    /// How many of the oldest `inflight` entries were already counted as timeouts.
    timed_out: usize,
    /// Requests to send that are not completely written yet, and the bytes of the first one already written.
    unsent: usize,
    partial: usize,
    /// Start of an incomplete response head, kept until more bytes arrive.
    carry: Vec<u8>,
    parser: Parser,
}

struct Loop<'a> {
    args: &'a Args,
    expect: Expect,
    poll: Poll,
    conns: Vec<Conn>,
    /// `pipeline` copies of the request: every write is a slice of it.
    batch: Vec<u8>,
    rbuf: Vec<u8>,
    stats: Stats,
    /// Connections in the `Connecting` phase (at most `args.max_connecting`).
    connecting: usize,
    /// Connections not opened yet are `next_open..`; they are opened in order as connecting slots free up.
    next_open: usize,
    /// Connections that have been up at least once.
    up_once: usize,
    /// False while the connections are being opened: connections that are up wait to send their first requests.
    loading: bool,
}

/// Why a connection is dropped and reopened.
#[derive(Debug)]
enum Cut {
    Read,
    Write,
    Closed,
}

/// Runs the warm-up and the counted load; returns the counted statistics.
pub fn run(args: &Args) -> io::Result<Stats> {
    let mut lp = Loop {
        args,
        expect: Expect {
            status: args.expect_status,
            body: args.expect_body.clone(),
        },
        poll: Poll::new()?,
        conns: Vec::with_capacity(args.connections),
        batch: args.request.repeat(args.pipeline),
        rbuf: vec![0; READ_BUF],
        stats: Stats::new(),
        connecting: 0,
        next_open: 0,
        up_once: 0,
        loading: false,
    };
    let start = Instant::now();
    for _ in 0..args.connections {
        lp.conns.push(Conn {
            stream: None,
            phase: Phase::Down,
            was_up: false,
            since: start,
            inflight: VecDeque::with_capacity(args.pipeline),
            timed_out: 0,
            unsent: 0,
            partial: 0,
            carry: Vec::new(),
            parser: Parser::new(),
        });
    }
    // First the connections are opened, at most `max_connecting` at a time (a burst of thousands of SYNs overflows
    // the server's listen backlog), without sending anything. Once every one is up (or after OPEN_LIMIT), the load
    // starts on all of them: the warm-up, then the counted run.
    let open_by = start + OPEN_LIMIT;
    let mut load_since: Option<Instant> = None;
    let mut counting_since: Option<Instant> = None;
    let mut next_scan = start + TIMEOUT_SCAN;
    let mut events = Events::with_capacity(1024);
    loop {
        let now = Instant::now();
        lp.open_more(now);
        if load_since.is_none() && (lp.up_once == lp.conns.len() || now >= open_by) {
            load_since = Some(now);
            lp.start_load(now);
        }
        if let (Some(l), None) = (load_since, counting_since) {
            if now >= l + args.warmup {
                lp.stats.reset();
                counting_since = Some(now);
            }
        }
        if let Some(c) = counting_since {
            if now >= c + args.duration {
                lp.stats.duration = now - c;
                break;
            }
        }
        if now >= next_scan {
            lp.scan(now);
            next_scan = now + TIMEOUT_SCAN;
        }
        let wake = next_scan.min(match (load_since, counting_since) {
            (_, Some(c)) => c + args.duration,
            (Some(l), None) => l + args.warmup,
            (None, _) => open_by,
        });
        match lp
            .poll
            .poll(&mut events, Some(wake.saturating_duration_since(now)))
        {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        }
        for ev in events.iter() {
            lp.event(
                ev.token().0,
                ev.is_writable(),
                ev.is_readable() || ev.is_read_closed() || ev.is_error(),
            );
        }
        if lp.stats.opened_in.is_none() && lp.up_once == lp.conns.len() {
            lp.stats.opened_in = Some(Instant::now() - start);
        }
    }
    for c in &mut lp.conns {
        if let Some(mut s) = c.stream.take() {
            let _ = lp.poll.registry().deregister(&mut s);
        }
    }
    Ok(lp.stats)
}

impl Loop<'_> {
    /// The load starts: every connection that is up sends its first requests (later ones send theirs when they connect).
    fn start_load(&mut self, now: Instant) {
        self.loading = true;
        for i in 0..self.conns.len() {
            if self.conns[i].phase == Phase::Up {
                self.flush(i, now);
            }
        }
    }

    /// Opens connections never opened yet while fewer than `max_connecting` are connecting.
    fn open_more(&mut self, now: Instant) {
        while self.connecting < self.args.max_connecting && self.next_open < self.conns.len() {
            let i = self.next_open;
            self.next_open += 1;
            self.connect(i, now);
        }
    }

    /// Leaves the `Connecting` phase (if in it) for `phase`.
    fn set_phase(&mut self, i: usize, phase: Phase) {
        let c = &mut self.conns[i];
        if c.phase == Phase::Connecting {
            self.connecting -= 1;
        }
        if phase == Phase::Connecting {
            self.connecting += 1;
        }
        if phase == Phase::Up && !c.was_up {
            c.was_up = true;
            self.up_once += 1;
        }
        c.phase = phase;
    }

    /// Opens connection `i` (its old socket, if any, is already gone); with every connecting slot taken, it waits
    /// (`Down`) for the next scan.
    fn connect(&mut self, i: usize, now: Instant) {
        if self.connecting >= self.args.max_connecting {
            self.set_phase(i, Phase::Down);
            self.conns[i].since = now;
            return;
        }
        let c = &mut self.conns[i];
        c.inflight.clear();
        c.timed_out = 0;
        c.unsent = 0;
        c.partial = 0;
        c.carry.clear();
        c.parser.reset();
        c.since = now;
        let mut stream = match TcpStream::connect(self.args.addr) {
            Ok(s) => s,
            Err(_) => return self.connect_failed(i, now),
        };
        let interest = Interest::READABLE | Interest::WRITABLE;
        if self
            .poll
            .registry()
            .register(&mut stream, Token(i), interest)
            .is_err()
        {
            return self.connect_failed(i, now);
        }
        self.conns[i].stream = Some(stream);
        self.set_phase(i, Phase::Connecting);
    }

    fn connect_failed(&mut self, i: usize, now: Instant) {
        self.stats.errors.connect += 1;
        if let Some(mut s) = self.conns[i].stream.take() {
            let _ = self.poll.registry().deregister(&mut s);
        }
        self.set_phase(i, Phase::Down);
        self.conns[i].since = now + CONNECT_RETRY;
    }

    /// Closes connection `i` after an error and opens a new one; its unanswered requests are dropped.
    fn drop_and_reconnect(&mut self, i: usize, why: Cut, now: Instant) {
        let e = &mut self.stats.errors;
        match why {
            Cut::Read => e.read += 1,
            Cut::Write => e.write += 1,
            Cut::Closed => e.closed += 1,
        }
        if let Some(mut s) = self.conns[i].stream.take() {
            let _ = self.poll.registry().deregister(&mut s);
        }
        self.set_phase(i, Phase::Down);
        self.connect(i, now);
    }

    /// Counts requests unanswered for longer than the timeout, retries failed connects, times out slow connects.
    fn scan(&mut self, now: Instant) {
        let timeout = self.args.timeout;
        for i in 0..self.conns.len() {
            let c = &mut self.conns[i];
            match c.phase {
                Phase::Down
                    if i < self.next_open
                        && now >= c.since
                        && self.connecting < self.args.max_connecting =>
                {
                    self.connect(i, now)
                }
                Phase::Connecting if now.saturating_duration_since(c.since) > timeout => {
                    self.connect_failed(i, now)
                }
                Phase::Up => {
                    while let Some(&t) = c.inflight.get(c.timed_out) {
                        if now.saturating_duration_since(t) <= timeout {
                            break;
                        }
                        c.timed_out += 1;
                        self.stats.errors.timeout += 1;
                    }
                }
                _ => {}
            }
        }
    }

    fn event(&mut self, i: usize, writable: bool, readable: bool) {
        let Some(c) = self.conns.get_mut(i) else {
            return;
        };
        let Some(stream) = c.stream.as_mut() else {
            return;
        };
        if c.phase == Phase::Connecting {
            let connected = match stream.take_error() {
                Ok(None) => match stream.peer_addr() {
                    Ok(_) => true,
                    Err(e) if e.kind() == io::ErrorKind::NotConnected => return,
                    Err(_) => false,
                },
                _ => false,
            };
            if !connected {
                return self.connect_failed(i, Instant::now());
            }
            let _ = stream.set_nodelay(true);
            c.unsent = self.args.pipeline;
            self.set_phase(i, Phase::Up);
            if self.loading {
                self.flush(i, Instant::now());
            }
            return;
        }
        if readable {
            self.read(i);
        } else if writable && c.unsent > 0 && self.loading {
            self.flush(i, Instant::now());
        }
    }

    /// Reads and parses everything available, then refills the pipeline with one write.
    fn read(&mut self, i: usize) {
        let mut answered = 0;
        loop {
            let c = &mut self.conns[i];
            let Some(stream) = c.stream.as_mut() else {
                return;
            };
            let kept = c.carry.len();
            self.rbuf[..kept].copy_from_slice(&c.carry);
            c.carry.clear();
            let n = match stream.read(&mut self.rbuf[kept..]) {
                Ok(0) => {
                    let now = Instant::now();
                    if let Some(done) = c.parser.eof(&self.expect) {
                        if let Some(t) = c.inflight.pop_front() {
                            record(
                                &mut self.stats,
                                &self.expect,
                                done,
                                now.saturating_duration_since(t),
                            );
                        }
                    }
                    return self.drop_and_reconnect(i, Cut::Closed, now);
                }
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(_) => return self.drop_and_reconnect(i, Cut::Read, Instant::now()),
            };
            let now = Instant::now();
            let data = &self.rbuf[..kept + n];
            let stats = &mut self.stats;
            let expect = &self.expect;
            let mut unsolicited = false;
            c.parser.want_sample = stats.first_invalid.is_none();
            let inflight = &mut c.inflight;
            let timed_out = &mut c.timed_out;
            let parsed = c
                .parser
                .feed(data, expect, |done| match inflight.pop_front() {
                    Some(t) => {
                        *timed_out = timed_out.saturating_sub(1);
                        answered += 1;
                        record(stats, expect, done, now.saturating_duration_since(t));
                    }
                    None => unsolicited = true,
                });
            match parsed {
                Ok(used) if !unsolicited => c.carry.extend_from_slice(&data[used..]),
                Ok(_) => {
                    self.stats
                        .invalid(|| "a response arrived with no request in flight".to_string());
                    return self.drop_and_reconnect(i, Cut::Closed, now);
                }
                Err(e) => {
                    self.stats
                        .invalid(|| format!("unparsable response: {}", e.0));
                    return self.drop_and_reconnect(i, Cut::Closed, now);
                }
            }
            debug_assert!(c.carry.len() <= MAX_HEAD);
            // A short read drained the socket. Edge-triggered epoll reports any later arrival as a new event, so
            // there is no need for one more read(2) that would only return EAGAIN.
            if kept + n < self.rbuf.len() {
                break;
            }
        }
        let c = &mut self.conns[i];
        c.unsent += answered;
        if c.unsent > 0 {
            self.flush(i, Instant::now());
        }
    }

    /// Writes the requests still to send, as far as the socket takes them.
    fn flush(&mut self, i: usize, now: Instant) {
        let len = self.args.request.len();
        let c = &mut self.conns[i];
        let Some(stream) = c.stream.as_mut() else {
            return;
        };
        while c.unsent > 0 {
            match stream.write(&self.batch[c.partial..c.unsent * len]) {
                Ok(0) => return self.drop_and_reconnect(i, Cut::Write, now),
                Ok(n) => {
                    let sent = c.partial + n;
                    let whole = sent / len;
                    c.partial = sent % len;
                    c.unsent -= whole;
                    c.inflight.extend(std::iter::repeat_n(now, whole));
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(_) => return self.drop_and_reconnect(i, Cut::Write, now),
            }
        }
    }
}

fn record(stats: &mut Stats, expect: &Expect, done: Completed, latency: Duration) {
    stats
        .latency
        .saturating_record(latency.as_micros().max(1) as u64);
    if done.valid {
        stats.ok += 1;
        return;
    }
    if done.status >= 400 && done.status != expect.status {
        stats.status_errors += 1;
    }
    let sample = done.sample;
    stats.invalid(|| sample.unwrap_or_default());
}
