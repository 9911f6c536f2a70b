//! Conditional requests (RFC 9110 §13): the validators Gale sends (weak ETag, Last-Modified)
//! and the precondition verdict — 304, 412 or go ahead — from the request's If-* fields.

use super::trim_ows;
use std::time::{Duration, UNIX_EPOCH};

/// Last second httpdate can format (9999-12-31T23:59:59Z); it panics past it.
const MAX_SECS: u64 = 253_402_300_799;

/// The verdict of [`evaluate`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Precondition {
    /// Serve the request normally (then look at Range / If-Range).
    Proceed,
    /// 304 Not Modified: send the validators, no body.
    NotModified,
    /// 412 Precondition Failed.
    Failed,
}

/// The raw values of a request's conditional header fields, `None` when absent.
#[derive(Clone, Copy, Debug, Default)]
pub struct Conditionals<'a> {
    /// `If-Match`.
    pub if_match: Option<&'a [u8]>,
    /// `If-None-Match`.
    pub if_none_match: Option<&'a [u8]>,
    /// `If-Modified-Since`.
    pub if_modified_since: Option<&'a [u8]>,
    /// `If-Unmodified-Since`.
    pub if_unmodified_since: Option<&'a [u8]>,
    /// The method is GET or HEAD (If-Modified-Since applies only to them, and a matching
    /// If-None-Match means 304 for them but 412 otherwise).
    pub is_get_or_head: bool,
}

/// Evaluates the preconditions for an existing file with `etag` and Last-Modified
/// `last_modified_secs`, in RFC 9110 §13.2.2 order: If-Match, else If-Unmodified-Since; then
/// If-None-Match, else If-Modified-Since (GET/HEAD only).
///
/// If-Match compares strongly (a weak `etag` only matches `*`), If-None-Match weakly.
/// An entity-tag list element that does not parse matches nothing; a date that does not parse
/// is ignored.
///
/// ```
/// use gale_http::files::{evaluate, http_date, weak_etag, Conditionals, Precondition};
///
/// let etag = weak_etag(10, 1_000);
/// let since = http_date(1_000);
/// let c = Conditionals { if_modified_since: Some(since.as_bytes()), is_get_or_head: true, ..Default::default() };
/// assert_eq!(evaluate(&c, &etag, 1_000), Precondition::NotModified);
/// assert_eq!(evaluate(&c, &etag, 1_001), Precondition::Proceed);
/// let c = Conditionals { if_match: Some(br#""abc""#), ..c };
/// assert_eq!(evaluate(&c, &etag, 1_000), Precondition::Failed);
/// ```
pub fn evaluate(c: &Conditionals, etag: &str, last_modified_secs: u64) -> Precondition {
    let etag = parse_tag(etag.as_bytes());
    if let Some(field) = c.if_match {
        if !list_matches(field, etag, true) {
            return Precondition::Failed;
        }
    } else if let Some(date) = c.if_unmodified_since.and_then(parse_date) {
        if last_modified_secs > date {
            return Precondition::Failed;
        }
    }
    if let Some(field) = c.if_none_match {
        if list_matches(field, etag, false) {
            return if c.is_get_or_head {
                Precondition::NotModified
            } else {
                Precondition::Failed
            };
        }
    } else if c.is_get_or_head {
        if let Some(date) = c.if_modified_since.and_then(parse_date) {
            if last_modified_secs <= date {
                return Precondition::NotModified;
            }
        }
    }
    Precondition::Proceed
}

/// The ETag Gale sends: `W/"<size hex>-<mtime seconds hex>"`. Weak, because two writes within
/// one second that keep the size look alike.
///
/// ```
/// assert_eq!(gale_http::files::weak_etag(4096, 1_700_000_000), r#"W/"1000-6553f100""#);
/// ```
pub fn weak_etag(size: u64, mtime_secs: u64) -> String {
    format!("W/\"{size:x}-{mtime_secs:x}\"")
}

/// If-Range (RFC 9110 §13.1.5): true when the Range may be honoured. An entity-tag must equal
/// `etag` strongly (so with weak ETags only a date works); an HTTP-date must equal
/// `last_modified_secs`. Anything else means: ignore Range, send the whole file.
///
/// ```
/// use gale_http::files::{http_date, if_range_allows, weak_etag};
///
/// let etag = weak_etag(1, 2);
/// assert!(if_range_allows(http_date(2).as_bytes(), &etag, 2));
/// assert!(!if_range_allows(etag.as_bytes(), &etag, 2));
/// ```
pub fn if_range_allows(if_range: &[u8], etag: &str, last_modified_secs: u64) -> bool {
    let value = trim_ows(if_range);
    // §13.1.5: an entity-tag starts with DQUOTE or W/; a date never does.
    if value.starts_with(b"\"") || value.starts_with(b"W/") {
        return match (parse_tag(value), parse_tag(etag.as_bytes())) {
            (Some((false, a)), Some((false, b))) => a == b,
            _ => false,
        };
    }
    parse_date(value) == Some(last_modified_secs)
}

