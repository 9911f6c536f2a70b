//! In-process connections (`app.request`): a connection whose transport is a pair of byte queues in memory
//! instead of a socket. JS writes an HTTP/1.1 request into one; the engine reads, parses, routes, answers and
//! frames it with the same parse loop and writer as a socket's; JS reads the response back through gale-http's
//! `ResponseReader`. No file descriptor, no thread: everything runs on the Node loop, driven by the kick timer.

use std::collections::VecDeque;
use std::io::{self, ErrorKind};
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::rc::Rc;

use gale_http::{ParsedResponse, ResponseReader};

use crate::conn::{Conn, Io};
use crate::engine::Inner;
use crate::reader::ReadResult;
use crate::request::{BodySource, FileBody};
use crate::{Event, Server};

/// The peer and local address of an in-process connection: loopback, port 0 (no socket has a port).
pub(crate) const MEM_ADDR: SocketAddr = SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), 0);
/// Response bytes the engine may leave for JS before its writes block, as a socket's send buffer would.
const OUT_CAP: usize = 256 * 1024;
/// Request bytes JS may queue before it is asked to wait (`MemWrite::Full`).
const IN_HIGH_WATER: usize = 64 * 1024;
/// Largest piece of a file read into the pipe at once.
const FILE_PIECE: usize = 64 * 1024;

/// The JS end of an in-process connection, kept in `Inner::pipes` from `mem_open` until JS's `mem_close`, so what
/// the engine wrote stays readable after the server side closed.
pub(crate) struct MemPipe {
    /// The server side's connection; None once it closed.
    conn: Option<usize>,
    /// Request bytes from JS; the engine has read up to `in_pos`.
    input: Vec<u8>,
    in_pos: usize,
    /// Response bytes the engine wrote that JS has not read yet.
    out: Vec<u8>,
    /// The engine shut its write side (or closed): nothing more will be written.
    out_eof: bool,
    /// JS was told to wait (input over the mark): wake it when the engine has read below it.
    want_input: bool,
    /// An `Event::Pipe` is queued and JS has not read since (one wake-up per read).
    notified: bool,
    reader: ResponseReader,
    /// Decoded body bytes handed to JS by one read.
    body: Vec<u8>,
    /// The request was made for an `https:` URL: `req.secure` reads true, as behind TLS.
    pub secure: bool,
    /// An HTTP/3 request's pipe (h3/bridge.rs): the UDP socket's local address (`req.socket.localAddress`).
    pub h3_local: Option<SocketAddr>,
    /// The task that owns the pipe in Rust (HTTP/3): woken instead of an `Event::Pipe` to JS.
    waker: Option<std::task::Waker>,
}

/// What `Server::mem_write` did with JS's bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MemWrite {
    /// Queued; write more.
    Ok,
    /// Queued, but the engine has not read what came before: wait for the next `Event::Pipe`.
    Full,
    /// The server side is gone; the bytes were dropped.
    Gone,
}

/// How far the response of an in-process connection is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MemState {
    /// More is to come (an `Event::Pipe` says when).
    More,
    /// The whole response has been read.
    Done,
    /// The connection ended before the response did, or its bytes were not a response.
    Failed,
}

/// One read of an in-process connection's response (`Server::mem_read`).
pub struct MemOutput<'a> {
    /// The final response head, in the read that completes it (exactly once).
    pub head: Option<&'a ParsedResponse<'a>>,
    /// Body bytes, unframed, since the last read.
    pub body: &'a [u8],
    pub state: MemState,
}

impl MemPipe {
    fn new(secure: bool, head_request: bool) -> MemPipe {
        MemPipe {
            conn: None,
            input: Vec::new(),
            in_pos: 0,
            out: Vec::new(),
            out_eof: false,
            want_input: false,
            notified: false,
            reader: ResponseReader::new(head_request),
            body: Vec::new(),
            secure,
            h3_local: None,
            waker: None,
        }
    }

    /// Tells JS to look at this pipe (once until it reads), or wakes the Rust task that owns it.
    fn wake(&mut self, key: usize, events: &mut VecDeque<Event>) {
        if let Some(w) = &self.waker {
            w.wake_by_ref();
        } else if !self.notified {
            self.notified = true;
            events.push_back(Event::Pipe(key as u32));
        }
    }

