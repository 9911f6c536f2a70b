//! The in-process transport's pipe (`app.request`, HTTP/3's bridge): a pair of byte queues standing for a socket —
//! the engine reads JS's request bytes from one and writes its response into the other, and JS (or the HTTP/3 task)
//! is woken when there is something to do.

use std::collections::VecDeque;
use std::io::{self, ErrorKind};
use std::net::{IpAddr, Ipv4Addr, SocketAddr};

use gale_http::ResponseReader;

use super::ReadResult;
use crate::reply::{BodySource, FileBody};
use crate::Event;

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
    pub(crate) conn: Option<usize>,
    /// Request bytes from JS; the engine has read up to `in_pos`.
    pub(crate) input: Vec<u8>,
    pub(crate) in_pos: usize,
    /// Response bytes the engine wrote that JS has not read yet.
    pub(crate) out: Vec<u8>,
    /// The engine shut its write side (or closed): nothing more will be written.
    pub(crate) out_eof: bool,
    /// JS was told to wait (input over the mark): wake it when the engine has read below it.
    pub(crate) want_input: bool,
    /// An `Event::Pipe` is queued and JS has not read since (one wake-up per read).
    pub(crate) notified: bool,
    pub(crate) reader: ResponseReader,
    /// Decoded body bytes handed to JS by one read.
    pub(crate) body: Vec<u8>,
    /// The request was made for an `https:` URL: `req.secure` reads true, as behind TLS.
    pub(crate) secure: bool,
    /// A pipe standing for a stream of a real connection (an HTTP/3 request, an HTTP/2 WebSocket): the local
    /// address of that connection's socket (`req.socket.localAddress`).
    pub(crate) local: Option<SocketAddr>,
    /// The HTTP version its requests read as, when not 1.x (3: HTTP/3's bridge; 2: an HTTP/2 WebSocket).
    pub(crate) version: Option<u8>,
    /// The task that owns the pipe in Rust (HTTP/3): woken instead of an `Event::Pipe` to JS.
    pub(crate) waker: Option<std::task::Waker>,
    /// The HTTP/2 connection whose extended-CONNECT stream this pipe carries (h2/tunnel.rs): its `Event::Pipe`
    /// wakes that connection's pump instead of JS.
    pub(crate) tunnel: Option<usize>,
    /// The other end sent its last byte (an HTTP/2 stream's END_STREAM): once the input is read, the engine
    /// reads the end, as from a socket the client shut.
    pub(crate) in_eof: bool,
}
impl MemPipe {
    pub(crate) fn new(secure: bool, head_request: bool) -> MemPipe {
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
            local: None,
            version: None,
            waker: None,
            tunnel: None,
            in_eof: false,
        }
    }

    /// Tells JS to look at this pipe (once until it reads), or wakes the Rust task that owns it.
    pub(crate) fn wake(&mut self, key: usize, events: &mut VecDeque<Event>) {
        if let Some(w) = &self.waker {
            w.wake_by_ref();
        } else if !self.notified {
            self.notified = true;
            events.push_back(Event::Pipe(key as u32));
        }
    }

    /// JS's request bytes join the input. True when it holds more than the engine has read by `IN_HIGH_WATER`:
    /// JS is told to wait, and woken when the engine has read below it.
    pub(crate) fn take_input(&mut self, data: &[u8]) -> bool {
        self.input.extend_from_slice(data);
        let full = self.input.len() - self.in_pos > IN_HIGH_WATER;
        self.want_input |= full;
        full
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
            // JS never half-closes (it ends the whole connection with mem_close); an HTTP/2 stream does.
            return if self.in_eof {
                ReadResult::Eof
            } else {
                ReadResult::WouldBlock
            };
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

    /// The server side closed (close_conn): JS reads what is left, then the end.
    pub(crate) fn server_closed(&mut self, key: usize, events: &mut VecDeque<Event>) {
        self.conn = None;
        self.shut(key, events);
    }

    /// The engine shut its write side (`Connection: close`): the response ends here.
    pub(crate) fn shut(&mut self, key: usize, events: &mut VecDeque<Event>) {
        self.out_eof = true;
        self.wake(key, events);
    }
}
#[cfg(test)]
mod tests {
    use std::rc::Rc;

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
