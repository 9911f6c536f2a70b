//! Fuzz target: `safe_path` never panics, what it accepts cannot leave the mount (no empty,
//! `.` or `..` segment, no leading `/`, backslash or control byte), and re-parsing it is stable.
#![no_main]

use gale_http::files::{safe_path, Dotfiles, PathError};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let allow = safe_path(data, Dotfiles::Allow);
    for policy in [Dotfiles::Ignore, Dotfiles::Deny] {
        match (safe_path(data, policy), &allow) {
            (Ok(p), Ok(a)) => assert_eq!(&p, a),
            (Err(PathError::Dotfile), Ok(a)) => {
                assert!(a.rel.split('/').any(|s| s.starts_with('.')))
            }
            (Err(e), Err(a)) => assert_eq!(&e, a),
            (got, a) => panic!("{policy:?} gave {got:?}, Allow gave {a:?}"),
        }
    }
    let Ok(p) = allow else { return };
    assert_eq!(p.trailing_slash, data.last() == Some(&b'/'));
    if p.rel.is_empty() {
        return;
    }
    for seg in p.rel.split('/') {
        assert!(!seg.is_empty() && seg != "." && seg != "..", "{:?}", p.rel);
    }
    assert!(!p.rel.bytes().any(|b| b == b'\\' || b < 0x20 || b == 0x7f));
    // rel re-encoded ('%' only; everything else is literal) parses back to itself.
    let again = safe_path(p.rel.replace('%', "%25").as_bytes(), Dotfiles::Allow).unwrap();
    assert_eq!(again.rel, p.rel);
});