    /// The engine's read: what JS wrote, into the connection's read buffer (as `recv` would).
    pub(crate) fn read_into(
        &mut self,
        key: usize,
        buf: &mut Vec<u8>,
        events: &mut VecDeque<Event>,
    ) -> ReadResult {
        let avail = self.input.len() - self.in_pos;
        if avail == 0 {
            // JS never half-closes: it ends the whole connection with mem_close.
            return ReadResult::WouldBlock;
        }
        if buf.capacity() - buf.len() < 4096 {
            buf.reserve(16 * 1024);
        }
        let spare = buf.capacity() - buf.len();
        let n = avail.min(spare);
        buf.extend_from_slice(&self.input[self.in_pos..self.in_pos + n]);
        self.in_pos += n;
        if self.in_pos == self.input.len() {
            self.input.clear();
            self.in_pos = 0;
        }
        if self.want_input && self.input.len() - self.in_pos <= IN_HIGH_WATER {
            self.want_input = false;
            self.wake(key, events);
        }
        if n == spare {
            ReadResult::Full
        } else {
            ReadResult::Short
        }
    }

    /// The engine's write: response bytes for JS, up to what the pipe holds (then WouldBlock, as a full socket).
    pub(crate) fn write(
        &mut self,
        key: usize,
        data: &[u8],
        events: &mut VecDeque<Event>,
    ) -> io::Result<usize> {
        let n = data.len().min(OUT_CAP.saturating_sub(self.out.len()));
        if n == 0 {
            return Err(ErrorKind::WouldBlock.into());
        }
        self.out.extend_from_slice(&data[..n]);
        self.wake(key, events);
        Ok(n)
    }

    /// A file or cached body, copied into the pipe in pieces (what sendfile does for a socket). Ok(true) when all
    /// of it is in.
    pub(crate) fn send_file(
        &mut self,
        key: usize,
        body: &mut FileBody,
        events: &mut VecDeque<Event>,
    ) -> io::Result<bool> {
        use crate::sys::ReadAt;
        while body.remaining > 0 {
            let room = OUT_CAP.saturating_sub(self.out.len());
            if room == 0 {
                return Ok(false);
            }
            let n = (body.remaining.min(room as u64) as usize).min(FILE_PIECE);
            let start = self.out.len();
            match &body.source {
                BodySource::Memory(bytes) => {
                    let at = body.offset as usize;
                    self.out.extend_from_slice(&bytes[at..at + n]);
                }
                BodySource::File(f) => {
                    self.out.resize(start + n, 0);
                    match f.read_at(&mut self.out[start..], body.offset) {
                        Ok(0) => {
                            self.out.truncate(start);
                            // The file shrank after its length was sent: the response cannot be completed.
                            return Err(ErrorKind::UnexpectedEof.into());
                        }
                        Ok(r) => self.out.truncate(start + r),
                        Err(e) if e.kind() == ErrorKind::Interrupted => {
                            self.out.truncate(start);
                            continue;
                        }
                        Err(e) => {
                            self.out.truncate(start);
                            return Err(e);
                        }
                    }
                }
            }
            let got = (self.out.len() - start) as u64;
            body.offset += got;
            body.remaining -= got;
            self.wake(key, events);
        }
        Ok(true)
    }

    /// The engine shut its write side (`Connection: close`): the response ends here.
    pub(crate) fn shut(&mut self, key: usize, events: &mut VecDeque<Event>) {
        self.out_eof = true;
        self.wake(key, events);
    }
}

impl Inner {
    /// Opens an in-process connection; None while the server is closing (as a refused connection). Over
    /// `max_connections` the pipe holds the 503 a socket would get, and no connection.
    fn mem_open(&mut self, secure: bool, head_request: bool) -> Option<u32> {
        if self.closing {
            return None;
        }
        let key = self.pipes.insert(MemPipe::new(secure, head_request));
        if self.conns.len() >= self.cfg.max_connections {
            let pipe = &mut self.pipes[key];
            crate::engine::write_busy(&mut pipe.out, &self.date);
            pipe.shut(key, &mut self.events);
            return Some(key as u32);
        }
        let cid = self
            .conns
            .insert(Conn::new(Io::Mem(key), MEM_ADDR, self.now));
        self.pipes[key].conn = Some(cid);
        Some(key as u32)
    }

