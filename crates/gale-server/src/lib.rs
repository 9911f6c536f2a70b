//! gale-server: all of Gale's I/O. Non-blocking sockets in a mio poller the Node loop watches (poller.rs: a
//! `uv_poll` on its fd; on Windows a polling thread and a `uv_async`), so requests are parsed and handed to JS
//! synchronously, on the JS thread (and in-process connections, `app.request`, whose bytes never leave memory: mem.rs).
//! Depends on the sans-IO crates (gale-http, gale-router) and never names napi: JS is behind `Handler`.

#[cfg(unix)]
mod adopt;
mod batch;
pub mod body_pool;
mod compress;
mod conn;
mod engine;
mod h2;
#[cfg(unix)]
mod h3;
mod http1;
mod lifecycle;
mod listen;
mod mem;
mod output;
mod poller;
mod pulled;
mod reader;
mod reply;
mod request;
mod respond;
mod routes;
mod scratch;
mod serve;
mod statics;
mod stream_head;
mod sys;
pub mod tls;
mod transport;
mod trim;
#[cfg(target_os = "linux")]
mod uring;
mod uv;
mod view;
mod wire;
mod ws;
#[cfg(not(unix))]
mod wt_off;

use std::cell::{Cell, RefCell};
#[cfg(unix)]
use std::rc::Rc;

pub use compress::CompressOptions;
pub use gale_http::files::Dotfiles;
pub use gale_http::Limits;
pub use gale_router::{MethodSel, RouterOptions};
pub use gale_ws::DeflateConfig;
pub use gale_wt::session::Limits as WtLimits;
pub use h2::state::H2Options;
pub use mem::{MemOutput, MemState, MemWrite};
pub use statics::{StaticOptions, Validators};
pub use uv::UvLoop;
pub use view::ReqView;
pub use wire::Reply;
pub use ws::KeptHead;

pub use ws::{Audience, Compression, SendResult, WsOptions};

/// The I/O backend a server listens with (`listen_io`). Linux has both; elsewhere there is only the readiness
/// poller (epoll's counterpart: kqueue, or IOCP through mio).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum IoBackend {
    /// The engine's choice: the readiness poller until the io_uring backend is the measured default.
    #[default]
    Auto,
    /// io_uring (Linux 6.0+): multishot accept and receive, batched sends, one `io_uring_enter` per turn.
    Uring,
    /// The readiness poller (epoll on Linux).
    Epoll,
}

/// Server settings; defaults mirror Node's http server where Node has one.
#[derive(Clone, Debug)]
pub struct Config {
    /// Request head limits (431/414).
    pub limits: Limits,
    /// Largest request body in bytes (413). Default 1 MiB.
    pub body_limit: u64,
    /// Time allowed for a request head to arrive, from its first byte (408). Default 60 s.
    pub headers_timeout_ms: u64,
    /// Time allowed for a request body to arrive, from the end of its head (408). Default 300 s.
    pub request_timeout_ms: u64,
    /// An idle keep-alive connection is closed after this. Default 65 s.
    pub keep_alive_timeout_ms: u64,
    /// Responses that keep their connection open say so as node:http's do (`Connection: keep-alive`, `Keep-Alive:
    /// timeout=<keep_alive_timeout in s>`). Default true.
    pub keep_alive_header: bool,
    /// Route parameters reach JS percent-decoded (a malformed escape is the engine's 400). False: as sent, for a
    /// layer that decodes them itself (the Express layer, whose error handlers see the URIError). Default true.
    pub decode_params: bool,
    /// Router matching options (case sensitivity, strict trailing slash).
    pub router: RouterOptions,
    /// Most requests in flight on one connection before reading from it pauses.
    pub max_pipeline: usize,
    /// Pending output on a connection above which `write` reports backpressure and reading pauses.
    pub high_water_mark: usize,
    /// Listen backlog.
    pub backlog: i32,
    /// Open connections above which new ones are answered 503 and closed. Default: the
    /// open-file limit less a reserve for files and the process's own descriptors.
    pub max_connections: usize,
    /// A connection whose pending output the client has not taken any of for this long is
    /// closed (a client that stopped reading). Default 60 s; 0 = never.
    pub send_timeout_ms: u64,
    /// A streamed response whose unsent output is already above this when more is written is
    /// aborted and its connection closed: the handler ignores backpressure and the client is
    /// not reading. Default 16 MiB.
    pub max_write_buffer: usize,
    /// Every connection starts with a PROXY protocol header (v1 or v2) from a load balancer,
    /// whose source address becomes the peer address. Off by default: a header is then refused.
    pub proxy_protocol: bool,
    /// Listen with SO_REUSEPORT, so several processes can accept on one port (the kernel
    /// spreads connections among them).
    pub reuse_port: bool,
    /// Compress whole JS bodies for clients that accept it (off by default).
    pub compression: Option<CompressOptions>,
    /// How the engine's own error answers (404, 405, 413, 431, …) are written.
    pub error_format: ErrorFormat,
}

