//! Byte ranges (RFC 9110 §14): parsing `Range` against the file size with abuse limits, and
//! the Content-Range and multipart/byteranges framing for 206 and 416 responses.

use super::trim_ows;

/// The verdict of [`parse_range`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ranges {
    /// No usable Range: send the whole file with 200.
    Full,
    /// 206: inclusive `(start, end)` pairs, in request order, each inside the file. One pair is
    /// a single-part 206 with [`content_range`]; several are multipart/byteranges.
    Partial(Vec<(u64, u64)>),
    /// 416 Range Not Satisfiable, with `Content-Range:` [`unsatisfied_range`].
    Unsatisfiable,
}

/// Parses a Range header for a representation of `size` bytes.
///
/// Forms: `bytes=0-499`, `bytes=500-` (to the end), `bytes=-500` (the last 500), and comma
/// lists of them; the unit is case-insensitive, empty list elements are skipped. An end past
/// the file is clipped, a suffix longer than the file means the whole file, a range starting
/// at or past `size` (or a `-0` suffix) is dropped; when every range is dropped the answer is
/// [`Ranges::Unsatisfiable`] (always so for `size == 0`).
///
/// Ignored ([`Ranges::Full`], as RFC 9110 §14.2 allows): another unit, any syntax error
/// (including `last < first`), more than `max_ranges` ranges, or any two satisfiable ranges
/// overlapping — a defence against requests that multiply the work or the response size.
///
/// ```
/// use gale_http::files::{parse_range, Ranges};
///
/// assert_eq!(parse_range(b"bytes=0-99, -100", 1000, 8), Ranges::Partial(vec![(0, 99), (900, 999)]));
/// assert_eq!(parse_range(b"bytes=2000-", 1000, 8), Ranges::Unsatisfiable);
/// assert_eq!(parse_range(b"items=0-1", 1000, 8), Ranges::Full);
/// ```
pub fn parse_range(header: &[u8], size: u64, max_ranges: usize) -> Ranges {
    let header = trim_ows(header);
    let Some(eq) = header.iter().position(|&b| b == b'=') else {
        return Ranges::Full;
    };
    if !trim_ows(&header[..eq]).eq_ignore_ascii_case(b"bytes") {
        return Ranges::Full;
    }
    let mut ranges = Vec::new();
    let mut specs = 0;
    for spec in header[eq + 1..].split(|&b| b == b',').map(trim_ows) {
        if spec.is_empty() {
            continue;
        }
        specs += 1;
        if specs > max_ranges {
            return Ranges::Full;
        }
        match parse_spec(spec, size) {
            Err(()) => return Ranges::Full,
            Ok(Some(range)) => ranges.push(range),
            Ok(None) => {}
        }
    }
    if specs == 0 {
        return Ranges::Full;
    }
    if ranges.is_empty() {
        return Ranges::Unsatisfiable;
    }
    let mut sorted = ranges.clone();
    sorted.sort_unstable();
    if sorted.windows(2).any(|w| w[1].0 <= w[0].1) {
        return Ranges::Full;
    }
    Ranges::Partial(ranges)
}

/// One range-spec: Err on a syntax error, Ok(None) if it is not satisfiable for `size`.
fn parse_spec(spec: &[u8], size: u64) -> Result<Option<(u64, u64)>, ()> {
    let dash = spec.iter().position(|&b| b == b'-').ok_or(())?;
    let (first, last) = (&spec[..dash], &spec[dash + 1..]);
    if first.is_empty() {
        let suffix = digits(last)?;
        return Ok((suffix > 0 && size > 0).then(|| (size - suffix.min(size), size - 1)));
    }
    let first = digits(first)?;
    let last = if last.is_empty() {
        u64::MAX
    } else {
        digits(last)?
    };
    if last < first {
        return Err(());
    }
    Ok((first < size).then(|| (first, last.min(size - 1))))
}

/// 1*DIGIT as u64, saturating: a position past u64::MAX is past any file anyway.
fn digits(b: &[u8]) -> Result<u64, ()> {
    if b.is_empty() || !b.iter().all(u8::is_ascii_digit) {
        return Err(());
    }
    Ok(b.iter().fold(0u64, |n, &d| {
        n.saturating_mul(10).saturating_add(u64::from(d - b'0'))
    }))
}

/// The Content-Range value of a 206 part: `bytes 0-1023/4096`.
///
/// ```
/// assert_eq!(gale_http::files::content_range(0, 1023, 4096), "bytes 0-1023/4096");
/// ```
pub fn content_range(start: u64, end: u64, size: u64) -> String {
    format!("bytes {start}-{end}/{size}")
}

/// The Content-Range value of a 416: `bytes */4096`.
pub fn unsatisfied_range(size: u64) -> String {
    format!("bytes */{size}")
}

