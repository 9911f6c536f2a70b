//! The per-second `Date:` header cache: formatted once when the second changes, then copied
//! into every response without allocating (with any fixed lines every response carries, such as `Alt-Svc`).

use std::fmt::{self, Write as _};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// Length of `Date: Sun, 06 Nov 1994 08:49:37 GMT\r\n`.
const LINE_LEN: usize = 37;
/// Last second httpdate can format (9999-12-31T23:59:59Z); it panics past it.
const MAX_SECS: u64 = 253_402_300_799;

/// The `Date` header line for the current second (RFC 9110 IMF-fixdate).
///
/// ```
/// use gale_http::DateCache;
/// use std::time::{Duration, UNIX_EPOCH};
///
/// let t = UNIX_EPOCH + Duration::from_secs(1_795_242_371);
/// let mut date = DateCache::new(t);
/// assert_eq!(date.header_line(), b"Date: Sat, 21 Nov 2026 06:26:11 GMT\r\n");
/// assert!(!date.update(t + Duration::from_millis(500)));
/// assert!(date.update(t + Duration::from_secs(1)));
/// ```
#[derive(Clone, Debug)]
pub struct DateCache {
    secs: u64,
    /// The `Date` line (its first `LINE_LEN` bytes), then the fixed lines from `set_fixed_lines`.
    line: Vec<u8>,
    /// The connection lines of a response that keeps its connection open (`set_keep_alive`); empty for none.
    keep_alive: Vec<u8>,
}

impl DateCache {
    /// A cache holding the line for `now`.
    pub fn new(now: SystemTime) -> Self {
        let mut cache = DateCache {
            secs: 0,
            line: vec![0; LINE_LEN],
            keep_alive: Vec::new(),
        };
        cache.format(clamp_secs(now));
        cache
    }

    /// Moves the cache to `now`; reformats and returns true only if the second changed.
    pub fn update(&mut self, now: SystemTime) -> bool {
        let secs = clamp_secs(now);
        if secs == self.secs {
            return false;
        }
        self.format(secs);
        true
    }

    /// `Date: <IMF-fixdate>\r\n`, then the fixed lines, ready to append to a response head.
    pub fn header_line(&self) -> &[u8] {
        &self.line
    }

    /// The IMF-fixdate alone (`Sun, 06 Nov 1994 08:49:37 GMT`), for a response whose head is fields (HTTP/2, HTTP/3).
    ///
    /// ```
    /// use gale_http::DateCache;
    /// use std::time::{Duration, UNIX_EPOCH};
    ///
    /// let date = DateCache::new(UNIX_EPOCH + Duration::from_secs(784111777));
    /// assert_eq!(date.value(), b"Sun, 06 Nov 1994 08:49:37 GMT");
    /// ```
    pub fn value(&self) -> &[u8] {
        &self.line[6..LINE_LEN - 2]
    }

    /// Field lines (each ending in CRLF) every response carries after `Date`, such as
    /// `Alt-Svc: h3=":443"\r\n`; empty for none.
    ///
    /// ```
    /// use gale_http::DateCache;
    /// use std::time::{Duration, UNIX_EPOCH};
    ///
    /// let mut date = DateCache::new(UNIX_EPOCH + Duration::from_secs(784111777));
    /// date.set_fixed_lines(b"Alt-Svc: h3=\":8443\"\r\n");
    /// assert_eq!(date.header_line(), b"Date: Sun, 06 Nov 1994 08:49:37 GMT\r\nAlt-Svc: h3=\":8443\"\r\n");
    /// ```
    pub fn set_fixed_lines(&mut self, lines: &[u8]) {
        self.line.truncate(LINE_LEN);
        self.line.extend_from_slice(lines);
    }

