//! Content-coding negotiation (RFC 9110 §12.5.3): which of the precompressed variants on disk
//! (`.br`, `.gz`) or identity to send, from Accept-Encoding q-values.

use super::trim_ows;

/// A content coding Gale can serve.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Encoding {
    /// No coding: the file as is.
    Identity,
    /// `gzip` (`x-gzip` is accepted as an alias).
    Gzip,
    /// `br`.
    Brotli,
}

impl Encoding {
    /// The Content-Encoding / Accept-Encoding token: `identity`, `gzip`, `br`.
    pub fn token(&self) -> &'static str {
        match self {
            Encoding::Identity => "identity",
            Encoding::Gzip => "gzip",
            Encoding::Brotli => "br",
        }
    }

    /// The file-name suffix of the precompressed variant: `""`, `".gz"`, `".br"`.
    pub fn suffix(&self) -> &'static str {
        match self {
            Encoding::Identity => "",
            Encoding::Gzip => ".gz",
            Encoding::Brotli => ".br",
        }
    }

    /// Preference on equal q: Brotli > Gzip > Identity.
    fn rank(self) -> u8 {
        match self {
            Encoding::Identity => 0,
            Encoding::Gzip => 1,
            Encoding::Brotli => 2,
        }
    }
}

/// Picks the best of `available` (Identity is always available too) for `accept_encoding`.
///
/// Highest q wins, ties go Brotli > Gzip > Identity. A coding not listed takes the q of `*`,
/// or is unacceptable without `*`. Identity not listed (nor `*`) stays acceptable at the
/// lowest non-zero q listed, so it never beats a coding the client asked for (as the
/// `negotiator` package does); it is refused only by `identity;q=0`, or `*;q=0` with no
/// `identity` entry. Tokens are case-insensitive; an element with an invalid
/// q is skipped; a token listed twice takes its highest q. No header means Identity; `None`
/// means nothing is acceptable (the caller may send identity anyway, or 406).
///
/// ```
/// use gale_http::files::{negotiate, Encoding};
///
/// let have = [Encoding::Gzip, Encoding::Brotli];
/// assert_eq!(negotiate(Some(b"gzip, deflate, br"), &have), Some(Encoding::Brotli));
/// assert_eq!(negotiate(Some(b"br;q=0.5, gzip"), &have), Some(Encoding::Gzip));
/// assert_eq!(negotiate(None, &have), Some(Encoding::Identity));
/// assert_eq!(negotiate(Some(b"identity;q=0"), &[]), None);
/// ```
pub fn negotiate(accept_encoding: Option<&[u8]>, available: &[Encoding]) -> Option<Encoding> {
    let Some(field) = accept_encoding else {
        return Some(Encoding::Identity);
    };
    // q in thousandths per coding as listed, and for `*`; None = not listed.
    let mut listed: [Option<u16>; 3] = [None; 3];
    let mut star = None;
    let mut lowest = 1000;
    for element in field.split(|&b| b == b',') {
        let mut parts = element.split(|&b| b == b';');
        let token = trim_ows(parts.next().unwrap_or_default());
        let Some(q) = weight(parts) else { continue };
        if q > 0 && !token.is_empty() {
            lowest = lowest.min(q);
        }
        // Compared in place: lowercasing each token into a new Vec was an allocation per listed coding.
        let is = |name: &[u8]| token.eq_ignore_ascii_case(name);
        let slot = if token == b"*" {
            &mut star
        } else if is(b"identity") {
            &mut listed[0]
        } else if is(b"gzip") || is(b"x-gzip") {
            &mut listed[1]
        } else if is(b"br") {
            &mut listed[2]
        } else {
            continue;
        };
        *slot = Some(slot.map_or(q, |old: u16| old.max(q)));
    }
    let q_of = |enc: Encoding| -> u16 {
        let own = listed[usize::from(enc.rank())];
        match (enc, own, star) {
            (_, Some(q), _) => q,
            (_, None, Some(q)) => q,
            (Encoding::Identity, None, None) => lowest,
            (_, None, None) => 0,
        }
    };
    std::iter::once(Encoding::Identity)
        .chain(available.iter().copied())
        .map(|enc| (q_of(enc), enc.rank(), enc))
        .filter(|&(q, _, _)| q > 0)
        .max_by_key(|&(q, rank, _)| (q, rank))
        .map(|(_, _, enc)| enc)
}

/// The q of an element's parameters (default 1000 = 1.0); None if a q is malformed.
fn weight<'a>(params: impl Iterator<Item = &'a [u8]>) -> Option<u16> {
    let mut q = 1000;
    for param in params {
        let param = trim_ows(param);
        let Some(eq) = param.iter().position(|&b| b == b'=') else {
            continue;
        };
        if trim_ows(&param[..eq]).eq_ignore_ascii_case(b"q") {
            q = qvalue(trim_ows(&param[eq + 1..]))?;
        }
    }
    Some(q)
}