/// Appends the head of one multipart/byteranges part (RFC 9110 §14.6):
/// `\r\n--B\r\nContent-Type: T\r\nContent-Range: bytes a-b/size\r\n\r\n`. Every part,
/// the first included, starts with CRLF (an empty preamble), so the body is: for each range
/// its head then its bytes, then [`multipart_closing`]. The response's Content-Type is
/// `multipart/byteranges; boundary=B`.
///
/// ```
/// use gale_http::files::{multipart_closing, multipart_len, multipart_part_head};
///
/// let mut body = Vec::new();
/// multipart_part_head(&mut body, "B", "text/plain", 0, 1, 10);
/// body.extend_from_slice(b"ab");
/// multipart_closing(&mut body, "B");
/// assert_eq!(body, b"\r\n--B\r\nContent-Type: text/plain\r\nContent-Range: bytes 0-1/10\r\n\r\nab\r\n--B--\r\n");
/// assert_eq!(multipart_len("B", "text/plain", &[(0, 1)], 10), body.len() as u64);
/// ```
pub fn multipart_part_head(
    out: &mut Vec<u8>,
    boundary: &str,
    content_type: &str,
    start: u64,
    end: u64,
    size: u64,
) {
    let mut n = itoa::Buffer::new();
    out.extend_from_slice(b"\r\n--");
    out.extend_from_slice(boundary.as_bytes());
    out.extend_from_slice(b"\r\nContent-Type: ");
    out.extend_from_slice(content_type.as_bytes());
    out.extend_from_slice(b"\r\nContent-Range: bytes ");
    out.extend_from_slice(n.format(start).as_bytes());
    out.push(b'-');
    out.extend_from_slice(n.format(end).as_bytes());
    out.push(b'/');
    out.extend_from_slice(n.format(size).as_bytes());
    out.extend_from_slice(b"\r\n\r\n");
}

/// Appends the closing delimiter `\r\n--B--\r\n` after the last part.
pub fn multipart_closing(out: &mut Vec<u8>, boundary: &str) {
    out.extend_from_slice(b"\r\n--");
    out.extend_from_slice(boundary.as_bytes());
    out.extend_from_slice(b"--\r\n");
}

/// Total length of the multipart/byteranges body for `ranges` (heads, bytes and closing), so
/// Content-Length can be written before the parts. Saturates at `u64::MAX` rather than panic.
pub fn multipart_len(boundary: &str, content_type: &str, ranges: &[(u64, u64)], size: u64) -> u64 {
    let mut scratch = Vec::with_capacity(128);
    let mut total = (boundary.len() + 8) as u64; // the closing delimiter
    for &(start, end) in ranges {
        scratch.clear();
        multipart_part_head(&mut scratch, boundary, content_type, start, end, size);
        let part = (end.saturating_sub(start)).saturating_add(1);
        total = total
            .saturating_add(scratch.len() as u64)
            .saturating_add(part);
    }
    total
}

#[cfg(test)]
mod tests {
    use super::*;
    use Ranges::{Full, Unsatisfiable};

    fn p(r: &[(u64, u64)]) -> Ranges {
        Ranges::Partial(r.to_vec())
    }

