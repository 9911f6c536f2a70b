//! Fuzz `Router::insert` with arbitrary patterns: it must never panic, and every accepted
//! pattern must then be findable by itself (as a path) with in-bounds spans.
#![no_main]

use gale_router::{Found, Method, MethodSel, Router, RouterOptions};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&sel, rest)) = data.split_first() else {
        return;
    };
    let opts = RouterOptions {
        case_sensitive: sel & 1 != 0,
        strict: sel & 2 != 0,
    };
    let mut router = Router::new(opts);
    let mut accepted = Vec::new();
    // Newline-separated patterns; the method rotates through All and the first byte's pick.
    for (k, chunk) in rest.split(|&b| b == b'\n').take(64).enumerate() {
        let pattern = String::from_utf8_lossy(chunk);
        let method = match k % 4 {
            0 => MethodSel::All,
            n => MethodSel::One(Method::VARIANTS[(n + usize::from(sel >> 2)) % 9]),
        };
        match router.insert(method, &pattern, k) {
            Ok(names) => accepted.push((pattern.into_owned(), method, names.len(), k)),
            Err(e) => assert!(!e.message().is_empty()),
        }
    }
    assert_eq!(router.len(), accepted.len());
    let mut params = Vec::with_capacity(router.max_params());
    for (pattern, method, _, _) in &accepted {
        let token = match method {
            MethodSel::One(m) => m.as_str(),
            MethodSel::All => "PURGE",
        };
        // Every accepted pattern matches itself read as a path: statics are literal, `:x`
        // and `*x` are non-empty text. Another route may win, but something must accept.
        let found = router.find(token.as_bytes(), pattern.as_bytes(), &mut params);
        for &(s, e) in &params {
            assert!(s <= e && e as usize <= pattern.len());
        }
        match found {
            Found::Route(&k) => {
                let names = accepted.iter().find(|a| a.3 == k).map(|a| a.2);
                assert_eq!(Some(params.len()), names, "one span per name of route {k}");
            }
            Found::MethodNotAllowed { .. } | Found::NotFound => {
                panic!("accepted pattern {pattern:?} ({token}) does not match itself: {found:?}")
            }
        }
    }
});