    /// An HTTP/3 request's pipe (h3/bridge.rs): from the client's address, read as HTTP/3 over TLS, its news
    /// waking `waker`.
    #[cfg(unix)]
    fn h3_open(
        &mut self,
        peer: SocketAddr,
        local: SocketAddr,
        head_request: bool,
        waker: std::task::Waker,
    ) -> Option<u32> {
        let key = self.mem_open(true, head_request)? as usize;
        let pipe = &mut self.pipes[key];
        pipe.h3_local = Some(local);
        pipe.waker = Some(waker);
        if let Some(cid) = pipe.conn {
            self.conns[cid].peer = peer;
        }
        Some(key as u32)
    }

    /// The server side of pipe `key` closed (close_conn): JS reads what is left, then the end.
    pub(crate) fn mem_closed(&mut self, key: usize) {
        if let Some(pipe) = self.pipes.get_mut(key) {
            pipe.conn = None;
            pipe.shut(key, &mut self.events);
        }
    }

    fn mem_write(&mut self, key: usize, data: &[u8]) -> MemWrite {
        let Some(pipe) = self.pipes.get_mut(key) else {
            return MemWrite::Gone;
        };
        // Any call from JS counts as its look at the pipe: it handles every wake-up reason at once (mem_read too).
        pipe.notified = false;
        let Some(cid) = pipe.conn else {
            return MemWrite::Gone;
        };
        pipe.input.extend_from_slice(data);
        let full = pipe.input.len() - pipe.in_pos > IN_HIGH_WATER;
        pipe.want_input |= full;
        // The readable edge of a socket: read at the end of this turn (a paused connection resumes by itself).
        if !self.conns[cid].read_paused {
            self.deferred.push(cid);
        }
        if full {
            MemWrite::Full
        } else {
            MemWrite::Ok
        }
    }

    /// JS is done with pipe `key` (response read, or given up on): the connection closes as when a client hangs
    /// up, and a request still in flight is aborted.
    fn mem_close(&mut self, key: usize) {
        if !self.pipes.contains(key) {
            return;
        }
        let pipe = self.pipes.remove(key);
        if let Some(cid) = pipe.conn {
            self.close_conn(cid);
        }
    }
}

impl Server {
    /// Opens an in-process connection and returns its key, or None when the server is closing. `secure`: the
    /// request is for an `https:` URL; `head_request`: it is a HEAD request (its response has no body).
    pub fn mem_open(self: &Rc<Self>, secure: bool, head_request: bool) -> io::Result<Option<u32>> {
        self.ensure_timers()?;
        let key = {
            let mut inner = self.inner.borrow_mut();
            inner.refresh_clock();
            inner.mem_open(secure, head_request)
        };
        self.after_call();
        Ok(key)
    }

    /// Opens the in-process connection an HTTP/3 request is served through (h3/bridge.rs); None when closing.
    #[cfg(unix)]
    pub(crate) fn h3_open(
        self: &Rc<Self>,
        peer: SocketAddr,
        local: SocketAddr,
        head_request: bool,
        waker: std::task::Waker,
    ) -> Option<u32> {
        self.ensure_timers().ok()?;
        let key = {
            let mut inner = self.inner.borrow_mut();
            inner.refresh_clock();
            inner.h3_open(peer, local, head_request, waker)
        };
        self.after_call();
        key
    }

    /// The engine has not yet read what was written to pipe `key` below the mark `mem_write` said `Full` at.
    #[cfg(unix)]
    pub(crate) fn mem_full(&self, key: u32) -> bool {
        self.inner
            .borrow()
            .pipes
            .get(key as usize)
            .is_some_and(|p| p.conn.is_some() && p.want_input)
    }

    /// Queues request bytes on in-process connection `key`; the engine reads them at the end of this loop turn.
    pub fn mem_write(&self, key: u32, data: &[u8]) -> MemWrite {
        let r = {
            let mut inner = self.inner.borrow_mut();
            // No poll wakeup reads the clock for a server that does not listen; the request's timeouts count from it.
            inner.refresh_clock();
            inner.mem_write(key as usize, data)
        };
        self.after_call();
        r
    }

