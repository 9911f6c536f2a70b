//! The line-level grammar of chunked bodies: chunk-size lines with their extensions, and
//! trailer field lines, each checked byte by byte so the decoder can stop at any boundary.

use super::{ChunkedDecoder, State};
use crate::error::{Error, Kind, MAX_CHUNK_LINE, MAX_TRAILER_BYTES};
use crate::response::is_tchar;

/// Hex digits a chunk size may have: 16 fill a u64, more can only be padding or an attack.
const MAX_SIZE_DIGITS: u8 = 16;

impl ChunkedDecoder {
    /// One byte of `chunk-size [chunk-ext] CRLF`, exactly as RFC 9112 §7.1.1 writes it:
    ///
    /// ```text
    /// chunk-ext     = *( BWS ";" BWS chunk-ext-name [ BWS "=" BWS chunk-ext-val ] )
    /// chunk-ext-val = token / quoted-string
    /// ```
    ///
    /// Whitespace is allowed only where the grammar has BWS, and an extension needs a name, so
    /// `5 \r\n`, `5;\r\n` and `5;a b\r\n` are refused: front ends that read such lines differently
    /// are how request smuggling through chunk extensions works.
    pub(super) fn chunk_line(&mut self, b: u8) -> Result<State, Error> {
        use State::*;
        let bad = || Error::new(Kind::BadChunk);
        let ws = b == b' ' || b == b'\t';
        if b == b'\r' {
            return match self.state {
                Size if self.digits > 0 => Ok(SizeLf),
                ExtName | ExtToken | ExtQuotedEnd => Ok(SizeLf),
                _ => Err(bad()),
            };
        }
        self.line += 1;
        if self.line > MAX_CHUNK_LINE {
            return Err(bad());
        }
        Ok(match (self.state, b) {
            (Size, _) if b.is_ascii_hexdigit() => {
                if self.digits == MAX_SIZE_DIGITS {
                    return Err(bad());
                }
                self.digits += 1;
                // Cannot overflow: at most 16 hex digits.
                self.size = (self.size << 4) | u64::from(hex_value(b));
                Size
            }
            (Size | SizeWs, _) if ws && self.digits > 0 => SizeWs,
            (
                Size | SizeWs | ExtName | ExtPostName | ExtToken | ExtQuotedEnd | ExtPostValue,
                b';',
            ) if self.digits > 0 => ExtPreName,
            (ExtPreName, _) if ws => ExtPreName,
            (ExtPreName | ExtName, _) if is_tchar(b) => ExtName,
            (ExtName | ExtPostName, _) if ws => ExtPostName,
            (ExtName | ExtPostName, b'=') => ExtPreValue,
            (ExtPreValue, _) if ws => ExtPreValue,
            (ExtPreValue, b'"') => ExtQuoted,
            (ExtPreValue | ExtToken, _) if is_tchar(b) => ExtToken,
            (ExtToken | ExtQuotedEnd | ExtPostValue, _) if ws => ExtPostValue,
            (ExtQuoted, b'"') => ExtQuotedEnd,
            (ExtQuoted, b'\\') => ExtQuotedPair,
            // qdtext = HTAB / SP / %x21 / %x23-5B / %x5D-7E / obs-text
            (ExtQuoted, _) if ws || (b >= 0x21 && b != 0x7f) => ExtQuoted,
            // quoted-pair = "\" ( HTAB / SP / VCHAR / obs-text )
            (ExtQuotedPair, _) if ws || (b >= 0x21 && b != 0x7f) => ExtQuoted,
            _ => return Err(bad()),
        })
    }

    /// One byte of a trailer field line `field-name ":" OWS field-value`, or the final CR.
    pub(super) fn trailer_byte(&mut self, b: u8) -> Result<State, Error> {
        let bad = || Error::new(Kind::BadChunk);
        match (self.state, b) {
            (State::TrailerStart, b'\r') => return Ok(State::FinalLf),
            (State::TrailerValue, b'\r') => {}
            (State::TrailerStart | State::TrailerName, _) if is_tchar(b) => {}
            (State::TrailerName, b':') => {}
            (State::TrailerValue, _) if b == b'\t' || (b >= 0x20 && b != 0x7f) => {}
            _ => return Err(bad()),
        }
        self.count_trailer()?;
        Ok(match (self.state, b) {
            (_, b'\r') => State::TrailerLf,
            (State::TrailerName, b':') => State::TrailerValue,
            (State::TrailerValue, _) => State::TrailerValue,
            _ => State::TrailerName,
        })
    }