    #[test]
    fn forms() {
        // (header, size, max_ranges, want)
        let table: &[(&str, u64, usize, Ranges)] = &[
            ("bytes=0-499", 1000, 8, p(&[(0, 499)])),
            ("bytes=500-", 1000, 8, p(&[(500, 999)])),
            ("bytes=-500", 1000, 8, p(&[(500, 999)])),
            ("bytes=0-0", 1000, 8, p(&[(0, 0)])),
            ("bytes=999-999", 1000, 8, p(&[(999, 999)])),
            ("bytes=0-", 1000, 8, p(&[(0, 999)])),
            ("BYTES=1-2", 1000, 8, p(&[(1, 2)])),
            (" bytes = 1-2 ", 1000, 8, p(&[(1, 2)])),
            ("bytes=0-1,4-5", 1000, 8, p(&[(0, 1), (4, 5)])),
            ("bytes=4-5, 0-1", 1000, 8, p(&[(4, 5), (0, 1)])),
            ("bytes=0-1,,\t, 4-5,", 1000, 8, p(&[(0, 1), (4, 5)])),
            ("bytes=0-1,2-3", 1000, 8, p(&[(0, 1), (2, 3)])),
            // Clipping.
            ("bytes=0-5000", 1000, 8, p(&[(0, 999)])),
            (
                "bytes=900-99999999999999999999999",
                1000,
                8,
                p(&[(900, 999)]),
            ),
            ("bytes=-5000", 1000, 8, p(&[(0, 999)])),
            ("bytes=-99999999999999999999999", 1000, 8, p(&[(0, 999)])),
            ("bytes=-1", 1, 8, p(&[(0, 0)])),
            // Unsatisfiable pieces are dropped; all dropped means 416.
            ("bytes=1000-", 1000, 8, Unsatisfiable),
            ("bytes=1000-2000", 1000, 8, Unsatisfiable),
            ("bytes=99999999999999999999999-", 1000, 8, Unsatisfiable),
            ("bytes=-0", 1000, 8, Unsatisfiable),
            ("bytes=1000-1001, 0-1", 1000, 8, p(&[(0, 1)])),
            ("bytes=5000-, -0", 1000, 8, Unsatisfiable),
            ("bytes=0-0", 0, 8, Unsatisfiable),
            ("bytes=0-", 0, 8, Unsatisfiable),
            ("bytes=-1", 0, 8, Unsatisfiable),
            ("bytes=-0", 0, 8, Unsatisfiable),
            // Ignored: syntax, unit.
            ("", 1000, 8, Full),
            ("bytes", 1000, 8, Full),
            ("bytes=", 1000, 8, Full),
            ("bytes= , ,", 1000, 8, Full),
            ("items=0-1", 1000, 8, Full),
            ("bytes2=0-1", 1000, 8, Full),
            ("=0-1", 1000, 8, Full),
            ("bytes=5-4", 1000, 8, Full),
            ("bytes=-", 1000, 8, Full),
            ("bytes=1", 1000, 8, Full),
            ("bytes=a-b", 1000, 8, Full),
            ("bytes=+1-2", 1000, 8, Full),
            ("bytes=1-2-3", 1000, 8, Full),
            ("bytes=1 -2", 1000, 8, Full),
            ("bytes=0-1;x", 1000, 8, Full),
            ("bytes=0-1, x", 1000, 8, Full),
            ("bytes=0-1, 5000-4000", 1000, 8, Full),
            ("bytes=--1", 1000, 8, Full),
            ("bytes=0x1-2", 1000, 8, Full),
            // Ignored: abuse.
            ("bytes=0-1,2-3,4-5", 1000, 2, Full),
            ("bytes=0-1,2-3", 1000, 2, p(&[(0, 1), (2, 3)])),
            ("bytes=0-1", 1000, 0, Full),
            ("bytes=0-1,1000-,2000-,3000-", 1000, 3, Full),
            ("bytes=0-10,5-20", 1000, 8, Full),
            ("bytes=0-10,10-20", 1000, 8, Full),
            ("bytes=0-1,0-1", 1000, 8, Full),
            ("bytes=-100,0-", 1000, 8, Full),
            ("bytes=500-,-500", 1000, 8, Full),
            ("bytes=-500,0-499", 1000, 8, p(&[(500, 999), (0, 499)])),
            ("bytes=0-0,0-0,0-0,0-0", 1000, 100, Full),
        ];
        for (header, size, max, want) in table {
            let got = parse_range(header.as_bytes(), *size, *max);
            assert_eq!(got, *want, "{header:?} size {size} max {max}");
        }
    }

    #[test]
    fn range_values() {
        assert_eq!(content_range(0, 1023, 4096), "bytes 0-1023/4096");
        assert_eq!(content_range(0, 0, 1), "bytes 0-0/1");
        assert_eq!(unsatisfied_range(4096), "bytes */4096");
        assert_eq!(unsatisfied_range(0), "bytes */0");
    }

    #[test]
    fn multipart_body_matches_len() {
        // (boundary, content type, ranges, size)
        type Row = (&'static str, &'static str, &'static [(u64, u64)], u64);
        let table: &[Row] = &[
            ("B", "text/plain", &[(0, 1)], 10),
            (
                "gale-3d6b",
                "text/html; charset=utf-8",
                &[(0, 4), (8, 9)],
                10,
            ),
            ("x", "", &[(9, 9), (0, 0), (3, 6)], 10),
            ("b", "application/octet-stream", &[], 0),
        ];
        assert_eq!(
            multipart_len("b", "t", &[(0, u64::MAX - 1)], u64::MAX),
            u64::MAX
        );
        let file = b"0123456789";
        for (boundary, ct, ranges, size) in table {
            let mut body = Vec::new();
            for &(start, end) in *ranges {
                multipart_part_head(&mut body, boundary, ct, start, end, *size);
                body.extend_from_slice(&file[start as usize..=end as usize]);
            }
            multipart_closing(&mut body, boundary);
            assert_eq!(
                multipart_len(boundary, ct, ranges, *size),
                body.len() as u64,
                "{ranges:?}"
            );
            assert!(body.ends_with(format!("\r\n--{boundary}--\r\n").as_bytes()));
        }
        let mut two = Vec::new();
        multipart_part_head(&mut two, "B", "text/plain", 0, 4, 10);
        two.extend_from_slice(b"01234");
        multipart_part_head(&mut two, "B", "text/plain", 8, 9, 10);
        two.extend_from_slice(b"89");
        multipart_closing(&mut two, "B");
        let want =
            "\r\n--B\r\nContent-Type: text/plain\r\nContent-Range: bytes 0-4/10\r\n\r\n01234\
                    \r\n--B\r\nContent-Type: text/plain\r\nContent-Range: bytes 8-9/10\r\n\r\n89\
                    \r\n--B--\r\n";
        assert_eq!(String::from_utf8(two).unwrap(), want);
    }
}
