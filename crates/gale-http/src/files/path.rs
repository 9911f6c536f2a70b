//! Request path to a safe relative file path: percent-decoding and the refusals that keep a
//! request inside the served directory (traversal, encoded separators, NUL, dotfiles).

/// What to do with a path segment starting with `.` (`.env`, `.git/config`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Dotfiles {
    /// Refuse as [`PathError::Dotfile`]; answer 404, as if the file did not exist.
    #[default]
    Ignore,
    /// Refuse as [`PathError::Dotfile`]; answer 403.
    Deny,
    /// Serve dotfiles like any other file.
    Allow,
}

/// Why [`safe_path`] refused a path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PathError {
    /// A `..` segment (raw or percent-encoded), an encoded `/` (`%2F`), or a backslash
    /// (raw or `%5C`): the path tries to leave, or hide a separator from, the mount.
    Traversal,
    /// Bad percent-encoding, invalid UTF-8 after decoding, NUL, or another control byte.
    Malformed,
    /// A segment starts with `.` and the policy is [`Dotfiles::Ignore`] (404) or
    /// [`Dotfiles::Deny`] (403).
    Dotfile,
}

/// A decoded path, relative to the mount, that cannot name anything outside it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SafePath {
    /// Decoded segments joined with `/`: no leading `/`, no empty, `.` or `..` segment;
    /// `""` is the mount root.
    pub rel: String,
    /// Whether the raw path ended with `/` (a directory request).
    pub trailing_slash: bool,
}

/// Turns the raw, percent-encoded path below the mount prefix (`b"css/a%20b.css"`, may start
/// with `/`, may be empty) into a safe relative path (`"css/a b.css"`).
///
/// Empty segments (`a//b`) and `.` segments are dropped. Refused: any `..` segment however
/// encoded, `%2F`, a backslash raw or as `%5C` ([`PathError::Traversal`]); NUL or any other
/// control byte raw or encoded, a malformed `%XX`, invalid UTF-8 ([`PathError::Malformed`]);
/// a segment starting with `.` unless `dotfiles` is [`Dotfiles::Allow`]
/// ([`PathError::Dotfile`], reported only when nothing else is wrong).
///
/// ```
/// use gale_http::files::{safe_path, Dotfiles, PathError};
///
/// let p = safe_path(b"/docs/./a%20b/", Dotfiles::Ignore).unwrap();
/// assert_eq!((p.rel.as_str(), p.trailing_slash), ("docs/a b", true));
/// assert_eq!(safe_path(b"a/%2e%2E/b", Dotfiles::Allow).unwrap_err(), PathError::Traversal);
/// assert_eq!(safe_path(b".env", Dotfiles::Deny).unwrap_err(), PathError::Dotfile);
/// ```
pub fn safe_path(raw: &[u8], dotfiles: Dotfiles) -> Result<SafePath, PathError> {
    let mut rel = String::with_capacity(raw.len());
    let mut dotfile = false;
    let mut seg = Vec::new();
    for raw_seg in raw.split(|&b| b == b'/') {
        decode_segment(raw_seg, &mut seg)?;
        let s = std::str::from_utf8(&seg).map_err(|_| PathError::Malformed)?;
        match s {
            "" | "." => continue,
            ".." => return Err(PathError::Traversal),
            _ => {}
        }
        dotfile |= s.starts_with('.');
        if !rel.is_empty() {
            rel.push('/');
        }
        rel.push_str(s);
    }
    // Checked last so a path that is also traversal or malformed reports that instead.
    if dotfile && dotfiles != Dotfiles::Allow {
        return Err(PathError::Dotfile);
    }
    Ok(SafePath {
        rel,
        trailing_slash: raw.last() == Some(&b'/'),
    })
}

/// Percent-decodes one raw segment into `out`, refusing bytes that must not reach a file name.
fn decode_segment(raw: &[u8], out: &mut Vec<u8>) -> Result<(), PathError> {
    out.clear();
    let mut i = 0;
    while i < raw.len() {
        let b = match raw[i] {
            b'%' => {
                let hex = raw.get(i + 1..i + 3).ok_or(PathError::Malformed)?;
                let (hi, lo) = (hex_val(hex[0]), hex_val(hex[1]));
                i += 3;
                match (hi, lo) {
                    (Some(hi), Some(lo)) => hi << 4 | lo,
                    _ => return Err(PathError::Malformed),
                }
            }
            b => {
                i += 1;
                b
            }
        };
        match b {
            // A decoded '/' would smuggle a separator past the split; '\' is one on Windows.
            b'/' | b'\\' => return Err(PathError::Traversal),
            // NUL truncates C paths; other controls have no business in a served file name.
            0..=0x1f | 0x7f => return Err(PathError::Malformed),
            _ => out.push(b),
        }
    }
    Ok(())
}