/// How the engine writes the error answers it makes itself.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ErrorFormat {
    /// An RFC 9457 problem document to a client whose `Accept` prefers JSON ([`gale_http::prefers_json`]),
    /// plain text to any other (the default).
    #[default]
    Negotiate,
    /// Plain text always.
    Text,
    /// A problem document always.
    Problem,
}

/// The default `max_connections`: the soft open-file limit less a reserve of 128 descriptors.
pub fn default_max_connections() -> usize {
    let soft = sys::open_file_limit().unwrap_or(1 << 20);
    soft.saturating_sub(128).max(64)
}

impl Default for Config {
    fn default() -> Self {
        Config {
            error_format: ErrorFormat::Negotiate,
            limits: Limits::default(),
            body_limit: 1024 * 1024,
            headers_timeout_ms: 60_000,
            request_timeout_ms: 300_000,
            keep_alive_timeout_ms: 65_000,
            keep_alive_header: true,
            decode_params: true,
            router: RouterOptions {
                case_sensitive: false,
                strict: false,
            },
            max_pipeline: 64,
            high_water_mark: 64 * 1024,
            backlog: 4096,
            max_connections: default_max_connections(),
            send_timeout_ms: 60_000,
            max_write_buffer: 16 * 1024 * 1024,
            proxy_protocol: false,
            reuse_port: false,
            compression: None,
        }
    }
}

/// What the engine holds right now, and counters since it started (`Server::stats`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Open connections, WebSockets included.
    pub connections: usize,
    /// Of those, upgraded to WebSocket.
    pub websockets: usize,
    /// Requests parsed and not yet answered and sent (or released by JS after an abort).
    pub requests_in_flight: usize,
    /// Request records allocated (in use or pooled for reuse).
    pub request_records: usize,
    /// Requests parsed since the server was created.
    pub requests_total: u64,
    /// Output accepted but not yet taken by the kernel, over all connections.
    pub pending_output: usize,
    /// Accepting is paused for want of file descriptors (EMFILE).
    pub accept_paused: bool,
}

/// Something JS must hear about; delivered only from libuv callbacks, never inside a JS call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Event {
    /// The client went away before the response to this request ended.
    Abort(u32),
    /// Output for this streaming response fell below the high-water mark.
    Drain(u32),
    /// More of this request's body arrived, or it ended or failed (see `Server::take_body`).
    Body(u32),
    /// The server has stopped: listener closed and every connection gone.
    Closed,
    /// A WebSocket closed: the code and reason of the close frame that ended it (the peer's, or
    /// ours for protocol errors, limits and shutdown), 1006 with no reason when the TCP connection
    /// simply went away.
    WsClose {
        sid: u32,
        code: u16,
        reason: Box<[u8]>,
    },
    /// A WebSocket's buffered output fell below the high-water mark after a send reported `Buffered`.
    WsDrain(u32),
    /// A topic got its first subscriber (`active`) or lost its last one; only when
    /// `Server::watch_topics` is on (cross-process pub/sub listens elsewhere only while active).
    Topic { name: Box<[u8]>, active: bool },
    /// In-process connection `key` has response bytes to read, room for more request bytes, or its server side
    /// closed (`Server::mem_read` tells which).
    Pipe(u32),
    /// Something happened in a WebTransport session (HTTP/3). Boxed: the queue's every other event stays small.
    Wt(Box<WtEvent>),
}

/// What a WebTransport write, datagram or open did, as JS reads it (the WebSocket statuses).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WtStatus {
    Sent = 0,
    Buffered = 1,
    Dropped = 2,
    Closed = 3,
}

/// What a WebTransport session tells JS. Sessions and streams are named by the ids `Server::wt_accept` and
/// `Server::wt_open` gave, or that came with `Stream`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WtEvent {
    /// The client opened a stream in `session` (`bidi`: both ways; else the client sends only).
    Stream {
        session: u32,
        stream: u32,
        bidi: bool,
    },
    /// Bytes from the client on `stream`; `fin`: its sending ended after them.
    Data {
        stream: u32,
        data: bytes::Bytes,
        fin: bool,
    },
    /// The client reset its sending on `stream` (`stopped` false), or asked the server to stop sending
    /// (`stopped` true), with a WebTransport error code (None: an HTTP/3 code, not the app's).
    Reset {
        stream: u32,
        code: Option<u32>,
        stopped: bool,
    },
    /// `stream`'s buffered output fell below the high-water mark after a write reported `Buffered`.
    Drain(u32),
    /// A datagram for `session`.
    Datagram { session: u32, data: bytes::Bytes },
    /// The client asked to wind `session` down (DRAIN_WEBTRANSPORT_SESSION), or the server is closing.
    Draining(u32),
    /// `session` ended: the code and reason of whichever side closed it (0 and empty when its CONNECT stream ended
    /// without a CLOSE capsule or the connection went away).
    Close {
        session: u32,
        code: u32,
        reason: Box<[u8]>,
    },
}

