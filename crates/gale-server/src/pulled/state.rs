//! The state of a stream's request in the engine (`Conn::pulled`) and what the task and the engine tell each other.

use std::task::Waker;

use bytes::Bytes;

/// The request of a task's stream (`Conn::pulled`).
pub(crate) struct Pulled {
    /// The request record; None once its response was pulled whole or the engine reset the stream.
    pub(super) idx: Option<usize>,
    /// The task's: woken when the response has news.
    pub(super) waker: Waker,
    /// The JS dispatch the parse loop has yet to hand out (`Step::Dispatch`).
    pub(super) dispatch: Option<(u32, u32)>,
    /// More of the request body may come and is wanted.
    pub(super) body_open: bool,
    /// Body bytes received so far (`bodyLimit`).
    pub(super) received: u64,
    /// When the request came, server ms (`requestTimeout` for its body).
    pub(super) since: u64,
    /// The response head went to the task.
    pub(super) head_sent: bool,
    /// The engine gave up on the response (`destroy`, `maxWriteBuffer`): the task resets the stream.
    pub(super) reset: bool,
    /// A WebTransport CONNECT: its session's id (h3/wt.rs), which JS may accept instead of answering.
    pub(super) wt: Option<u32>,
    /// JS accepted the session (`Inner::pulled_wt_accept`): the task sends the 200 and serves the session.
    pub(super) wt_accepted: bool,
}

/// Why no request was made.
#[derive(Debug)]
pub(crate) enum Refused {
    /// The server is closing.
    Closing,
    /// At `maxConnections` (each such request holds a connection), or every request record is taken: the head of
    /// the 503 a socket would get (its body is `engine::BUSY_BODY`).
    Busy(Box<http::Response<()>>),
}

/// What the task does with the rest of the request body.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Intake {
    /// Read on.
    More,
    /// JS holds `BODY_BUFFER` unread: wait until `Server::pulled_holding` says it took some.
    Hold,
    /// No more is wanted (the body ended, was refused, or the answer did not need it).
    Stop,
}

/// One pull of a response (`Server::pulled_take`).
#[derive(Default)]
pub(crate) struct Pull {
    /// The response head, in the pull that finds it (once).
    pub head: Option<http::Response<()>>,
    /// Body bytes since the last pull.
    pub body: Bytes,
    /// The response is complete with this pull.
    pub end: bool,
    /// Reset the stream: the engine gave up on the response, its body ended short of its Content-Length, a file
    /// could not be read, or the request is gone.
    pub reset: bool,
    /// JS accepted the WebTransport session this CONNECT asked for: no response comes from the record.
    pub accept: bool,
}

impl Pull {
    pub(super) fn reset() -> Pull {
        Pull {
            reset: true,
            ..Pull::default()
        }
    }

    /// Nothing yet: wait for the engine to wake the task.
    pub fn is_empty(&self) -> bool {
        self.head.is_none() && self.body.is_empty() && !self.end && !self.reset && !self.accept
    }
}
