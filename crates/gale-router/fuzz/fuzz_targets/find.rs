//! Fuzz `Router::find` on a fixed route set against a naive reference matcher: arbitrary
//! method/path bytes must never panic, spans must be in bounds, and the verdict must agree.
#![no_main]

use std::sync::OnceLock;

use gale_router::{decode_param, Found, Method, MethodSel, Router, RouterOptions};
use libfuzzer_sys::fuzz_target;

const ROUTES: &[(MethodSel, &str)] = &[
    (MethodSel::One(Method::Get), "/"),
    (MethodSel::One(Method::Get), "/about"),
    (MethodSel::One(Method::Post), "/about/"),
    (MethodSel::One(Method::Get), "/Users/:id"),
    (MethodSel::One(Method::Put), "/users/:id"),
    (MethodSel::One(Method::Get), "/users/:id/posts/:post"),
    (MethodSel::One(Method::Get), "/users/me"),
    (MethodSel::One(Method::Head), "/users/me/x"),
    (MethodSel::One(Method::Get), "/a/:x/c"),
    (MethodSel::One(Method::Get), "/a/b/d"),
    (MethodSel::One(Method::Delete), "/a/b/*rest"),
    (MethodSel::One(Method::Get), "/files/*path"),
    (MethodSel::All, "/files/*path"),
    (MethodSel::All, "/any"),
    (MethodSel::One(Method::Patch), "/:a/:b/:c"),
    (MethodSel::One(Method::Get), "/*"),
    (MethodSel::One(Method::Options), "//x"),
    (MethodSel::One(Method::Get), "/%20/:p"),
];

const METHODS: &[&[u8]] = &[
    b"GET", b"HEAD", b"POST", b"PUT", b"DELETE", b"OPTIONS", b"PATCH", b"PURGE", b"get",
];

#[derive(Clone, Copy)]
enum Seg<'a> {
    Static(&'a [u8]),
    Param,
    Wild,
}

/// Reference matcher: split both sides and compare, no tree. Returns the spans on a match.
fn naive(pattern: &str, path: &[u8], opts: RouterOptions) -> Option<Vec<(u32, u32)>> {
    let mut segs: Vec<Seg> = pattern[1..]
        .split('/')
        .map(|s| match s.as_bytes() {
            [b':', ..] => Seg::Param,
            [b'*', ..] => Seg::Wild,
            b => Seg::Static(b),
        })
        .collect();
    if !opts.strict && segs.len() > 1 && matches!(segs.last(), Some(Seg::Static(b""))) {
        segs.pop();
    }
    if path.first() != Some(&b'/') {
        return None;
    }
    let mut path = path;
    if !opts.strict && path.len() > 1 && path.ends_with(b"/") {
        path = &path[..path.len() - 1];
    }
    // (start, end) of each path segment.
    let mut parts = Vec::new();
    let mut start = 1;
    for (i, &b) in path.iter().enumerate().skip(1) {
        if b == b'/' {
            parts.push((start, i));
            start = i + 1;
        }
    }
    parts.push((start, path.len()));
    let mut out = Vec::new();
    for (k, seg) in segs.iter().enumerate() {
        let &(s, e) = parts.get(k)?;
        match *seg {
            Seg::Static(lit) => {
                let got = &path[s..e];
                let eq = if opts.case_sensitive {
                    got == lit
                } else {
                    got.eq_ignore_ascii_case(lit)
                };
                if !eq {
                    return None;
                }
            }
            Seg::Param if s < e => out.push((s as u32, e as u32)),
            Seg::Param => return None,
            Seg::Wild if s < path.len() => {
                out.push((s as u32, path.len() as u32));
                return Some(out);
            }
            Seg::Wild => return None,
        }
    }
    (parts.len() == segs.len()).then_some(out)
}

fn accepts(sel: MethodSel, method: &[u8]) -> bool {
    match sel {
        MethodSel::All => true,
        MethodSel::One(m) => {
            m.as_str().as_bytes() == method || (m == Method::Get && method == b"HEAD")
        }
    }
}

fn options(i: usize) -> RouterOptions {
    RouterOptions {
        case_sensitive: i & 1 != 0,
        strict: i & 2 != 0,
    }
}

/// One router per option combination, built once, plus which fixed routes it accepted (in
/// case some collide under some options).
fn routers() -> &'static [(Router<usize>, Vec<usize>)] {
    static ROUTERS: OnceLock<Vec<(Router<usize>, Vec<usize>)>> = OnceLock::new();
    ROUTERS.get_or_init(|| {
        (0..4)
            .map(|o| {
                let mut router = Router::new(options(o));
                let live = ROUTES
                    .iter()
                    .enumerate()
                    .filter(|&(i, &(m, p))| router.insert(m, p, i).is_ok())
                    .map(|(i, _)| i)
                    .collect();
                (router, live)
            })
            .collect()
    })
}

fuzz_target!(|data: &[u8]| {
    let Some((&sel, path)) = data.split_first() else {
        return;
    };
    let opts = options(usize::from(sel >> 4) & 3);
    let method = METHODS[usize::from(sel & 0x0f) % METHODS.len()];
    let (router, live) = &routers()[usize::from(sel >> 4) & 3];

    let mut params = Vec::new();
    let found = router.find(method, path, &mut params);
    for &(s, e) in &params {
        assert!(
            s <= e && e as usize <= path.len(),
            "span {s}..{e} of {}",
            path.len()
        );
        let mut out = Vec::new();
        let _ = decode_param(&path[s as usize..e as usize], &mut out);
    }
    let matching: Vec<usize> = live
        .iter()
        .copied()
        .filter(|&i| naive(ROUTES[i].1, path, opts).is_some())
        .collect();
    let any_accepts = matching.iter().any(|&i| accepts(ROUTES[i].0, method));
    match found {
        Found::Route(&i) => {
            assert!(
                accepts(ROUTES[i].0, method),
                "route {i} does not accept the method"
            );
            assert_eq!(
                naive(ROUTES[i].1, path, opts),
                Some(params),
                "route {}",
                ROUTES[i].1
            );
        }
        Found::MethodNotAllowed { allow } => {
            assert!(params.is_empty());
            assert!(!matching.is_empty() && !any_accepts, "405 but {matching:?}");
            for &i in &matching {
                if let MethodSel::One(m) = ROUTES[i].0 {
                    assert!(allow.contains(m.as_str()), "{allow} lacks {}", m.as_str());
                }
            }
        }
        Found::NotFound => {
            assert!(params.is_empty());
            assert!(matching.is_empty(), "404 but {matching:?} match");
        }
    }
});