/// IMF-fixdate for a unix time, e.g. `Sat, 21 Nov 2026 06:26:11 GMT` (clamped to year 9999).
///
/// ```
/// assert_eq!(gale_http::files::http_date(1_795_242_371), "Sat, 21 Nov 2026 06:26:11 GMT");
/// ```
pub fn http_date(secs: u64) -> String {
    httpdate::fmt_http_date(UNIX_EPOCH + Duration::from_secs(secs.min(MAX_SECS)))
}

/// An HTTP-date (any of the three RFC 9110 forms) as unix seconds; None if it does not parse.
fn parse_date(value: &[u8]) -> Option<u64> {
    let s = std::str::from_utf8(trim_ows(value)).ok()?;
    let t = httpdate::parse_http_date(s).ok()?;
    Some(t.duration_since(UNIX_EPOCH).ok()?.as_secs())
}

/// One entity-tag, `(weak, opaque)`: `"x"` or `W/"x"` with nothing around but OWS.
fn parse_tag(value: &[u8]) -> Option<(bool, &[u8])> {
    let value = trim_ows(value);
    let (weak, quoted) = match value.strip_prefix(b"W/") {
        Some(rest) => (true, rest),
        None => (false, value),
    };
    let opaque = quoted.strip_prefix(b"\"")?.strip_suffix(b"\"")?;
    // etagc excludes DQUOTE, controls and space.
    let ok = opaque
        .iter()
        .all(|&b| b == 0x21 || (0x23..=0x7e).contains(&b) || b >= 0x80);
    ok.then_some((weak, opaque))
}

