//! A resumable decoder for `Transfer-Encoding: chunked` request bodies (RFC 9112 §7.1), strict
//! about line endings and sizes, because lenient chunk parsing is where smuggling lives.

mod lines;

use crate::error::{Error, Kind};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    /// Reading chunk-size hex digits.
    Size,
    /// After the size: BWS, which only a `;` may follow (RFC 9112 §7.1.1).
    SizeWs,
    /// After `;`: BWS, then an extension name (a token).
    ExtPreName,
    /// Inside an extension name.
    ExtName,
    /// BWS after a name: `=` or `;` must follow.
    ExtPostName,
    /// After `=`: BWS, then a token or a quoted-string.
    ExtPreValue,
    /// Inside a token value.
    ExtToken,
    /// Inside a quoted-string value.
    ExtQuoted,
    /// After a backslash inside a quoted-string.
    ExtQuotedPair,
    /// After a closing quote: CR, BWS or `;`.
    ExtQuotedEnd,
    /// BWS after a value: `;` must follow.
    ExtPostValue,
    /// CR of the chunk line seen; LF must follow.
    SizeLf,
    /// Chunk data; `remaining` bytes left.
    Data,
    /// Data done; CR must follow.
    DataCr,
    /// Data CR seen; LF must follow.
    DataLf,
    /// At the start of a trailer line (or of the final CRLF).
    TrailerStart,
    /// Inside a trailer field name.
    TrailerName,
    /// Inside a trailer field value.
    TrailerValue,
    /// Trailer line CR seen; LF must follow.
    TrailerLf,
    /// Final CR seen; LF ends the body.
    FinalLf,
    Done,
    Failed,
}

/// Progress of one [`ChunkedDecoder::decode`] call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Decoded {
    /// Input bytes used. When `done`, bytes past this belong to the next request.
    pub consumed: usize,
    /// The last-chunk, trailers and final CRLF have been read: the body is complete.
    pub done: bool,
}

/// Decodes a chunked body incrementally; feed it bytes as they arrive.
///
/// ```
/// use gale_http::ChunkedDecoder;
///
/// let mut dec = ChunkedDecoder::new(1024);
/// let mut body = Vec::new();
/// let input = b"5\r\nhello\r\n6;ext=1\r\n world\r\n0\r\nTrailer: x\r\n\r\nGET /next";
/// let d = dec.decode(&input[..7], &mut body).unwrap(); // any split point works
/// assert_eq!((d.consumed, d.done), (7, false));
/// let d = dec.decode(&input[7..], &mut body).unwrap();
/// assert!(d.done);
/// assert_eq!(body, b"hello world");
/// assert_eq!(&input[7 + d.consumed..], b"GET /next");
/// ```
#[derive(Clone, Debug)]
pub struct ChunkedDecoder {
    state: State,
    /// Size of the chunk being read, then the data bytes it has left.
    size: u64,
    digits: u8,
    /// Bytes of the current chunk line, for the line cap.
    line: u64,
    trailer_bytes: u64,
    total: u64,
    max_body: u64,
    error: Option<Error>,
}

impl ChunkedDecoder {
    /// A decoder that fails with [`Error::body_too_large`] once the decoded body would exceed
    /// `max_body` bytes (checked against each chunk's declared size, before its data arrives).
    pub fn new(max_body: u64) -> Self {
        ChunkedDecoder {
            state: State::Size,
            size: 0,
            digits: 0,
            line: 0,
            trailer_bytes: 0,
            total: 0,
            max_body,
            error: None,
        }
    }

    /// Whether the whole body has been decoded.
    pub fn is_done(&self) -> bool {
        self.state == State::Done
    }

    /// Body bytes decoded so far (declared by chunk sizes read so far, data included or not).
    pub fn total(&self) -> u64 {
        self.total
    }

    /// Decodes from `input`, appending body data to `out`; resumable at any byte boundary.
    ///
    /// Consumes all of `input` unless the body ends inside it. After an error the decoder
    /// returns that error forever; data decoded before the error stays in `out`.
    pub fn decode(&mut self, input: &[u8], out: &mut Vec<u8>) -> Result<Decoded, Error> {
        if let Some(err) = &self.error {
            return Err(err.clone());
        }
        match self.run(input, out) {
            Ok(d) => Ok(d),
            Err(err) => {
                self.state = State::Failed;
                self.error = Some(err.clone());
                Err(err)
            }
        }
    }

    fn run(&mut self, input: &[u8], out: &mut Vec<u8>) -> Result<Decoded, Error> {
        let bad = || Error::new(Kind::BadChunk);
        if self.state == State::Done {
            return Ok(Decoded {
                consumed: 0,
                done: true,
            });
        }
        let mut i = 0;
        while i < input.len() {
            if self.state == State::Data {
                // Bulk copy: the only state that moves more than a byte at a time.
                let n = (input.len() - i).min(usize::try_from(self.size).unwrap_or(usize::MAX));
                out.extend_from_slice(&input[i..i + n]);
                self.size -= n as u64;
                i += n;
                if self.size == 0 {
                    self.state = State::DataCr;
                }
                continue;
            }
            let b = input[i];
            i += 1;
            self.state = match self.state {
                State::Size
                | State::SizeWs
                | State::ExtPreName
                | State::ExtName
                | State::ExtPostName
                | State::ExtPreValue
                | State::ExtToken
                | State::ExtQuoted
                | State::ExtQuotedPair
                | State::ExtQuotedEnd
                | State::ExtPostValue => self.chunk_line(b)?,
                State::SizeLf => {
                    if b != b'\n' {
                        return Err(bad());
                    }
                    self.start_chunk()?
                }
                State::Data => unreachable!("handled above"),
                State::DataCr if b == b'\r' => State::DataLf,
                State::DataLf if b == b'\n' => State::Size,
                State::DataCr | State::DataLf => return Err(bad()),
                State::TrailerStart | State::TrailerName | State::TrailerValue => {
                    self.trailer_byte(b)?
                }
                State::TrailerLf => {
                    self.count_trailer()?;
                    if b != b'\n' {
                        return Err(bad());
                    }
                    State::TrailerStart
                }
                State::FinalLf => {
                    if b != b'\n' {
                        return Err(bad());
                    }
                    self.state = State::Done;
                    return Ok(Decoded {
                        consumed: i,
                        done: true,
                    });
                }
                // Done returns above and Failed never reaches `run`.
                State::Done | State::Failed => return Err(bad()),
            };
        }
        Ok(Decoded {
            consumed: i,
            done: self.state == State::Done,
        })
    }

