//! Choosing a permessage-deflate offer (RFC 7692 §5 and §7.1) from the raw
//! `Sec-WebSocket-Extensions` header values: a small parser for the RFC 6455 §9.1 grammar.

use super::{DeflateConfig, DeflateParams, MIN_SERVER_WINDOW_BITS};

/// Picks the first acceptable `permessage-deflate` offer from the raw
/// `Sec-WebSocket-Extensions` values (clients list offers in order of preference). Returns
/// `None` when nothing acceptable was offered. Malformed offers, offers with unknown or
/// repeated parameters and out-of-range window bits are skipped, not errors: the connection
/// then simply goes uncompressed.
///
/// ```
/// use gale_ws::{negotiate, DeflateConfig};
/// let offers: &[u8] = b"permessage-deflate; server_max_window_bits=8, \
///                       permessage-deflate; server_max_window_bits=10; client_max_window_bits";
/// let p = negotiate(&[offers], &DeflateConfig::default()).unwrap();
/// assert_eq!((p.server_max_window_bits, p.client_max_window_bits), (10, 15));
/// assert_eq!(negotiate(&[b"x-webkit-deflate-frame"], &DeflateConfig::default()), None);
/// ```
pub fn negotiate(extensions: &[&[u8]], cfg: &DeflateConfig) -> Option<DeflateParams> {
    for value in extensions {
        let mut p = Parser { s: value, i: 0 };
        while !p.done() {
            let offer = p.offer();
            if let Some(params) = offer.and_then(|o| accept(&o, cfg)) {
                return Some(params);
            }
        }
    }
    None
}

/// The parameters of one `permessage-deflate` offer.
#[derive(Default)]
struct Offer {
    server_no_context_takeover: bool,
    client_no_context_takeover: bool,
    server_max_window_bits: Option<u8>,
    /// `Some(None)`: offered without a value (the client supports the parameter).
    client_max_window_bits: Option<Option<u8>>,
}

/// The server's answer to a well-formed offer, or `None` to decline it.
fn accept(o: &Offer, cfg: &DeflateConfig) -> Option<DeflateParams> {
    let server_cap = cfg.server_max_window_bits.clamp(MIN_SERVER_WINDOW_BITS, 15);
    let client_cap = cfg.client_max_window_bits.clamp(8, 15);
    let server_bits = match o.server_max_window_bits {
        Some(v) if v < MIN_SERVER_WINDOW_BITS => return None,
        Some(v) => v.min(server_cap),
        None => server_cap,
    };
    let client_bits = match o.client_max_window_bits {
        Some(Some(v)) => v.min(client_cap),
        Some(None) => client_cap,
        // The client cannot be told to use a smaller window, so it would use 15.
        None if client_cap < 15 => return None,
        None => 15,
    };
    Some(DeflateParams {
        server_no_context_takeover: o.server_no_context_takeover || cfg.server_no_context_takeover,
        client_no_context_takeover: o.client_no_context_takeover || cfg.client_no_context_takeover,
        server_max_window_bits: server_bits,
        client_max_window_bits: client_bits,
        server_max_window_bits_offered: o.server_max_window_bits.is_some(),
    })
}

/// A parameter value: absent, or the value after unquoting, as a window size when it is one.
enum Value {
    Absent,
    Bits(u8),
    Other,
}

struct Parser<'a> {
    s: &'a [u8],
    i: usize,
}

impl<'a> Parser<'a> {
    fn done(&mut self) -> bool {
        self.ows();
        self.i >= self.s.len()
    }

    /// Parses one extension up to and including its `,`. `Some` only for a well-formed
    /// `permessage-deflate` offer; anything else is skipped to the next `,`.
    fn offer(&mut self) -> Option<Offer> {
        let parsed = self.try_offer();
        if parsed.is_err() {
            self.skip_to_comma();
        }
        parsed.ok().flatten()
    }