/// RFC 9110 §12.4.2 qvalue: `0[.ddd]` or `1[.000]`, in thousandths.
fn qvalue(v: &[u8]) -> Option<u16> {
    let (int, frac) = match v.iter().position(|&b| b == b'.') {
        Some(dot) => (&v[..dot], &v[dot + 1..]),
        None => (v, &[][..]),
    };
    if frac.len() > 3 || !frac.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let thousandths = frac
        .iter()
        .chain(std::iter::repeat(&b'0'))
        .take(3)
        .fold(0u16, |n, &d| n * 10 + u16::from(d - b'0'));
    match int {
        b"0" => Some(thousandths),
        b"1" if thousandths == 0 => Some(1000),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use Encoding::{Brotli, Gzip, Identity};

    #[test]
    fn q_value_matrix() {
        let all: &[Encoding] = &[Gzip, Brotli];
        let gz: &[Encoding] = &[Gzip];
        let none: &[Encoding] = &[];
        // (Accept-Encoding, available, want)
        let table: &[(Option<&str>, &[Encoding], Option<Encoding>)] = &[
            (None, all, Some(Identity)),
            (Some(""), all, Some(Identity)),
            (Some("gzip"), all, Some(Gzip)),
            (Some("br"), all, Some(Brotli)),
            (Some("gzip, br"), all, Some(Brotli)),
            (Some("br, gzip"), all, Some(Brotli)),
            (Some("gzip, deflate, br, zstd"), all, Some(Brotli)),
            (Some("gzip, br"), gz, Some(Gzip)),
            (Some("br"), gz, Some(Identity)),
            (Some("br"), none, Some(Identity)),
            (Some("gzip;q=1.0, br;q=0.9"), all, Some(Gzip)),
            (Some("gzip;q=0.5, br;q=0.8"), all, Some(Brotli)),
            (Some("gzip;q=0.5, identity;q=0.6"), gz, Some(Identity)),
            (Some("gzip;q=0.5"), gz, Some(Gzip)),
            (Some("gzip;q=0.5, br;q=0.2"), gz, Some(Gzip)),
            (Some("gzip;q=0.5, br;q=0.2"), none, Some(Identity)),
            (Some("gzip;q=0.5, identity;q=0.4"), gz, Some(Gzip)),
            (Some("gzip;q=0.5, identity"), gz, Some(Identity)),
            (Some("gzip;q=1, identity;q=1"), gz, Some(Gzip)),
            (Some("gzip;q=0"), all, Some(Identity)),
            (Some("gzip;q=0.001"), gz, Some(Gzip)),
            (Some("br;q=0, gzip;q=0"), all, Some(Identity)),
            (Some("*"), all, Some(Brotli)),
            (Some("*"), none, Some(Identity)),
            (Some("*;q=0.5, gzip"), all, Some(Gzip)),
            (Some("*;q=0"), all, None),
            (Some("*;q=0"), none, None),
            (Some("*;q=0, gzip"), all, Some(Gzip)),
            (Some("*;q=0, identity"), all, Some(Identity)),
            (Some("*;q=0, identity;q=0.1"), gz, Some(Identity)),
            (Some("identity;q=0"), all, None),
            (Some("identity;q=0"), none, None),
            (Some("identity;q=0, gzip"), all, Some(Gzip)),
            (Some("identity;q=0, br"), gz, None),
            (Some("identity;q=0, *"), gz, Some(Gzip)),
            (Some("identity;q=0, *;q=0.1"), none, None),
            (Some("GZIP"), gz, Some(Gzip)),
            (Some("Br;Q=0.9"), all, Some(Brotli)),
            (Some("x-gzip"), all, Some(Gzip)),
            (Some("  gzip ; q=0.7 ,br ;q = 0.6 "), all, Some(Gzip)),
            (Some("gzip;level=9;q=0.4, br;q=0.3"), all, Some(Gzip)),
            (Some(",,gzip,,"), gz, Some(Gzip)),
            (Some("gzip;q=2, br"), all, Some(Brotli)),
            (Some("gzip;q=0.5555"), gz, Some(Identity)),
            (Some("zstd;q=0.1, gzip"), gz, Some(Gzip)),
            (Some("zstd;q=0.1, gzip"), none, Some(Identity)),
            (Some("gzip;q=abc"), gz, Some(Identity)),
            (Some("gzip;q=1.001"), gz, Some(Identity)),
            (Some("gzip;q=, identity;q=0"), gz, None),
            (Some("gzip;q=0, gzip;q=0.5"), gz, Some(Gzip)),
            (Some("compress, deflate"), all, Some(Identity)),
            (Some("br;q=0.5, *;q=0.9"), all, Some(Gzip)),
        ];
        for (header, available, want) in table {
            let got = negotiate(header.map(str::as_bytes), available);
            assert_eq!(got, *want, "{header:?} with {available:?}");
        }
    }

    #[test]
    fn tokens_and_suffixes() {
        let table = [
            (Identity, "identity", ""),
            (Gzip, "gzip", ".gz"),
            (Brotli, "br", ".br"),
        ];
        for (enc, token, suffix) in table {
            assert_eq!((enc.token(), enc.suffix()), (token, suffix));
        }
        let table: &[(&str, Option<u16>)] = &[
            ("0", Some(0)),
            ("1", Some(1000)),
            ("0.5", Some(500)),
            ("0.25", Some(250)),
            ("0.125", Some(125)),
            ("1.000", Some(1000)),
            ("1.", Some(1000)),
            ("0.", Some(0)),
            ("1.5", None),
            ("0.1234", None),
            (".5", None),
            ("", None),
            ("-1", None),
        ];
        for (v, want) in table {
            assert_eq!(qvalue(v.as_bytes()), *want, "{v}");
        }
    }
}
