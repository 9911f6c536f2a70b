//! The client side of one HTTP/1.1 exchange: a response read back from bytes as they arrive (interim 1xx heads
//! skipped, the body unframed by Content-Length, chunked coding or the connection's end). The engine's in-process
//! requests (`app.request`) hand JS the response through it; sans-IO like the rest of this crate.

use crate::chunked::ChunkedDecoder;
use crate::encode::{parse_response_head, Framing, ParsedResponse};

#[derive(Clone, Debug)]
enum State {
    /// Waiting for the final head (1xx heads before it are skipped).
    Head,
    /// `Content-Length`: bytes left.
    Length(u64),
    Chunked(ChunkedDecoder),
    /// No framing field: the body is everything until the connection ends.
    UntilClose,
    Done,
    Failed,
}

/// What one [`ResponseReader::read`] call found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReadProgress<'a> {
    /// Input bytes used: heads and body framing included. Bytes past it were not read (they follow the response).
    pub consumed: usize,
    /// The final response head, in the call that completes it (exactly once per reader).
    pub head: Option<ParsedResponse<'a>>,
    /// The whole response has been read.
    pub done: bool,
}

/// Reads one HTTP/1.1 response: feed it bytes as they arrive ([`read`](Self::read)), tell it when the connection
/// ended ([`finish`](Self::finish)). Failures are `Err(())`: bytes that are not a response, contradictory framing,
/// bad chunked coding, or (from `finish`) a body cut short.
///
/// ```
/// use gale_http::ResponseReader;
///
/// let bytes = b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nhi\r\n0\r\n\r\n";
/// let mut r = ResponseReader::new(false);
/// let mut body = Vec::new();
/// let p = r.read(&bytes[..75], &mut body).unwrap(); // any split point works
/// assert_eq!(p.head.map(|h| h.status), Some(200));
/// let p = r.read(&bytes[p.consumed..], &mut body).unwrap();
/// assert!(p.done);
/// assert_eq!(body, b"hi");
/// ```
#[derive(Clone, Debug)]
pub struct ResponseReader {
    state: State,
    /// The request was HEAD: the response has no body whatever its fields say.
    head_request: bool,
}

impl ResponseReader {
    /// A reader for the response to a request; `head_request` when that request was HEAD.
    pub fn new(head_request: bool) -> Self {
        ResponseReader {
            state: State::Head,
            head_request,
        }
    }

    /// Whether the whole response has been read.
    pub fn is_done(&self) -> bool {
        matches!(self.state, State::Done)
    }