    /// What a response that keeps its connection open says of it, as node:http writes it: `Connection: keep-alive`
    /// and `Keep-Alive: timeout=<seconds>` (the idle timeout, whole seconds); `None` says nothing (an HTTP/1.1
    /// connection is persistent without it). See [`crate::encode_head`].
    ///
    /// ```
    /// use gale_http::DateCache;
    /// use std::time::UNIX_EPOCH;
    ///
    /// let mut date = DateCache::new(UNIX_EPOCH);
    /// date.set_keep_alive(Some(5));
    /// assert_eq!(date.keep_alive_lines(), b"Connection: keep-alive\r\nKeep-Alive: timeout=5\r\n");
    /// date.set_keep_alive(None);
    /// assert_eq!(date.keep_alive_lines(), b"");
    /// ```
    pub fn set_keep_alive(&mut self, timeout_secs: Option<u64>) {
        self.keep_alive.clear();
        if let Some(secs) = timeout_secs {
            self.keep_alive
                .extend_from_slice(b"Connection: keep-alive\r\nKeep-Alive: timeout=");
            self.keep_alive
                .extend_from_slice(itoa::Buffer::new().format(secs).as_bytes());
            self.keep_alive.extend_from_slice(b"\r\n");
        }
    }

    /// The lines `set_keep_alive` set (empty when none).
    pub fn keep_alive_lines(&self) -> &[u8] {
        &self.keep_alive
    }

    fn format(&mut self, secs: u64) {
        let date = httpdate::HttpDate::from(UNIX_EPOCH + Duration::from_secs(secs));
        let mut w = ArrayWriter {
            buf: &mut self.line[..LINE_LEN],
            pos: 0,
        };
        // Cannot fail: IMF-fixdate is always 29 bytes for years 1970..=9999.
        let _ = write!(w, "Date: {date}\r\n");
        debug_assert_eq!(w.pos, LINE_LEN);
        self.secs = secs;
    }
}

/// Whole seconds since the epoch, clamped to what an HTTP date can express (clocks set before
/// 1970 or past 9999 must not panic the server).
fn clamp_secs(now: SystemTime) -> u64 {
    now.duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
        .min(MAX_SECS)
}

/// `fmt::Write` into a fixed array, so formatting needs no heap.
struct ArrayWriter<'a> {
    buf: &'a mut [u8],
    pos: usize,
}

impl fmt::Write for ArrayWriter<'_> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        let end = self.pos + s.len();
        let dst = self.buf.get_mut(self.pos..end).ok_or(fmt::Error)?;
        dst.copy_from_slice(s.as_bytes());
        self.pos = end;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(secs: u64, millis: u64) -> SystemTime {
        UNIX_EPOCH + Duration::from_secs(secs) + Duration::from_millis(millis)
    }

    #[test]
    fn formats_imf_fixdate() {
        let table: &[(SystemTime, &[u8])] = &[
            (at(0, 0), b"Date: Thu, 01 Jan 1970 00:00:00 GMT\r\n"),
            (
                at(784_111_777, 999),
                b"Date: Sun, 06 Nov 1994 08:49:37 GMT\r\n",
            ),
            (
                at(1_795_242_371, 0),
                b"Date: Sat, 21 Nov 2026 06:26:11 GMT\r\n",
            ),
            (
                UNIX_EPOCH - Duration::from_secs(5),
                b"Date: Thu, 01 Jan 1970 00:00:00 GMT\r\n",
            ),
            (
                at(MAX_SECS + 100, 0),
                b"Date: Fri, 31 Dec 9999 23:59:59 GMT\r\n",
            ),
        ];
        for (t, want) in table {
            assert_eq!(DateCache::new(*t).header_line(), *want);
        }
    }

    #[test]
    fn change_detection() {
        let mut date = DateCache::new(at(100, 0));
        // (time, changed, line contains)
        let steps: &[(SystemTime, bool, &str)] = &[
            (at(100, 999), false, "00:01:40"),
            (at(101, 0), true, "00:01:41"),
            (at(101, 500), false, "00:01:41"),
            (at(99, 0), true, "00:01:39"),
            (at(99, 1), false, "00:01:39"),
        ];
        for (t, changed, needle) in steps {
            assert_eq!(date.update(*t), *changed, "{t:?}");
            let line = std::str::from_utf8(date.header_line()).unwrap();
            assert!(line.contains(needle), "{line}");
        }
    }
}