    /// Reads what has arrived of the response on in-process connection `key` and hands it to `f`; None for an
    /// unknown key. Taking output makes room: a writer blocked on the pipe goes on (the writable edge).
    pub fn mem_read<R>(&self, key: u32, f: impl FnOnce(&MemOutput<'_>) -> R) -> Option<R> {
        let key = key as usize;
        let r = {
            let mut inner = self.inner.borrow_mut();
            let inner = &mut *inner;
            let pipe = inner.pipes.get_mut(key)?;
            pipe.notified = false;
            pipe.body.clear();
            let MemPipe {
                out,
                out_eof,
                reader,
                body,
                conn,
                ..
            } = pipe;
            let (r, consumed) = match reader.read(out, body) {
                Ok(p) => {
                    let mut state = if p.done {
                        MemState::Done
                    } else {
                        MemState::More
                    };
                    // Everything the engine will ever write is here: the end of a body delimited by it, or a
                    // response cut short.
                    if *out_eof && state == MemState::More && p.consumed == out.len() {
                        state = match reader.finish() {
                            Ok(()) => MemState::Done,
                            Err(()) => MemState::Failed,
                        };
                    }
                    let r = f(&MemOutput {
                        head: p.head.as_ref(),
                        body,
                        state,
                    });
                    (r, p.consumed)
                }
                Err(()) => {
                    let r = f(&MemOutput {
                        head: None,
                        body,
                        state: MemState::Failed,
                    });
                    (r, out.len())
                }
            };
            out.drain(..consumed);
            if let Some(cid) = *conn {
                if inner.conns.get(cid).is_some_and(|c| c.want_write) {
                    inner.flush(cid);
                }
            }
            r
        };
        self.after_call();
        Some(r)
    }

    /// Closes in-process connection `key` from the JS side (see `Inner::mem_close`).
    pub fn mem_close(&self, key: u32) {
        self.inner.borrow_mut().mem_close(key as usize);
        // The end of the turn also lets go of the timers when this was the last pipe of a server not listening.
        self.schedule_kick();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn drain(pipe: &mut MemPipe, events: &mut VecDeque<Event>) -> Vec<u8> {
        let mut buf = Vec::with_capacity(8);
        let mut all = Vec::new();
        while !matches!(pipe.read_into(3, &mut buf, events), ReadResult::WouldBlock) {
            all.append(&mut buf);
        }
        all
    }

    #[test]
    fn input_is_read_in_order_and_wakes_a_waiting_writer_once() {
        let mut pipe = MemPipe::new(false, false);
        let mut events = VecDeque::new();
        let big = vec![b'x'; IN_HIGH_WATER + 10];
        pipe.input.extend_from_slice(b"GET / HTTP/1.1\r\n");
        pipe.input.extend_from_slice(&big);
        pipe.want_input = true;
        let all = drain(&mut pipe, &mut events);
        assert_eq!(all.len(), 16 + big.len());
        assert!(all.starts_with(b"GET / HTTP/1.1\r\n"));
        assert_eq!(events, [Event::Pipe(3)]);
        assert_eq!(
            (pipe.input.len(), pipe.in_pos),
            (0, 0),
            "read input is let go"
        );
    }

    #[test]
    fn output_blocks_at_the_cap_like_a_full_socket() {
        let mut pipe = MemPipe::new(false, false);
        let mut events = VecDeque::new();
        let data = vec![1u8; OUT_CAP + 5];
        assert_eq!(pipe.write(0, &data, &mut events).unwrap(), OUT_CAP);
        let e = pipe.write(0, &data, &mut events).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::WouldBlock);
        assert_eq!(events.len(), 1, "one wake-up until JS reads");
    }

    #[test]
    fn files_are_copied_in_pieces_up_to_the_cap() {
        let mut pipe = MemPipe::new(false, false);
        let mut events = VecDeque::new();
        let bytes: Rc<[u8]> = (0..OUT_CAP + 100).map(|i| i as u8).collect();
        let mut body = FileBody {
            source: BodySource::Memory(bytes.clone()),
            offset: 0,
            remaining: bytes.len() as u64,
        };
        assert!(!pipe.send_file(0, &mut body, &mut events).unwrap());
        assert_eq!(pipe.out.len(), OUT_CAP);
        pipe.out.clear();
        assert!(pipe.send_file(0, &mut body, &mut events).unwrap());
        assert_eq!(pipe.out, &bytes[OUT_CAP..]);
    }
}