/// The JS side, as the engine sees it. Implemented by gale-node.
pub trait Handler {
    /// Opens whatever scope JS calls need (handle scope, callback scope) for one loop wakeup.
    fn begin(&self);
    /// Closes it; promise jobs and `process.nextTick` callbacks run here.
    fn end(&self);
    /// Runs the promise jobs and `process.nextTick` callbacks queued so far, inside the batch (as closing and
    /// reopening the scope would); a no-op when the scope is nested. The engine calls it every
    /// [`CHECKPOINT_EVERY`] JS calls so that what awaiting handlers allocate dies young.
    fn checkpoint(&self) {}
    /// A request routed to JS route `route`; `id` names it in every later call.
    fn request(&self, server: &Server, id: u32, route: u32);
    /// Delivers an event.
    fn event(&self, server: &Server, ev: Event);
    /// A whole WebSocket message arrived on socket `sid` (text is valid UTF-8).
    fn ws_message(&self, server: &Server, sid: u32, data: &[u8], binary: bool);
}

/// JS calls (requests and WebSocket messages) between two microtask checkpoints inside one batch. Without them a
/// batch of many ready connections (100 × 16 pipelined requests) keeps every awaiting handler's promises, closures
/// and request objects alive until the batch ends, and each young-generation GC in between copies them all.
pub const CHECKPOINT_EVERY: u32 = 32;

/// HTTP/3 settings of a server (`Server::set_http3`).
#[derive(Clone, Debug)]
pub struct H3Options {
    /// Request streams a client may have open at once. Default 100.
    pub max_concurrent_streams: u32,
    /// A connection with nothing sent or received for this long is closed (QUIC's idle timeout). Default 30 s.
    pub idle_timeout_ms: u64,
    /// QUIC connections one IP address may have open (handshakes included); more are refused. Default 64.
    pub max_connections_per_address: u32,
    /// Handshakes in progress above which a new client must first prove its address with a Retry (one round trip
    /// more, no state kept until it does: a spoofed-source flood costs the server nothing). 0: always. Default 64.
    pub retry_above: u32,
    /// New QUIC handshakes the server starts per second (a token bucket holding a second's worth): past it a
    /// client that has not proved its address gets a Retry, one that has is refused (CONNECTION_REFUSED), so a
    /// burst of connection attempts cannot take the loop's time in TLS handshakes. Default 1000.
    pub max_handshakes_per_second: u32,
    /// UDP segmentation offload where the kernel has it: GSO (one sendmsg carries many QUIC packets) and GRO (one
    /// recvmsg takes many). Off only for networks whose drivers mishandle it. Default true.
    pub segmentation_offload: bool,
    /// WebTransport (None: off): the HTTP/3 settings that offer it, and each connection's limits on sessions, streams
    /// per session and streams held for a session not accepted yet.
    pub webtransport: Option<gale_wt::session::Limits>,
}

impl Default for H3Options {
    fn default() -> Self {
        H3Options {
            max_concurrent_streams: 100,
            idle_timeout_ms: 30_000,
            max_connections_per_address: 64,
            retry_above: 64,
            max_handshakes_per_second: 1000,
            segmentation_offload: true,
            webtransport: None,
        }
    }
}

impl H3Options {
    /// Checks the options; Err says which one is out of range.
    pub fn check(&self) -> Result<(), String> {
        if self.max_concurrent_streams == 0 {
            return Err("http3.maxConcurrentStreams must be at least 1".into());
        }
        if !(1..=600_000).contains(&self.idle_timeout_ms) {
            return Err(format!(
                "http3.idleTimeout must be between 1 and 600000 ms, not {}",
                self.idle_timeout_ms
            ));
        }
        if self.max_connections_per_address == 0 {
            return Err("http3.maxConnectionsPerAddress must be at least 1".into());
        }
        if self.max_handshakes_per_second == 0 {
            return Err("http3.maxHandshakesPerSecond must be at least 1".into());
        }
        Ok(())
    }
}

/// The uv handles of a server that listens or has in-process connections (then without `poll`).
#[derive(Clone, Copy)]
pub(crate) struct Handles {
    poll: Option<uv::UvHandle>,
    tick: uv::UvHandle,
    kick: uv::UvHandle,
}

/// One HTTP server on the Node loop. Shared as `Rc<Server>`; every method borrows state briefly so JS,
/// called from inside the engine, can call back in.
pub struct Server {
    inner: RefCell<engine::Inner>,
    events_buf: RefCell<poller::Events>,
    handler: Box<dyn Handler>,
    uv_loop: UvLoop,
    kick_pending: Cell<bool>,
    handles: Cell<Option<Handles>>,
    /// JS calls since the last microtask checkpoint (see [`CHECKPOINT_EVERY`]).
    js_calls: Cell<u32>,
    /// The HTTP/3 endpoint, while listening with `http3`.
    #[cfg(unix)]
    quic: RefCell<Option<Rc<crate::h3::Quic>>>,
}
