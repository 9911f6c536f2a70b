//! Incremental HTTP/1.1 response parser and validator: splits a connection's byte stream into responses
//! (Content-Length, chunked or close-delimited bodies) and checks each one's status and exact body bytes.

use std::fmt::Write as _;

/// Largest response head accepted; a longer one is a protocol error.
pub const MAX_HEAD: usize = 16 * 1024;
/// Body bytes kept for the description of an invalid response.
const SAMPLE_MAX: usize = 120;
/// Headers parsed on the fast path; a response with more is parsed again with `MANY_HEADERS`.
const FEW_HEADERS: usize = 16;
const MANY_HEADERS: usize = 128;

/// What every response must be.
#[derive(Debug, Clone)]
pub struct Expect {
    pub status: u16,
    pub body: Vec<u8>,
}

/// One complete response.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Completed {
    pub status: u16,
    /// Status and body bytes are exactly as expected.
    pub valid: bool,
    /// For an invalid response when `Parser::want_sample` was set: `status S, N-byte body: <first bytes>`.
    pub sample: Option<String>,
}

/// The stream cannot be parsed any further (the connection must be dropped).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProtocolError(pub String);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Head,
    /// Content-Length body with this many bytes still to come.
    Length(usize),
    /// In a chunk-size line: the size so far, whether a digit was seen, whether we are in an extension.
    ChunkSize {
        size: usize,
        digits: bool,
        ext: bool,
    },
    /// Saw the CR that ends a chunk-size line.
    ChunkSizeLf(usize),
    ChunkData(usize),
    /// After a chunk's data: expects CRLF.
    ChunkDataCr,
    ChunkDataLf,
    /// After the last chunk: trailer lines until an empty one; the bytes of the current line (CR not counted).
    Trailer(usize),
    /// No Content-Length and not chunked: the body ends when the peer closes.
    UntilClose,
}

/// Incremental parser for one connection. Feed it bytes as they arrive; it reports each complete response.
#[derive(Debug)]
pub struct Parser {
    state: State,
    status: u16,
    /// Body bytes of the current response seen so far.
    body_len: usize,
    /// Offset of the first body byte that differs from the expected body (or the expected body's end when longer).
    mismatch_at: Option<usize>,
    /// Actual body bytes from `mismatch_at` on, while an invalid description is wanted.
    sample: Vec<u8>,
    /// Build `Completed::sample` for invalid responses (the caller clears it once it has one).
    pub want_sample: bool,
}

impl Default for Parser {
    fn default() -> Self {
        Self::new()
    }
}

impl Parser {
    pub fn new() -> Self {
        Self {
            state: State::Head,
            status: 0,
            body_len: 0,
            mismatch_at: None,
            sample: Vec::new(),
            want_sample: true,
        }
    }

    /// Forgets any partial response (after a reconnect).
    pub fn reset(&mut self) {
        self.state = State::Head;
        self.body_len = 0;
        self.mismatch_at = None;
        self.sample.clear();
    }

    /// Parses every response that `buf` completes and calls `on` for each. Returns how many bytes were consumed:
    /// the rest is the start of an incomplete head, which the caller must pass again in front of the next bytes.
    /// Body bytes are consumed as they come, so what is left over is never longer than `MAX_HEAD`.
    pub fn feed(
        &mut self,
        buf: &[u8],
        expect: &Expect,
        mut on: impl FnMut(Completed),
    ) -> Result<usize, ProtocolError> {
        let mut pos = 0;
        loop {
            match self.state {
                State::Head => {
                    if pos == buf.len() {
                        return Ok(pos);
                    }
                    match self.head(&buf[pos..])? {
                        None => {
                            if buf.len() - pos > MAX_HEAD {
                                return Err(ProtocolError(format!(
                                    "response head longer than {MAX_HEAD} bytes"
                                )));
                            }
                            return Ok(pos);
                        }
                        Some(n) => pos += n,
                    }
                }
                State::Length(0) => on(self.complete(expect)),
                State::Length(remaining) => {
                    if pos == buf.len() {
                        return Ok(pos);
                    }
                    let n = remaining.min(buf.len() - pos);
                    self.body(&buf[pos..pos + n], &expect.body);
                    pos += n;
                    self.state = State::Length(remaining - n);
                }
                State::ChunkData(remaining) => {
                    if pos == buf.len() {
                        return Ok(pos);
                    }
                    let n = remaining.min(buf.len() - pos);
                    self.body(&buf[pos..pos + n], &expect.body);
                    pos += n;
                    self.state = if remaining == n {
                        State::ChunkDataCr
                    } else {
                        State::ChunkData(remaining - n)
                    };
                }
                State::UntilClose => {
                    self.body(&buf[pos..], &expect.body);
                    return Ok(buf.len());
                }
                _ => {
                    // Chunk framing, one byte at a time (a few bytes per chunk).
                    let Some(&b) = buf.get(pos) else {
                        return Ok(pos);
                    };
                    pos += 1;
                    if self.framing(b)? {
                        on(self.complete(expect));
                    }
                }
            }
        }
    }