    /// `Err` for malformed syntax, `Ok(None)` for another extension or unacceptable params.
    fn try_offer(&mut self) -> Result<Option<Offer>, ()> {
        let name = self.token()?;
        let ours = name.eq_ignore_ascii_case(b"permessage-deflate");
        let mut offer = Offer::default();
        let mut ok = true;
        loop {
            self.ows();
            match self.peek() {
                None => break,
                Some(b',') => {
                    self.i += 1;
                    break;
                }
                Some(b';') => self.i += 1,
                Some(_) => return Err(()),
            }
            self.ows();
            let param = self.token()?;
            self.ows();
            let value = if self.peek() == Some(b'=') {
                self.i += 1;
                self.ows();
                self.value()?
            } else {
                Value::Absent
            };
            ok &= !ours || set(&mut offer, param, value);
        }
        Ok((ours && ok).then_some(offer))
    }

    fn peek(&self) -> Option<u8> {
        self.s.get(self.i).copied()
    }

    fn ows(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t')) {
            self.i += 1;
        }
    }

    fn token(&mut self) -> Result<&'a [u8], ()> {
        let start = self.i;
        while self.peek().is_some_and(is_tchar) {
            self.i += 1;
        }
        if self.i == start {
            return Err(());
        }
        let s: &'a [u8] = self.s;
        Ok(&s[start..self.i])
    }

    /// A token or quoted-string (with `\` escapes), read as a window size when it is 8..=15
    /// written without leading zeros.
    fn value(&mut self) -> Result<Value, ()> {
        let mut digits = 0u32;
        let mut n = 0u32;
        let mut other = false;
        let mut push = |b: u8| {
            if b.is_ascii_digit() && !(digits == 0 && b == b'0') && digits < 3 {
                n = n * 10 + u32::from(b - b'0');
                digits += 1;
            } else {
                other = true;
            }
        };
        if self.peek() == Some(b'"') {
            self.i += 1;
            loop {
                match self.peek() {
                    None => return Err(()),
                    Some(b'"') => break,
                    Some(b'\\') => {
                        self.i += 1;
                        push(self.peek().ok_or(())?);
                    }
                    Some(b) => push(b),
                }
                self.i += 1;
            }
            self.i += 1;
        } else {
            let tok = self.token()?;
            tok.iter().for_each(|&b| push(b));
        }
        Ok(match n {
            8..=15 if !other && digits > 0 => Value::Bits(n as u8),
            _ => Value::Other,
        })
    }

    /// Skips past the next `,` outside a quoted string (or to the end).
    fn skip_to_comma(&mut self) {
        let mut quoted = false;
        while let Some(b) = self.peek() {
            self.i += 1;
            match b {
                b'\\' if quoted => self.i += 1,
                b'"' => quoted = !quoted,
                b',' if !quoted => return,
                _ => {}
            }
        }
    }
}

/// Records one parameter; false when it makes the offer unacceptable (unknown, repeated,
/// or a bad value).
fn set(o: &mut Offer, name: &[u8], value: Value) -> bool {
    let flag = |f: &mut bool| !std::mem::replace(f, true) && matches!(value, Value::Absent);
    if name.eq_ignore_ascii_case(b"server_no_context_takeover") {
        flag(&mut o.server_no_context_takeover)
    } else if name.eq_ignore_ascii_case(b"client_no_context_takeover") {
        flag(&mut o.client_no_context_takeover)
    } else if name.eq_ignore_ascii_case(b"server_max_window_bits") {
        match value {
            Value::Bits(b) if o.server_max_window_bits.is_none() => {
                o.server_max_window_bits = Some(b);
                true
            }
            _ => false,
        }
    } else if name.eq_ignore_ascii_case(b"client_max_window_bits") {
        let v = match value {
            Value::Bits(b) => Some(b),
            Value::Absent => None,
            Value::Other => return false,
        };
        o.client_max_window_bits.replace(v).is_none()
    } else {
        false
    }
}

/// RFC 9110 token characters.
fn is_tchar(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b)
}
