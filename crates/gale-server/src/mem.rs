//! In-process connections (`app.request`): a connection whose transport is a pair of byte queues in memory
//! instead of a socket. JS writes an HTTP/1.1 request into one; the engine reads, parses, routes, answers and
//! frames it with the same parse loop and writer as a socket's; JS reads the response back through gale-http's
//! `ResponseReader`. No file descriptor, no thread: everything runs on the Node loop, driven by the kick timer.

use std::io;
use std::rc::Rc;

use gale_http::ParsedResponse;

use crate::conn::{Conn, Io};
use crate::engine::Inner;
use crate::transport::{MemPipe, MEM_ADDR};
use crate::Server;

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

    /// The pipe an HTTP/2 WebSocket is served through (h2/tunnel.rs): from connection `h2`'s client, secure when
    /// it is, read as HTTP/2, its news waking that connection's pump.
    pub(crate) fn tunnel_open(&mut self, h2: usize) -> Option<usize> {
        let conn = self.conns.get(h2)?;
        let (peer, secure) = (conn.peer, conn.tls.is_some());
        let local = conn.io.local_addr(&self.pipes);
        let key = self.mem_open(secure, false)? as usize;
        let pipe = &mut self.pipes[key];
        pipe.local = local;
        pipe.version = Some(2);
        pipe.tunnel = Some(h2);
        if let Some(cid) = pipe.conn {
            self.conns[cid].peer = peer;
        }
        Some(key)
    }

    /// The HTTP/2 connection whose WebSocket stream pipe `key` carries, with the pipe's news taken (it wakes again).
    pub(crate) fn tunnel_news(&mut self, key: usize) -> Option<usize> {
        let pipe = self.pipes.get_mut(key)?;
        let h2 = pipe.tunnel?;
        pipe.notified = false;
        Some(h2)
    }

    pub(crate) fn mem_write(&mut self, key: usize, data: &[u8]) -> MemWrite {
        let Some(pipe) = self.pipes.get_mut(key) else {
            return MemWrite::Gone;
        };
        // Any call from JS counts as its look at the pipe: it handles every wake-up reason at once (mem_read too).
        pipe.notified = false;
        let Some(cid) = pipe.conn else {
            return MemWrite::Gone;
        };
        let full = pipe.take_input(data);
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
    pub(crate) fn mem_close(&mut self, key: usize) {
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