/// Whether `field` (`*` or a comma list of entity-tags) matches `etag` (the file exists, so
/// `*` always does). `strong`: both tags must be strong and equal; else opaque parts equal.
fn list_matches(field: &[u8], etag: Option<(bool, &[u8])>, strong: bool) -> bool {
    if trim_ows(field) == b"*" {
        return true;
    }
    let Some((etag_weak, etag_opaque)) = etag else {
        return false;
    };
    // Opaque tags cannot hold DQUOTE, so splitting on ',' only breaks tags containing a comma,
    // which then fail to parse and match nothing.
    field
        .split(|&b| b == b',')
        .filter_map(parse_tag)
        .any(|(weak, opaque)| opaque == etag_opaque && !(strong && (weak || etag_weak)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use Precondition::{Failed, NotModified, Proceed};

    const LM: u64 = 1_795_242_371;
    const AT: &str = "Sat, 21 Nov 2026 06:26:11 GMT"; // == LM
    const BEFORE: &str = "Sat, 21 Nov 2026 06:26:10 GMT";
    const AFTER: &str = "Sat, 21 Nov 2026 06:26:12 GMT";

    #[test]
    fn matrix() {
        // (if-match, if-none-match, if-modified-since, if-unmodified-since, GET/HEAD, etag, want)
        type Row = (
            Option<&'static str>,
            Option<&'static str>,
            Option<&'static str>,
            Option<&'static str>,
            bool,
            &'static str,
            Precondition,
        );
        let s = r#""s1""#; // a strong etag
        let w = r#"W/"w1""#; // a weak etag
        let table: &[Row] = &[
            (None, None, None, None, true, w, Proceed),
            (None, None, None, None, false, w, Proceed),
            // If-Match alone: strong comparison.
            (Some(r#""s1""#), None, None, None, false, s, Proceed),
            (Some(r#""s2""#), None, None, None, false, s, Failed),
            (Some(r#"W/"s1""#), None, None, None, false, s, Failed),
            (Some(r#""w1""#), None, None, None, true, w, Failed),
            (Some(r#"W/"w1""#), None, None, None, true, w, Failed),
            (Some("*"), None, None, None, true, w, Proceed),
            (Some(" * "), None, None, None, false, s, Proceed),
            (Some(r#""a", "s1""#), None, None, None, false, s, Proceed),
            (Some(r#""a","b" ,	"c""#), None, None, None, false, s, Failed),
            (Some("s1"), None, None, None, false, s, Failed),
            (Some(""), None, None, None, false, s, Failed),
            // If-Unmodified-Since alone.
            (None, None, None, Some(AT), false, w, Proceed),
            (None, None, None, Some(AFTER), false, w, Proceed),
            (None, None, None, Some(BEFORE), false, w, Failed),
            (None, None, None, Some(BEFORE), true, w, Failed),
            (None, None, None, Some("yesterday"), false, w, Proceed),
            (
                None,
                None,
                None,
                Some("Sunday, 06-Nov-94 08:49:37 GMT"),
                false,
                w,
                Failed,
            ),
            (
                None,
                None,
                None,
                Some("Sun Nov  6 08:49:37 1994"),
                false,
                w,
                Failed,
            ),
            // If-Match wins over If-Unmodified-Since.
            (Some("*"), None, None, Some(BEFORE), false, w, Proceed),
            (Some(r#""x""#), None, None, Some(AFTER), false, s, Failed),
            // If-None-Match alone: weak comparison, 304 for GET/HEAD, 412 otherwise.
            (None, Some(r#"W/"w1""#), None, None, true, w, NotModified),
            (None, Some(r#""w1""#), None, None, true, w, NotModified),
            (None, Some(r#"W/"s1""#), None, None, true, s, NotModified),
            (None, Some(r#""w1""#), None, None, false, w, Failed),
            (None, Some(r#""w2""#), None, None, true, w, Proceed),
            (None, Some(r#""w2""#), None, None, false, w, Proceed),
            (None, Some("*"), None, None, true, w, NotModified),
            (None, Some("*"), None, None, false, w, Failed),
            (
                None,
                Some(r#""a", W/"w1", "b""#),
                None,
                None,
                true,
                w,
                NotModified,
            ),
            (None, Some(r#""a",,"b""#), None, None, true, w, Proceed),
            (None, Some("w1"), None, None, true, w, Proceed),
            (None, Some(r#""w1"x"#), None, None, true, w, Proceed),
            // If-Modified-Since alone: GET/HEAD only.
            (None, None, Some(AT), None, true, w, NotModified),
            (None, None, Some(AFTER), None, true, w, NotModified),
            (None, None, Some(BEFORE), None, true, w, Proceed),
            (None, None, Some(AT), None, false, w, Proceed),
            (None, None, Some("not a date"), None, true, w, Proceed),
            (None, None, Some(""), None, true, w, Proceed),
            (
                None,
                None,
                Some(" Sat, 21 Nov 2026 06:26:11 GMT "),
                None,
                true,
                w,
                NotModified,
            ),
            // If-None-Match wins over If-Modified-Since, either way.
            (
                None,
                Some(r#""other""#),
                Some(AFTER),
                None,
                true,
                w,
                Proceed,
            ),
            (
                None,
                Some(r#""w1""#),
                Some(BEFORE),
                None,
                true,
                w,
                NotModified,
            ),
            // Precondition order: 412 from the first pair beats 304 from the second.
            (
                Some(r#""nope""#),
                Some(r#""w1""#),
                None,
                None,
                true,
                w,
                Failed,
            ),
            (None, Some("*"), None, Some(BEFORE), true, w, Failed),
            (Some("*"), Some(r#""w1""#), None, None, true, w, NotModified),
            (Some(r#""s1""#), None, Some(AT), None, true, s, NotModified),
            (None, None, Some(AT), Some(AT), true, w, NotModified),
            (None, None, Some(AT), Some("garbage"), true, w, NotModified),
        ];
        for (i, &(im, inm, ims, ius, gh, etag, want)) in table.iter().enumerate() {
            let c = Conditionals {
                if_match: im.map(str::as_bytes),
                if_none_match: inm.map(str::as_bytes),
                if_modified_since: ims.map(str::as_bytes),
                if_unmodified_since: ius.map(str::as_bytes),
                is_get_or_head: gh,
            };
            assert_eq!(evaluate(&c, etag, LM), want, "row {i}: {c:?} etag {etag}");
        }
    }

    #[test]
    fn if_range() {
        let w = weak_etag(5, LM);
        // (If-Range, etag, allowed)
        let table: &[(&str, &str, bool)] = &[
            (AT, &w, true),
            (BEFORE, &w, false),
            (AFTER, &w, false),
            ("Saturday, 21-Nov-26 06:26:11 GMT", &w, true),
            (&w, &w, false),
            (r#""s""#, r#""s""#, true),
            (r#" "s" "#, r#""s""#, true),
            (r#""s""#, r#""t""#, false),
            (r#"W/"s""#, r#""s""#, false),
            (r#""s""#, r#"W/"s""#, false),
            ("*", r#""s""#, false),
            ("", r#""s""#, false),
            ("garbage", r#""s""#, false),
        ];
        for (value, etag, want) in table {
            assert_eq!(
                if_range_allows(value.as_bytes(), etag, LM),
                *want,
                "{value} vs {etag}"
            );
        }
    }

    #[test]
    fn validators() {
        let table: &[(u64, u64, &str)] = &[
            (0, 0, r#"W/"0-0""#),
            (4096, LM, r#"W/"1000-6b013983""#),
            (
                u64::MAX,
                u64::MAX,
                r#"W/"ffffffffffffffff-ffffffffffffffff""#,
            ),
        ];
        for (size, mtime, want) in table {
            assert_eq!(weak_etag(*size, *mtime), *want);
        }
        assert_eq!(http_date(LM), AT);
        assert_eq!(http_date(0), "Thu, 01 Jan 1970 00:00:00 GMT");
        assert_eq!(http_date(u64::MAX), "Fri, 31 Dec 9999 23:59:59 GMT");
        assert_eq!(parse_date(AT.as_bytes()), Some(LM));
    }
}
