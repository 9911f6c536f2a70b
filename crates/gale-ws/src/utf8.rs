//! Incremental UTF-8 validation for text messages that arrive in pieces: std's validator on
//! each piece, carrying an incomplete trailing sequence over to the next piece.

/// Validates a byte stream piece by piece, failing on the first piece that makes it invalid.
#[derive(Debug, Default, Clone)]
pub(crate) struct Utf8 {
    carry: [u8; 4],
    len: u8,
}

impl Utf8 {
    /// Forgets any carried partial character (start of a new message).
    pub(crate) fn reset(&mut self) {
        self.len = 0;
    }

    /// Validates the next piece. `Err` as soon as the bytes seen so far cannot be the start
    /// of valid UTF-8 (so a bad message fails before its end arrives).
    pub(crate) fn feed(&mut self, mut s: &[u8]) -> Result<(), ()> {
        if self.len > 0 {
            // Complete the carried character from the front of this piece.
            let len = usize::from(self.len);
            let need = match self.carry[0] {
                0xc0..=0xdf => 2,
                0xe0..=0xef => 3,
                _ => 4,
            };
            let take = (need - len).min(s.len());
            self.carry[len..len + take].copy_from_slice(&s[..take]);
            self.len += take as u8;
            s = &s[take..];
            match std::str::from_utf8(&self.carry[..usize::from(self.len)]) {
                Ok(_) => self.len = 0,
                // Still a valid prefix and the piece is used up.
                Err(e) if e.error_len().is_none() => return Ok(()),
                Err(_) => return Err(()),
            }
        }
        match std::str::from_utf8(s) {
            Ok(_) => Ok(()),
            Err(e) if e.error_len().is_none() => {
                let rest = &s[e.valid_up_to()..];
                self.carry[..rest.len()].copy_from_slice(rest);
                self.len = rest.len() as u8;
                Ok(())
            }
            Err(_) => Err(()),
        }
    }

    /// Whether the stream ended on a character boundary.
    pub(crate) fn complete(&self) -> bool {
        self.len == 0
    }
}

#[cfg(test)]
mod tests {
    use super::Utf8;

    fn split_everywhere(s: &[u8]) -> Vec<Result<bool, ()>> {
        (0..=s.len())
            .flat_map(|a| (a..=s.len()).map(move |b| (a, b)))
            .map(|(a, b)| {
                let mut v = Utf8::default();
                v.feed(&s[..a])?;
                v.feed(&s[a..b])?;
                v.feed(&s[b..])?;
                Ok(v.complete())
            })
            .collect()
    }

    #[test]
    fn valid_text_at_every_split() {
        let s = "aé€𝄞z".as_bytes();
        assert!(split_everywhere(s).iter().all(|r| *r == Ok(true)));
    }

    #[test]
    fn invalid_text_at_every_split() {
        for bad in [
            &b"a\xffb"[..],
            b"\xc0\x80",                                                       // overlong
            b"\xed\xa0\x80",                                                   // surrogate
            b"\xf4\x90\x80\x80",                                               // above U+10FFFF
            b"\xe2\x82", // truncated at the end
            b"\xce\xba\xe1\xbd\xb9\xcf\x83\xce\xbc\xce\xb5\xed\xa0\x80edited", // Autobahn 6.3.1-ish
        ] {
            let full = std::str::from_utf8(bad).is_ok();
            assert!(!full);
            for r in split_everywhere(bad) {
                assert_ne!(r, Ok(true), "{bad:x?}");
            }
        }
    }

    #[test]
    fn fails_fast_before_the_end() {
        let mut v = Utf8::default();
        assert!(v.feed(b"ok \xf0\x9f").is_ok());
        assert!(v.feed(b"\x28").is_err()); // not a continuation byte
        let mut v = Utf8::default();
        assert!(v.feed(b"\xf5").is_err()); // never a lead byte
    }
}
