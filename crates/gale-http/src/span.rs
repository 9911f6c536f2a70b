//! Spans: byte ranges into the caller's buffer, so a parsed head borrows nothing and the
//! server can keep the buffer, the spans and the head in separate places.

/// A byte range `start..end` of the buffer given to [`crate::parse_head`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Span {
    /// First byte.
    pub start: u32,
    /// One past the last byte.
    pub end: u32,
}

impl Span {
    /// The bytes of `buf` this span covers. Panics if `buf` is shorter than the parsed head.
    pub fn get<'a>(&self, buf: &'a [u8]) -> &'a [u8] {
        &buf[self.start as usize..self.end as usize]
    }

    /// Length in bytes.
    pub fn len(&self) -> usize {
        (self.end - self.start) as usize
    }

    /// Whether the span covers no bytes.
    pub fn is_empty(&self) -> bool {
        self.start == self.end
    }
}

/// One header field: its name and its value with surrounding whitespace trimmed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HeaderSpan {
    /// Field name, as sent (case preserved).
    pub name: Span,
    /// Field value without leading/trailing SP/HTAB.
    pub value: Span,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn span_accessors() {
        let buf = b"GET /x";
        // (span, bytes, len)
        let table: &[(Span, &[u8], usize)] = &[
            (Span { start: 0, end: 3 }, b"GET", 3),
            (Span { start: 4, end: 6 }, b"/x", 2),
            (Span { start: 6, end: 6 }, b"", 0),
            (Span::default(), b"", 0),
        ];
        for (span, bytes, len) in table {
            assert_eq!(span.get(buf), *bytes);
            assert_eq!(span.len(), *len);
            assert_eq!(span.is_empty(), *len == 0);
        }
    }
}