    pub(super) fn count_trailer(&mut self) -> Result<(), Error> {
        self.trailer_bytes += 1;
        if self.trailer_bytes > MAX_TRAILER_BYTES {
            return Err(Error::with_limit(Kind::TrailersTooLarge, MAX_TRAILER_BYTES));
        }
        Ok(())
    }
}

fn hex_value(b: u8) -> u8 {
    match b {
        b'0'..=b'9' => b - b'0',
        b'a'..=b'f' => b - b'a' + 10,
        _ => b - b'A' + 10,
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{decode_in_steps, Outcome};
    use crate::error::Kind;

    #[test]
    fn malformed_bodies() {
        use Kind::*;
        let long_ext = [&b"1;"[..], &[b'x'; 4095], b"\r\na\r\n0\r\n\r\n"].concat();
        let ok_ext = [&b"1;"[..], &[b'x'; 4094], b"\r\na\r\n0\r\n\r\n"].concat();
        let big_trailer = [&b"0\r\nX: "[..], &[b'v'; 16 * 1024], b"\r\n\r\n"].concat();
        let table: &[(&[u8], u64, Outcome)] = &[
            (b"\r\n", 100, Err(BadChunk)),   // empty size
            (b";x\r\n", 100, Err(BadChunk)), // extension without size
            (b"g\r\n", 100, Err(BadChunk)),  // not hex
            (b"-5\r\n", 100, Err(BadChunk)),
            (b"+5\r\n", 100, Err(BadChunk)),
            (b"0x5\r\n", 100, Err(BadChunk)),
            (b"5 5\r\n", 100, Err(BadChunk)),
            (b"00000000000000000\r\n", 100, Err(BadChunk)), // 17 digits
            (b"10000000000000000\r\n", u64::MAX, Err(BadChunk)), // overflow
            (b"5\nhello\r\n", 100, Err(BadChunk)),          // bare LF after size
            (b"5\rhello\r\n", 100, Err(BadChunk)),          // bare CR after size
            (b"5\r\nhelloX\r\n", 100, Err(BadChunk)),       // data longer than size
            (b"5\r\nhello\n0\r\n\r\n", 100, Err(BadChunk)), // bare LF after data
            (b"5\r\nhello\r\n0\r\n\n", 100, Err(BadChunk)), // bare LF at the end
            (b"1;a\x00\r\nx\r\n", 100, Err(BadChunk)),      // NUL in extension
            (b"1;a\nb\r\nx\r\n", 100, Err(BadChunk)),       // LF in extension
            (b"1 \r\nx\r\n0\r\n\r\n", 100, Err(BadChunk)),  // BWS not followed by ';'
            (b"1\t\r\nx\r\n0\r\n\r\n", 100, Err(BadChunk)),
            (b"1;\r\nx\r\n0\r\n\r\n", 100, Err(BadChunk)), // extension without a name
            (b"1; \r\nx\r\n0\r\n\r\n", 100, Err(BadChunk)),
            (b"1;=v\r\nx\r\n0\r\n\r\n", 100, Err(BadChunk)),
            (b"1;a b\r\nx\r\n0\r\n\r\n", 100, Err(BadChunk)), // two tokens
            (b"1;a \r\nx\r\n0\r\n\r\n", 100, Err(BadChunk)),  // BWS then CRLF
            (b"1;a=\r\nx\r\n0\r\n\r\n", 100, Err(BadChunk)),  // '=' without a value
            (b"1;a=b c\r\nx\r\n0\r\n\r\n", 100, Err(BadChunk)),
            (b"1;a=b \r\nx\r\n0\r\n\r\n", 100, Err(BadChunk)),
            (b"1;a=\"b\r\nx\r\n0\r\n\r\n", 100, Err(BadChunk)), // unterminated quote
            (b"1;a=\"b\"c\r\nx\r\n0\r\n\r\n", 100, Err(BadChunk)),
            (b"1;a=\"\x7f\"\r\nx\r\n0\r\n\r\n", 100, Err(BadChunk)),
            (b"1;a@b\r\nx\r\n0\r\n\r\n", 100, Err(BadChunk)), // '@' is not a tchar
            (b"1;;a\r\nx\r\n0\r\n\r\n", 100, Err(BadChunk)),
            (b"1,a\r\nx\r\n0\r\n\r\n", 100, Err(BadChunk)),
            (b"0 \r\n\r\n", 100, Err(BadChunk)), // on the last chunk too
            (b"0;\r\n\r\n", 100, Err(BadChunk)),
            (b"0\r\nX\r\n\r\n", 100, Err(BadChunk)), // trailer without colon
            (b"0\r\n: v\r\n\r\n", 100, Err(BadChunk)), // trailer with empty name
            (b"0\r\nA: b\r\n c\r\n\r\n", 100, Err(BadChunk)), // obs-fold in trailers
            (b"0\r\nA: \x00\r\n\r\n", 100, Err(BadChunk)), // NUL in trailer value
            (b"0\r\nA b: c\r\n\r\n", 100, Err(BadChunk)), // space in trailer name
            (&long_ext, 100, Err(BadChunk)),         // chunk line 4097 bytes
            (&ok_ext, 100, Ok(Some(4106))),          // chunk line 4096 bytes
            (&big_trailer, 100, Err(TrailersTooLarge)),
            (b"65\r\n", 100, Err(BodyTooLarge)), // one chunk over the limit
            (b"64\r\n", 100, Ok(None)),          // at the limit: incomplete
        ];
        for (input, max, want) in table {
            for step in [0, 1, 7] {
                let (got, _) = decode_in_steps(input, step, *max);
                assert_eq!(
                    got,
                    *want,
                    "{:?} step {step}",
                    String::from_utf8_lossy(input)
                );
            }
        }
        // The limit counts the sum of chunks: 50 + 50 fits 100, one byte more does not.
        let two = |last: &str| {
            format!(
                "32\r\n{}\r\n{last}\r\n{}\r\n0\r\n\r\n",
                "a".repeat(50),
                "b".repeat(50)
            )
        };
        assert!(matches!(
            decode_in_steps(two("32").as_bytes(), 0, 100).0,
            Ok(Some(_))
        ));
        assert_eq!(
            decode_in_steps(two("33").as_bytes(), 0, 100).0,
            Err(BodyTooLarge)
        );
    }

    #[test]
    fn extensions_the_grammar_allows() {
        let ok: &[&[u8]] = &[
            b"1;a\r\nx\r\n0\r\n\r\n",
            b"1;a=b\r\nx\r\n0\r\n\r\n",
            b"1 ;a\r\nx\r\n0\r\n\r\n",
            b"1\t; a = b ;c\r\nx\r\n0\r\n\r\n",
            b"1;a=\"b c;d\"\r\nx\r\n0\r\n\r\n",
            b"1;a=\"q\\\"\\\\\";b\r\nx\r\n0\r\n\r\n",
            b"1;a=\"\" ;b=c\r\nx\r\n0\r\n\r\n",
            b"1;a=\"\xe9\"\r\nx\r\n0\r\n\r\n", // obs-text
            b"1;!#$%&'*+-.^_`|~09azAZ=v\r\nx\r\n0\r\n\r\n",
            b"000;a=b\r\n\r\n",
        ];
        for input in ok {
            for step in [0, 1, 3] {
                let (got, body) = decode_in_steps(input, step, 100);
                assert_eq!(
                    got,
                    Ok(Some(input.len())),
                    "{:?} step {step}",
                    String::from_utf8_lossy(input)
                );
                assert!(body.len() <= 1);
            }
        }
    }
}