    /// The peer closed the connection: completes a close-delimited body. Any other partial response is lost.
    pub fn eof(&mut self, expect: &Expect) -> Option<Completed> {
        if self.state == State::UntilClose {
            Some(self.complete(expect))
        } else {
            self.reset();
            None
        }
    }

    /// Parses a head at the start of `buf`: None if incomplete, else its length (and sets up the body state).
    fn head(&mut self, buf: &[u8]) -> Result<Option<usize>, ProtocolError> {
        let mut few = [httparse::EMPTY_HEADER; FEW_HEADERS];
        match self.head_with(buf, &mut few) {
            Err(httparse::Error::TooManyHeaders) => {
                let mut many = vec![httparse::EMPTY_HEADER; MANY_HEADERS];
                self.head_with(buf, &mut many)
            }
            r => r,
        }
        .map_err(|e| ProtocolError(e.to_string()))?
    }

    /// Like `head`; the outer error is httparse's (so that too many headers can be retried with more room).
    fn head_with<'b>(
        &mut self,
        buf: &'b [u8],
        headers: &mut [httparse::Header<'b>],
    ) -> Result<Result<Option<usize>, ProtocolError>, httparse::Error> {
        let mut resp = httparse::Response::new(headers);
        let n = match resp.parse(buf)? {
            httparse::Status::Complete(n) => n,
            httparse::Status::Partial => return Ok(Ok(None)),
        };
        Ok(self.start(n, resp.code.unwrap_or(0), resp.headers))
    }