    /// The chunk line is complete: start its data, or the trailer section for the last chunk.
    fn start_chunk(&mut self) -> Result<State, Error> {
        let size = self.size;
        self.digits = 0;
        self.line = 0;
        if size == 0 {
            return Ok(State::TrailerStart);
        }
        self.total = self
            .total
            .checked_add(size)
            .filter(|&t| t <= self.max_body)
            .ok_or(Error::body_too_large(self.max_body))?;
        Ok(State::Data)
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    /// Ok(Some(consumed)) when the body ended, Ok(None) when the input ran out first.
    pub(super) type Outcome = Result<Option<usize>, Kind>;

    /// Decodes `input` in pieces of `step` bytes (0 = all at once). Ok(Some(consumed)) when
    /// done, Ok(None) when the input ran out first.
    pub(super) fn decode_in_steps(input: &[u8], step: usize, max: u64) -> (Outcome, Vec<u8>) {
        let mut dec = ChunkedDecoder::new(max);
        let mut out = Vec::new();
        let step = if step == 0 { input.len().max(1) } else { step };
        let mut pos = 0;
        loop {
            let piece = &input[pos..(pos + step).min(input.len())];
            match dec.decode(piece, &mut out) {
                Err(e) => return (Err(e.kind()), out),
                Ok(d) => {
                    assert!(d.consumed <= piece.len());
                    pos += d.consumed;
                    if d.done {
                        assert!(dec.is_done());
                        return (Ok(Some(pos)), out);
                    }
                    assert_eq!(d.consumed, piece.len(), "not done, so all input is used");
                    if pos == input.len() {
                        return (Ok(None), out);
                    }
                }
            }
        }
    }

    #[test]
    fn valid_bodies_any_split() {
        // (input, decoded body, pipelined bytes left unconsumed)
        let table: &[(&[u8], &[u8], &[u8])] = &[
            (b"0\r\n\r\n", b"", b""),
            (b"5\r\nhello\r\n0\r\n\r\n", b"hello", b""),
            (
                b"5\r\nhello\r\n0\r\n\r\nGET / HTTP/1.1\r\n",
                b"hello",
                b"GET / HTTP/1.1\r\n",
            ),
            (
                b"3\r\nabc\r\nA\r\n0123456789\r\n0\r\n\r\nXYZ",
                b"abc0123456789",
                b"XYZ",
            ),
            (
                b"a\r\n0123456789\r\n0\r\n\r\n0\r\n\r\n",
                b"0123456789",
                b"0\r\n\r\n",
            ),
            (
                b"000000000000000F\r\n0123456789abcde\r\n0\r\n\r\n",
                b"0123456789abcde",
                b"",
            ),
            // Extensions, with and without values, quoted, and BWS before ';'.
            (b"5;a=b;c\r\nhello\r\n0;last\r\n\r\n", b"hello", b""),
            (b"5 ;a=\"x y\"\r\nhello\r\n0\r\n\r\n", b"hello", b""),
            // Trailers.
            (
                b"5\r\nhello\r\n0\r\nX-Sum: 1\r\nY:\r\n\r\nnext",
                b"hello",
                b"next",
            ),
            (b"0\r\nA: caf\xc3\xa9\t!\r\n\r\n", b"", b""),
        ];
        for (input, body, rest) in table {
            let whole = decode_in_steps(input, 0, 1 << 20);
            let consumed = input.len() - rest.len();
            assert_eq!(
                whole,
                (Ok(Some(consumed)), body.to_vec()),
                "{:?}",
                String::from_utf8_lossy(input)
            );
            for step in 1..=4 {
                assert_eq!(decode_in_steps(input, step, 1 << 20), whole, "step {step}");
            }
        }
    }

    #[test]
    fn errors_are_sticky_and_done_consumes_nothing() {
        let mut dec = ChunkedDecoder::new(10);
        let mut out = Vec::new();
        assert!(dec.decode(b"z", &mut out).is_err());
        assert_eq!(
            dec.decode(b"0\r\n\r\n", &mut out).unwrap_err().kind(),
            Kind::BadChunk
        );

        let mut dec = ChunkedDecoder::new(10);
        let d = dec.decode(b"1\r\nx\r\n0\r\n\r\nrest", &mut out).unwrap();
        assert_eq!(
            d,
            Decoded {
                consumed: 11,
                done: true
            }
        );
        assert_eq!(
            dec.decode(b"more", &mut out).unwrap(),
            Decoded {
                consumed: 0,
                done: true
            }
        );
        assert_eq!((out.as_slice(), dec.total()), (&b"x"[..], 1));
    }
}
