//! An HTTP/2 connection's own state, apart from the engine: the server's validated settings, the h2 connection
//! object over its in-memory pipe, its streams, and the guard against abusive peers. `Conn::h2` and `Inner::h2`
//! hold these; the engine's side (h2/mod.rs, io.rs) drives them.

use std::collections::VecDeque;
use std::future::Future;
use std::sync::Arc;
use std::task::{Context, Poll, Waker};

use bytes::Bytes;
use h2::server::{Connection, Handshake, SendResponse};
use h2::RecvStream;

use super::pipe::{Flag, Pipe};
use super::stream::Stream;
use gale_h2::{Guard, GuardLimits};

/// HTTP/2 settings of a server (`Server::set_http2`).
#[derive(Clone, Debug)]
pub struct H2Options {
    /// Streams a client may have open at once (SETTINGS_MAX_CONCURRENT_STREAMS). Default 100.
    pub max_concurrent_streams: u32,
    /// Each stream's receive window for request bodies (SETTINGS_INITIAL_WINDOW_SIZE). Default 256 KiB.
    pub initial_window_size: u32,
    /// The connection's receive window, shared by its streams. Default 1 MiB.
    pub connection_window_size: u32,
    /// Largest frame payload the client may send (SETTINGS_MAX_FRAME_SIZE). Default 16 KiB.
    pub max_frame_size: u32,
    /// Serve cleartext HTTP/2 with prior knowledge (h2c) on a listener without TLS. Default true.
    pub cleartext: bool,
    /// Serve HTTP/1.x on the listener too. Default true; false answers an HTTP/1.x request with 505 and closes.
    pub http1: bool,
}

impl Default for H2Options {
    fn default() -> Self {
        H2Options {
            max_concurrent_streams: 100,
            initial_window_size: 256 * 1024,
            connection_window_size: 1024 * 1024,
            max_frame_size: 16 * 1024,
            cleartext: true,
            http1: true,
        }
    }
}

/// The validated settings and the h2 builder made from them (cloned per connection).
pub(crate) struct Settings {
    pub opts: H2Options,
    builder: h2::server::Builder,
}

impl Settings {
    /// Checks the options and builds the h2 builder. `max_header_list` is the request head limit.
    pub fn new(opts: H2Options, max_header_list: usize) -> Result<Settings, String> {
        if opts.max_concurrent_streams == 0 {
            return Err("http2.maxConcurrentStreams must be at least 1".into());
        }
        if !(65_535..=(1 << 31) - 1).contains(&opts.initial_window_size) {
            return Err(format!(
                "http2.initialWindowSize must be between 65535 and 2147483647, not {}",
                opts.initial_window_size
            ));
        }
        if !(16_384..=(1 << 24) - 1).contains(&opts.max_frame_size) {
            return Err(format!(
                "http2.maxFrameSize must be between 16384 and 16777215, not {}",
                opts.max_frame_size
            ));
        }
        if !(65_535..=(1 << 31) - 1).contains(&opts.connection_window_size) {
            return Err(format!(
                "http2.connectionWindowSize must be between 65535 and 2147483647, not {}",
                opts.connection_window_size
            ));
        }
        let mut b = h2::server::Builder::new();
        b.max_concurrent_streams(opts.max_concurrent_streams)
            .initial_window_size(opts.initial_window_size)
            .initial_connection_window_size(opts.connection_window_size)
            .max_frame_size(opts.max_frame_size)
            .max_header_list_size(max_header_list.min(u32::MAX as usize) as u32)
            // Streams the client resets before we accept them, and resets h2 must send for the client's
            // protocol errors: past these the connection ends with ENHANCE_YOUR_CALM (CVE-2023-44487 class).
            .max_pending_accept_reset_streams(50)
            .max_local_error_reset_streams(Some(256))
            .max_concurrent_reset_streams(100)
            // SETTINGS_ENABLE_CONNECT_PROTOCOL: WebSockets ride the connection's streams (RFC 8441, tunnel.rs).
            .enable_connect_protocol();
        Ok(Settings { opts, builder: b })
    }
}

/// What the h2 connection object is doing.
pub(super) enum State {
    /// Waiting for the client's preface and SETTINGS (ours are written already).
    Handshake(Handshake<Pipe, Bytes>),
    Open(Connection<Pipe, Bytes>),
    /// Closed (gracefully, or after an error whose GOAWAY is in the output).
    Done,
}

/// A connection that speaks HTTP/2 (`Conn::h2`; the connection's phase is `Phase::H2`).
pub(crate) struct H2Conn {
    pub(super) pipe: Pipe,
    pub(super) state: State,
    pub(super) streams: Vec<Stream>,
    /// Its WebSocket streams (RFC 8441, tunnel.rs).
    pub(super) tunnels: Vec<super::tunnel::Tunnel>,
    /// JS dispatches found in this round, handed out one per `h2_step` call.
    pub(super) dispatch: VecDeque<(u32, u32)>,
    /// Set when h2 wakes its connection task (a stream handle queued a frame or gave window back): the connection
    /// must be polled. `waker` is what connection polls register.
    pub(super) flag: Arc<Flag>,
    pub(super) waker: Waker,
    /// Set when h2 wakes a stream's send task: window assigned to a stream that waited for it, or a reset. `swaker`
    /// is what `poll_capacity` and `poll_reset` register (they share h2's one send task per stream); `poll_data`
    /// registers none, as what it waits for comes only with input, after which every stream is looked at. Apart
    /// from `flag`, so data delivered to a stream is not a reason to poll the connection again.
    pub(super) sflag: Arc<Flag>,
    pub(super) swaker: Waker,
    pub(super) guard: Guard,
    /// When the connection started (the handshake timeout counts from here), server ms.
    pub(super) started_ms: u64,
    /// The last input or stream end: the idle timeout counts from here while no stream is open.
    pub(super) active_ms: u64,
    /// A GOAWAY was asked for (server closing, or idle), at this time.
    pub(super) goaway_ms: Option<u64>,
    /// The connection is over and its streams were let go (`Inner::h2_over` ran).
    pub(super) over: bool,
    /// Where the next output round starts, so every stream gets its turn at the flush budget.
    pub(super) cursor: usize,
    /// Scratch: indices of streams to remove after a pass.
    pub(super) finished: Vec<usize>,
}