    /// Reads from `input`, appending body bytes to `body`. Call again with the bytes from `consumed` on, plus
    /// whatever arrived since. After an error every call fails; a call that completes the head reports it even when
    /// the body after it is bad (the next call fails), so how the bytes were split never changes what is read.
    #[allow(clippy::result_unit_err)]
    pub fn read<'a>(
        &mut self,
        input: &'a [u8],
        body: &mut Vec<u8>,
    ) -> Result<ReadProgress<'a>, ()> {
        let r = self.run(input, body);
        if r.is_err() {
            self.state = State::Failed;
        }
        r
    }

    fn run<'a>(&mut self, input: &'a [u8], body: &mut Vec<u8>) -> Result<ReadProgress<'a>, ()> {
        let mut pos = 0;
        let mut head = None;
        if let State::Head = self.state {
            loop {
                let Some(h) = parse_response_head(&input[pos..])? else {
                    return Ok(ReadProgress {
                        consumed: pos,
                        head: None,
                        done: false,
                    });
                };
                pos += h.head_len;
                // Interim answers (100 Continue, 103 Early Hints) come before the final one; 101 is final.
                if (100..200).contains(&h.status) && h.status != 101 {
                    continue;
                }
                self.state = match h.framing {
                    _ if self.head_request => State::Done,
                    Framing::NoBody | Framing::Length(0) => State::Done,
                    Framing::Length(n) => State::Length(n),
                    Framing::Chunked => State::Chunked(ChunkedDecoder::new(u64::MAX)),
                    Framing::UntilClose => State::UntilClose,
                };
                head = Some(h);
                break;
            }
        }
        let rest = &input[pos..];
        match &mut self.state {
            State::Head => unreachable!("left above"),
            State::Failed => return Err(()),
            State::Done => {}
            State::Length(left) => {
                let n = (*left).min(rest.len() as u64) as usize;
                body.extend_from_slice(&rest[..n]);
                pos += n;
                *left -= n as u64;
                if *left == 0 {
                    self.state = State::Done;
                }
            }
            State::Chunked(dec) => match dec.decode(rest, body) {
                Ok(d) => {
                    pos += d.consumed;
                    if d.done {
                        self.state = State::Done;
                    }
                }
                // The head read in this call is still handed out (as it would be had the bytes come apart);
                // the failure is the next call's.
                Err(_) if head.is_some() => self.state = State::Failed,
                Err(_) => return Err(()),
            },
            State::UntilClose => {
                body.extend_from_slice(rest);
                pos += rest.len();
            }
        }
        Ok(ReadProgress {
            consumed: pos,
            head,
            done: self.is_done(),
        })
    }

    /// The connection ended (no more bytes will come). Ok when the response is complete: already, or because its
    /// body was delimited by the connection's end. Err when it was cut short (or had failed before).
    #[allow(clippy::result_unit_err)]
    pub fn finish(&mut self) -> Result<(), ()> {
        match self.state {
            State::Done => Ok(()),
            State::UntilClose => {
                self.state = State::Done;
                Ok(())
            }
            _ => {
                self.state = State::Failed;
                Err(())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Reads `bytes` fed in pieces of `step`, then finishes: (status, body, complete).
    fn read_all(bytes: &[u8], head_request: bool, step: usize) -> (u16, Vec<u8>, bool) {
        let mut r = ResponseReader::new(head_request);
        let (mut buf, mut body, mut status) = (Vec::new(), Vec::new(), 0);
        for piece in bytes.chunks(step.max(1)) {
            buf.extend_from_slice(piece);
            let p = r.read(&buf, &mut body).expect("valid response");
            if let Some(h) = &p.head {
                assert_eq!(status, 0, "one head");
                status = h.status;
            }
            let used = p.consumed;
            buf.drain(..used);
        }
        let complete = r.finish().is_ok();
        (status, body, complete)
    }

    /// Response bytes, HEAD request, then the status, body and completeness read back.
    type Case = (&'static [u8], bool, u16, &'static [u8], bool);

    #[test]
    fn framings_at_any_split() {
        let cases: &[Case] = &[
            (
                b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello",
                false,
                200,
                b"hello",
                true,
            ),
            (
                b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n1;x=y\r\nd\r\n0\r\nT: 1\r\n\r\n",
                false,
                200,
                b"abcd",
                true,
            ),
            (
                b"HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nuntil the end",
                false,
                200,
                b"until the end",
                true,
            ),
            (
                b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n",
                true,
                200,
                b"",
                true,
            ),
            (
                b"HTTP/1.1 204 No Content\r\n\r\n",
                false,
                204,
                b"",
                true,
            ),
            (
                b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\nHTTP/1.1 404 Not Found\r\nContent-Length: 2\r\n\r\nno",
                false,
                404,
                b"no",
                true,
            ),
            (
                b"HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\ncut",
                false,
                200,
                b"cut",
                false,
            ),
        ];
        for &(bytes, head_request, status, body, complete) in cases {
            for step in [1, 2, 7, bytes.len()] {
                let got = read_all(bytes, head_request, step);
                assert_eq!(
                    got,
                    (status, body.to_vec(), complete),
                    "{:?} step {step}",
                    String::from_utf8_lossy(bytes)
                );
            }
        }
    }

    #[test]
    fn stops_at_the_end_of_the_response() {
        let bytes = b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokHTTP/1.1 200 OK\r\n";
        let mut r = ResponseReader::new(false);
        let mut body = Vec::new();
        let p = r.read(bytes, &mut body).unwrap();
        assert!(p.done);
        assert_eq!(&bytes[p.consumed..], b"HTTP/1.1 200 OK\r\n");
        let p = r.read(&bytes[p.consumed..], &mut body).unwrap();
        assert_eq!((p.consumed, p.done, body.as_slice()), (0, true, &b"ok"[..]));
    }

    #[test]
    fn refuses_what_is_not_a_response_and_stays_failed() {
        let mut body = Vec::new();
        let mut r = ResponseReader::new(false);
        assert!(r.read(b"GET / HTTP/1.1\r\n\r\n", &mut body).is_err());
        assert!(r
            .read(b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", &mut body)
            .is_err());
        assert!(r.finish().is_err());
        let mut r = ResponseReader::new(false);
        let bad_chunk = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n";
        let p = r.read(bad_chunk, &mut body).unwrap();
        assert_eq!(p.head.map(|h| h.status), Some(200), "the head comes first");
        assert!(r.read(&bad_chunk[p.consumed..], &mut body).is_err());
        let mut r = ResponseReader::new(false);
        assert_eq!(
            r.read(b"HTTP/1.1 200 OK\r\n", &mut body).unwrap().consumed,
            0
        );
        assert!(r.finish().is_err(), "a head cut short is not a response");
    }
}