fn hex_val(b: u8) -> Option<u8> {
    (b as char).to_digit(16).map(|d| d as u8)
}

#[cfg(test)]
mod tests {
    use super::*;
    use Dotfiles::{Allow, Deny, Ignore};
    use PathError::{Dotfile, Malformed, Traversal};

    #[test]
    fn refusals_under_every_policy() {
        let table: &[(&[u8], PathError)] = &[
            (b"..", Traversal),
            (b"/..", Traversal),
            (b"../", Traversal),
            (b"a/../b", Traversal),
            (b"a/..", Traversal),
            (b"%2e%2e", Traversal),
            (b"%2E%2e/x", Traversal),
            (b".%2e", Traversal),
            (b"%2e.", Traversal),
            (b"a/.%2E/b", Traversal),
            (b"%2f", Traversal),
            (b"%2F", Traversal),
            (b"a%2Fb", Traversal),
            (b"..%2f", Traversal),
            (b"%5c", Traversal),
            (b"%5C..", Traversal),
            (b"a\\b", Traversal),
            (b"..\\x", Traversal),
            (b"\\", Traversal),
            (b"%00", Malformed),
            (b"a%00.html", Malformed),
            (b"a\0b", Malformed),
            (b"\0", Malformed),
            (b"%0a", Malformed),
            (b"a\rb", Malformed),
            (b"%7f", Malformed),
            (b"%zz", Malformed),
            (b"%", Malformed),
            (b"a%", Malformed),
            (b"%4", Malformed),
            (b"%4g", Malformed),
            (b"%g4", Malformed),
            (b"%e4", Malformed),
            (b"%c3%28", Malformed),
            (b"\xff", Malformed),
            (b"%ed%a0%80", Malformed),
        ];
        for (raw, want) in table {
            for policy in [Ignore, Deny, Allow] {
                let got = safe_path(raw, policy);
                assert_eq!(
                    got,
                    Err(*want),
                    "{:?} {policy:?}",
                    raw.escape_ascii().to_string()
                );
            }
        }
    }

    #[test]
    fn dotfiles_by_policy() {
        // (raw, Ignore/Deny result, Allow rel)
        let table: &[(&[u8], &str)] = &[
            (b".env", ".env"),
            (b"/.env", ".env"),
            (b"a/.git/config", "a/.git/config"),
            (b"%2egit/HEAD", ".git/HEAD"),
            (b"a/...", "a/..."),
            (b".well-known/x", ".well-known/x"),
            (b"a/.hidden/", "a/.hidden"),
        ];
        for (raw, allowed) in table {
            let show = raw.escape_ascii().to_string();
            assert_eq!(safe_path(raw, Ignore), Err(Dotfile), "{show}");
            assert_eq!(safe_path(raw, Deny), Err(Dotfile), "{show}");
            assert_eq!(safe_path(raw, Allow).unwrap().rel, *allowed, "{show}");
        }
        // A later traversal or malformed byte wins over the dotfile.
        assert_eq!(safe_path(b".git/../x", Deny), Err(Traversal));
        assert_eq!(safe_path(b".git/%zz", Ignore), Err(Malformed));
    }

    #[test]
    fn accepted_forms() {
        // (raw, rel, trailing_slash)
        let table: &[(&[u8], &str, bool)] = &[
            (b"", "", false),
            (b"/", "", true),
            (b"//", "", true),
            (b".", "", false),
            (b"./", "", true),
            (b"./a", "a", false),
            (b"a/./b", "a/b", false),
            (b"a/.", "a", false),
            (b"a//b", "a/b", false),
            (b"//a///b//", "a/b", true),
            (b"css/a%20b.css", "css/a b.css", false),
            (b"/css/a%20b.css", "css/a b.css", false),
            (b"dir/", "dir", true),
            (b"a%2Bb+c", "a+b+c", false),
            (b"%E2%82%AC.txt", "\u{20ac}.txt", false),
            (b"\xe2\x82\xac", "\u{20ac}", false),
            (b"a..b/c..", "a..b/c..", false),
            (b"...x", "...x", false),
            (b"a%3fb%23c", "a?b#c", false),
            (b"%41%62", "Ab", false),
        ];
        for (raw, rel, slash) in table {
            let show = raw.escape_ascii().to_string();
            let policy = if rel.starts_with("...") {
                Allow
            } else {
                Ignore
            };
            let got = safe_path(raw, policy).unwrap_or_else(|e| panic!("{show}: {e:?}"));
            assert_eq!(
                (got.rel.as_str(), got.trailing_slash),
                (*rel, *slash),
                "{show}"
            );
        }
    }
}