/// What accepting produced. (Only ever a return value, never stored: boxing the large variant would cost an
/// allocation per stream for nothing.)
#[allow(clippy::large_enum_variant)]
pub(super) enum Accepted {
    Stream(http::Request<RecvStream>, SendResponse<Bytes>),
    Pending,
    /// The connection is over (the client closed it, an error ended it, or a graceful close finished).
    Gone,
}

impl H2Conn {
    pub(super) fn new(settings: &Settings, now: u64) -> H2Conn {
        let pipe = Pipe::default();
        let (flag, waker) = Flag::new_waker();
        let (sflag, swaker) = Flag::new_waker();
        let hs = settings.builder.handshake(pipe.clone());
        H2Conn {
            pipe,
            state: State::Handshake(hs),
            streams: Vec::new(),
            tunnels: Vec::new(),
            dispatch: VecDeque::new(),
            flag,
            waker,
            sflag,
            swaker,
            guard: Guard::new(GuardLimits::default(), now),
            started_ms: now,
            active_ms: now,
            goaway_ms: None,
            over: false,
            cursor: 0,
            finished: Vec::new(),
        }
    }

    /// Advances the handshake, then takes the next stream the client opened.
    pub(super) fn accept(&mut self) -> Accepted {
        let mut cx = Context::from_waker(&self.waker);
        loop {
            match &mut self.state {
                State::Handshake(hs) => match std::pin::Pin::new(hs).poll(&mut cx) {
                    Poll::Ready(Ok(c)) => self.state = State::Open(c),
                    Poll::Ready(Err(_)) => {
                        self.state = State::Done;
                        return Accepted::Gone;
                    }
                    Poll::Pending => return Accepted::Pending,
                },
                State::Open(c) => {
                    // This polls the whole connection, as `drive` does: wakes from before it are answered.
                    self.flag.take();
                    return match c.poll_accept(&mut cx) {
                        Poll::Ready(Some(Ok((req, respond)))) => Accepted::Stream(req, respond),
                        Poll::Ready(Some(Err(_)) | None) => {
                            self.state = State::Done;
                            Accepted::Gone
                        }
                        Poll::Pending => Accepted::Pending,
                    };
                }
                State::Done => return Accepted::Pending,
            }
        }
    }

    /// Lets h2 write what it has (frames of sent data, window updates, acks, GOAWAY). False once it is over.
    /// `streams_woken()` then says whether h2 woke a stream meanwhile (capacity assigned to it, say).
    pub(super) fn drive(&mut self) -> bool {
        self.flag.take();
        let mut cx = Context::from_waker(&self.waker);
        match &mut self.state {
            State::Open(c) => match c.poll_closed(&mut cx) {
                Poll::Pending => true,
                Poll::Ready(_) => {
                    self.state = State::Done;
                    false
                }
            },
            State::Handshake(_) => true,
            State::Done => false,
        }
    }

    /// `drive`, when h2 asked for a poll since the last one: h2 wakes its connection task whenever a stream handle
    /// queues a frame or gives window back, and writes everything it has before a poll returns Pending, so with no
    /// wake there is nothing to write. Spares the connection poll (h2's most costly call) after a round that only
    /// delivered data, as a WebSocket stream's input does.
    pub(super) fn drive_if_woken(&mut self) -> bool {
        match self.state {
            State::Open(_) if !self.flag.take() => true,
            _ => self.drive(),
        }
    }

    /// Whether h2 woke a stream's task since the last call (and clears it).
    pub(super) fn streams_woken(&self) -> bool {
        self.sflag.take()
    }

    /// Whether a flush has anything to do after a round: frames h2 wrote, a poll it asked for, window for a stream
    /// that waited, a request stream's output, or the end. WebSocket streams are otherwise left out: their output
    /// comes with their pipe's news, which dirties the connection then.
    pub(super) fn wants_flush(&self) -> bool {
        self.is_done()
            || self.flag.peek()
            || self.sflag.peek()
            || !self.streams.is_empty()
            || self.pipe.output_len() > 0
    }

    pub(super) fn is_done(&self) -> bool {
        matches!(self.state, State::Done)
    }

    pub(super) fn position(&self, idx: usize) -> Option<usize> {
        self.streams.iter().position(|s| s.idx == idx)
    }
}

impl H2Conn {
    /// Drops the streams listed in `finished` (their records are already freed or detached).
    pub(super) fn remove_finished(&mut self, now: u64) {
        if self.finished.is_empty() {
            return;
        }
        self.finished.sort_unstable();
        while let Some(i) = self.finished.pop() {
            self.streams.swap_remove(i);
        }
        if self.streams.is_empty() {
            self.active_ms = now;
        }
    }
}