    /// Sets up the body state for a parsed head of `n` bytes.
    fn start(
        &mut self,
        n: usize,
        status: u16,
        headers: &[httparse::Header<'_>],
    ) -> Result<Option<usize>, ProtocolError> {
        let mut length: Option<usize> = None;
        let mut chunked = false;
        for h in headers {
            if h.name.eq_ignore_ascii_case("content-length") {
                let v = parse_length(h.value).ok_or_else(|| {
                    ProtocolError(format!(
                        "bad Content-Length {:?}",
                        String::from_utf8_lossy(h.value)
                    ))
                })?;
                if length.is_some_and(|l| l != v) {
                    return Err(ProtocolError("conflicting Content-Length headers".into()));
                }
                length = Some(v);
            } else if h.name.eq_ignore_ascii_case("transfer-encoding") {
                // The last transfer coding decides how the body is framed.
                let last = h.value.rsplit(|&b| b == b',').next().unwrap_or_default();
                chunked = last.trim_ascii().eq_ignore_ascii_case(b"chunked");
                if !chunked {
                    return Err(ProtocolError(
                        "Transfer-Encoding without chunked as last coding".into(),
                    ));
                }
            }
        }
        if status == 101 {
            return Err(ProtocolError("101 Switching Protocols".into()));
        }
        if (100..200).contains(&status) {
            // Interim response (100 Continue, 103 Early Hints): not counted, the final one follows.
            return Ok(Some(n));
        }
        self.status = status;
        self.body_len = 0;
        self.mismatch_at = None;
        self.sample.clear();
        self.state = if status == 204 || status == 304 {
            State::Length(0)
        } else if chunked {
            State::ChunkSize {
                size: 0,
                digits: false,
                ext: false,
            }
        } else if let Some(l) = length {
            State::Length(l)
        } else {
            State::UntilClose
        };
        Ok(Some(n))
    }

    /// One byte of chunk framing; true when it ended the response.
    fn framing(&mut self, b: u8) -> Result<bool, ProtocolError> {
        let bad = |what: &str| {
            Err(ProtocolError(format!(
                "chunked body: {what} (byte {b:#04x})"
            )))
        };
        match self.state {
            State::ChunkSize { size, digits, ext } => match b {
                b'\r' => {
                    self.state = State::ChunkSizeLf(if digits {
                        size
                    } else {
                        return bad("empty chunk size");
                    })
                }
                b'\n' if digits => self.end_size_line(size),
                _ if ext => {}
                b';' | b' ' | b'\t' if digits => {
                    self.state = State::ChunkSize {
                        size,
                        digits,
                        ext: true,
                    }
                }
                _ => {
                    let Some(d) = (b as char).to_digit(16) else {
                        return bad("bad chunk size");
                    };
                    let Some(size) = size.checked_mul(16).and_then(|s| s.checked_add(d as usize))
                    else {
                        return bad("chunk size overflows");
                    };
                    self.state = State::ChunkSize {
                        size,
                        digits: true,
                        ext: false,
                    };
                }
            },
            State::ChunkSizeLf(size) if b == b'\n' => self.end_size_line(size),
            State::ChunkDataCr if b == b'\r' => self.state = State::ChunkDataLf,
            State::ChunkDataCr | State::ChunkDataLf if b == b'\n' => {
                self.state = State::ChunkSize {
                    size: 0,
                    digits: false,
                    ext: false,
                }
            }
            State::Trailer(line) => match b {
                b'\n' if line == 0 => return Ok(true),
                b'\n' => self.state = State::Trailer(0),
                b'\r' => {}
                _ => self.state = State::Trailer(line + 1),
            },
            _ => return bad("expected CRLF"),
        }
        Ok(false)
    }

    fn end_size_line(&mut self, size: usize) {
        self.state = if size == 0 {
            State::Trailer(0)
        } else {
            State::ChunkData(size)
        };
    }

    /// Compares the next body bytes with the expected body.
    fn body(&mut self, data: &[u8], expected: &[u8]) {
        let start = self.body_len;
        self.body_len += data.len();
        if let Some(at) = self.mismatch_at {
            if self.want_sample && at + self.sample.len() < SAMPLE_MAX {
                let room = SAMPLE_MAX - at - self.sample.len();
                self.sample.extend_from_slice(&data[..data.len().min(room)]);
            }
            return;
        }
        if expected.get(start..self.body_len) == Some(data) {
            return;
        }
        let rest = expected.get(start..).unwrap_or_default();
        let same = rest.iter().zip(data).take_while(|(a, b)| a == b).count();
        self.mismatch_at = Some(start + same);
        if self.want_sample && start + same < SAMPLE_MAX {
            let room = SAMPLE_MAX - start - same;
            self.sample
                .extend_from_slice(&data[same..data.len().min(same + room)]);
        }
    }

    fn complete(&mut self, expect: &Expect) -> Completed {
        let valid = self.status == expect.status
            && self.mismatch_at.is_none()
            && self.body_len == expect.body.len();
        let sample = (!valid && self.want_sample).then(|| {
            // The body up to the first difference is the expected body's prefix; the rest was kept.
            let prefix = self
                .mismatch_at
                .unwrap_or(self.body_len)
                .min(expect.body.len());
            let mut bytes = expect.body[..prefix].to_vec();
            bytes.extend_from_slice(&self.sample);
            bytes.truncate(SAMPLE_MAX);
            format!(
                "status {}, {}-byte body: {}",
                self.status,
                self.body_len,
                printable(&bytes)
            )
        });
        let done = Completed {
            status: self.status,
            valid,
            sample,
        };
        self.reset();
        done
    }
}

fn parse_length(v: &[u8]) -> Option<usize> {
    let v = v.trim_ascii();
    if v.is_empty() || !v.iter().all(u8::is_ascii_digit) {
        return None;
    }
    std::str::from_utf8(v).ok()?.parse().ok()
}

/// Printable ASCII as is, anything else as `\xNN` (the same form as the wrk validator's samples).
pub fn printable(bytes: &[u8]) -> String {
    let mut s = String::with_capacity(bytes.len());
    for &b in bytes {
        if b.is_ascii_graphic() || b == b' ' {
            s.push(b as char);
        } else {
            let _ = write!(s, "\\x{b:02x}");
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    const BODY: &[u8] = br#"{"hello":"world"}"#;

    fn expect() -> Expect {
        Expect {
            status: 200,
            body: BODY.to_vec(),
        }
    }

    fn ok_response() -> Vec<u8> {
        let mut r =
            b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 17\r\n\r\n"
                .to_vec();
        r.extend_from_slice(BODY);
        r
    }

    fn chunked_response() -> Vec<u8> {
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n9;ext=1\r\n{\"hello\":\r\n8\r\n\"world\"}\r\n0\r\nX-T: 1\r\n\r\n"
            .to_vec()
    }

    /// Feeds `chunks` one after the other the way the event loop does (carrying unconsumed bytes over).
    fn run(chunks: &[&[u8]]) -> Result<Vec<Completed>, ProtocolError> {
        let mut p = Parser::new();
        let mut out = Vec::new();
        let mut carry = Vec::new();
        for c in chunks {
            carry.extend_from_slice(c);
            let n = p.feed(&carry, &expect(), |r| out.push(r))?;
            carry.drain(..n);
        }
        assert!(carry.len() <= MAX_HEAD);
        if let Some(r) = p.eof(&expect()) {
            out.push(r);
        }
        Ok(out)
    }

    fn valid(n: usize) -> Vec<Completed> {
        vec![
            Completed {
                status: 200,
                valid: true,
                sample: None
            };
            n
        ]
    }

    #[test]
    fn splits_pipelined_responses() {
        let mut stream = Vec::new();
        for _ in 0..16 {
            stream.extend_from_slice(&ok_response());
        }
        stream.extend_from_slice(&chunked_response());
        assert_eq!(run(&[&stream]).unwrap(), valid(17));
    }

    #[test]
    fn partial_reads_at_every_split_point() {
        let mut stream = ok_response();
        stream.extend_from_slice(&chunked_response());
        stream.extend_from_slice(&ok_response());
        for i in 0..=stream.len() {
            assert_eq!(
                run(&[&stream[..i], &stream[i..]]).unwrap(),
                valid(3),
                "split at {i}"
            );
            for j in i..=stream.len() {
                assert_eq!(
                    run(&[&stream[..i], &stream[i..j], &stream[j..]]).unwrap(),
                    valid(3),
                    "split at {i},{j}"
                );
            }
        }
        let bytes: Vec<&[u8]> = stream.chunks(1).collect();
        assert_eq!(run(&bytes).unwrap(), valid(3), "one byte at a time");
    }

    #[test]
    fn content_length_and_chunked_bodies() {
        assert_eq!(run(&[&ok_response()]).unwrap(), valid(1));
        assert_eq!(run(&[&chunked_response()]).unwrap(), valid(1));
        // Bare LF line ends, upper-case hex, chunked wins over Content-Length.
        let r = b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\nTransfer-Encoding: gzip, chunked\r\n\r\n\
                  11\n{\"hello\":\"world\"}\n0\n\n";
        assert_eq!(run(&[r]).unwrap(), valid(1));
        // An interim 100 Continue is skipped; a close-delimited body is completed at EOF.
        let mut r = b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.0 200 OK\r\n\r\n".to_vec();
        r.extend_from_slice(BODY);
        assert_eq!(run(&[&r]).unwrap(), valid(1));
    }

    #[test]
    fn wrong_status() {
        let r = ok_response();
        let r = String::from_utf8(r)
            .unwrap()
            .replace("200 OK", "404 Not Found");
        let out = run(&[r.as_bytes()]).unwrap();
        assert_eq!(out.len(), 1);
        assert!(!out[0].valid);
        assert_eq!(out[0].status, 404);
        assert_eq!(
            out[0].sample.as_deref(),
            Some(r#"status 404, 17-byte body: {"hello":"world"}"#)
        );
    }

    #[test]
    fn wrong_body() {
        let r = String::from_utf8(ok_response())
            .unwrap()
            .replace("world", "w0rld");
        let out = run(&[r.as_bytes()]).unwrap();
        assert_eq!(
            out[0].sample.as_deref(),
            Some(r#"status 200, 17-byte body: {"hello":"w0rld"}"#)
        );
        // A difference in the last chunk of a chunked body, split across reads.
        let r = String::from_utf8(chunked_response())
            .unwrap()
            .replace("world", "World");
        let (a, b) = r.as_bytes().split_at(60);
        let out = run(&[a, b]).unwrap();
        assert_eq!(
            out[0].sample.as_deref(),
            Some(r#"status 200, 17-byte body: {"hello":"World"}"#)
        );
        // Non-ASCII bytes are escaped.
        let r = b"HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\n\xe4\xb8\x96";
        assert_eq!(
            run(&[r]).unwrap()[0].sample.as_deref(),
            Some(r"status 200, 3-byte body: \xe4\xb8\x96")
        );
    }

    #[test]
    fn wrong_length() {
        let short = b"HTTP/1.1 200 OK\r\nContent-Length: 16\r\n\r\n{\"hello\":\"world\"";
        let long = b"HTTP/1.1 200 OK\r\nContent-Length: 18\r\n\r\n{\"hello\":\"world\"}!";
        let out = run(&[short, &ok_response(), long, &ok_response()]).unwrap();
        let v: Vec<bool> = out.iter().map(|r| r.valid).collect();
        assert_eq!(v, [false, true, false, true]);
        assert_eq!(
            out[0].sample.as_deref(),
            Some(r#"status 200, 16-byte body: {"hello":"world""#)
        );
        assert_eq!(
            out[2].sample.as_deref(),
            Some(r#"status 200, 18-byte body: {"hello":"world"}!"#)
        );
        // Empty body (204) against a non-empty expectation.
        let out = run(&[b"HTTP/1.1 204 No Content\r\n\r\n"]).unwrap();
        assert_eq!(out[0].sample.as_deref(), Some("status 204, 0-byte body: "));
    }

    #[test]
    fn no_sample_unless_wanted() {
        let mut p = Parser::new();
        p.want_sample = false;
        let r = String::from_utf8(ok_response())
            .unwrap()
            .replace("world", "w0rld");
        let mut out = Vec::new();
        p.feed(r.as_bytes(), &expect(), |c| out.push(c)).unwrap();
        assert_eq!(
            out,
            [Completed {
                status: 200,
                valid: false,
                sample: None
            }]
        );
    }

    #[test]
    fn truncated_response_is_lost_at_eof() {
        let r = ok_response();
        assert_eq!(run(&[&r[..r.len() - 1]]).unwrap(), []);
    }

    #[test]
    fn protocol_errors() {
        for bad in [
            &b"HTTP/1.1 200 OK\r\nContent-Length: x\r\n\r\n"[..],
            b"HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n",
            b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
            b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nab\r\n",
            b"HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\n",
            b"HTTP/1.1 101 Switching Protocols\r\n\r\n",
            b"garbage\r\n\r\n",
        ] {
            assert!(run(&[bad]).is_err(), "{:?}", String::from_utf8_lossy(bad));
        }
        let long = [b'a'; MAX_HEAD + 1];
        let mut head = b"HTTP/1.1 200 OK\r\nX: ".to_vec();
        head.extend_from_slice(&long);
        assert!(run(&[&head]).is_err());
    }

    #[test]
    fn many_headers() {
        let mut r = b"HTTP/1.1 200 OK\r\n".to_vec();
        for i in 0..40 {
            r.extend_from_slice(format!("X-{i}: y\r\n").as_bytes());
        }
        r.extend_from_slice(b"Content-Length: 17\r\n\r\n");
        r.extend_from_slice(BODY);
        assert_eq!(run(&[&r]).unwrap(), valid(1));
    }
}
