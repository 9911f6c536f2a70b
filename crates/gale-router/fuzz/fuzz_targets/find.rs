//! Fuzz `Router::find` on a fixed route set against a naive reference matcher: arbitrary
//! method/path bytes must never panic, spans must be in bounds, and the verdict must agree.
#![no_main]

use std::sync::OnceLock;

use gale_router::{decode_param, Found, Method, MethodSel, Router, RouterOptions, ABSENT};
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
    // Optional groups, templates, constraints, mid and prefixed wildcards.
    (MethodSel::One(Method::Get), "/opt{/:x}"),
    (MethodSel::One(Method::Get), "/opt/new"),
    (MethodSel::One(Method::Get), "/f/:name{.:ext}"),
    (MethodSel::One(Method::Get), "/f/a.txt"),
    (MethodSel::One(Method::Post), "/f/:n-:m"),
    (MethodSel::One(Method::Get), "/n/:id(\\d+)"),
    (MethodSel::One(Method::Get), "/n/:id(\\d+)/x"),
    (MethodSel::One(Method::Put), "/n/:slug"),
    (MethodSel::One(Method::Get), "/w/*mid/end"),
    (MethodSel::One(Method::Get), "/w/*all"),
    (MethodSel::One(Method::Post), "/w/:a/*m/:z"),
    (MethodSel::One(Method::Get), "/pre*"),
    (MethodSel::One(Method::Get), "/g{/:a/:b}/z"),
    (MethodSel::One(Method::Get), "/v:maj.:min"),
    (MethodSel::One(Method::Delete), "/t/:a--:b"),
    (MethodSel::One(Method::Get), "/e{/a{/:b}}"),
    (MethodSel::All, "/x{/:a}{/:b}"),
];

const METHODS: &[&[u8]] = &[
    b"GET", b"HEAD", b"POST", b"PUT", b"DELETE", b"OPTIONS", b"PATCH", b"PURGE", b"get",
];

/// The naive matcher is polynomial in the path length; past this only invariants are checked.
const NAIVE_MAX: usize = 1024;

/// A pattern item: groups still nested.
enum Item {
    Char(u8),
    Param { slot: usize, digits: bool },
    Wild(usize),
    Group(Vec<Item>),
}

fn items(p: &[u8], i: &mut usize, slots: &mut usize) -> Vec<Item> {
    let name_end = |mut j: usize| {
        while p
            .get(j)
            .is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_')
        {
            j += 1;
        }
        j
    };
    let mut out = Vec::new();
    while let Some(&b) = p.get(*i) {
        *i += 1;
        match b {
            b'}' => break,
            b'{' => out.push(Item::Group(items(p, i, slots))),
            b':' => {
                *i = name_end(*i);
                let digits = p.get(*i) == Some(&b'(');
                if digits {
                    *i = p[*i..]
                        .iter()
                        .position(|&c| c == b')')
                        .map_or(p.len(), |k| *i + k + 1);
                }
                out.push(Item::Param {
                    slot: *slots,
                    digits,
                });
                *slots += 1;
            }
            b'*' => {
                *i = name_end(*i);
                out.push(Item::Wild(*slots));
                *slots += 1;
            }
            c => out.push(Item::Char(c)),
        }
    }
    out
}

/// A piece of one alternative.
#[derive(Clone)]
enum Piece {
    Lit(Vec<u8>),
    /// `exclude`: the literal before it when an earlier param shares the segment.
    Param {
        slot: usize,
        digits: bool,
        exclude: Option<Vec<u8>>,
    },
    Wild(usize),
}

/// Every alternative, with-group first; `rest` holds the outer runs still to visit.
fn flatten<'a>(
    items: &'a [Item],
    rest: &[&'a [Item]],
    acc: &mut Vec<&'a Item>,
    out: &mut Vec<Vec<&'a Item>>,
) {
    let Some((first, tail)) = items.split_first() else {
        match rest.split_last() {
            Some((next, outer)) => flatten(next, outer, acc, out),
            None => out.push(acc.clone()),
        }
        return;
    };
    if let Item::Group(inner) = first {
        let mut with: Vec<&[Item]> = rest.to_vec();
        with.push(tail);
        flatten(inner, &with, acc, out);
        flatten(tail, rest, acc, out);
    } else {
        acc.push(first);
        flatten(tail, rest, acc, out);
        acc.pop();
    }
}

fn pieces(alt: &[&Item]) -> Vec<Piece> {
    let mut out: Vec<Piece> = Vec::new();
    for item in alt {
        match item {
            Item::Char(c) => match out.last_mut() {
                Some(Piece::Lit(l)) => l.push(*c),
                _ => out.push(Piece::Lit(vec![*c])),
            },
            Item::Param { slot, digits } => {
                let exclude = match out.as_slice() {
                    [.., Piece::Param { .. }, Piece::Lit(l)] if !l.contains(&b'/') => {
                        Some(l.clone())
                    }
                    _ => None,
                };
                out.push(Piece::Param {
                    slot: *slot,
                    digits: *digits,
                    exclude,
                });
            }
            Item::Wild(slot) => out.push(Piece::Wild(*slot)),
            Item::Group(_) => unreachable!("flattened"),
        }
    }
    out
}

fn eq(a: &[u8], b: &[u8], fold: bool) -> bool {
    if fold {
        a.eq_ignore_ascii_case(b)
    } else {
        a == b
    }
}

/// Backtracking match of `pieces[k..]` against `path[pos..]`, greedy like a regex.
fn walk(
    pieces: &[Piece],
    path: &[u8],
    pos: usize,
    fold: bool,
    spans: &mut Vec<(usize, u32, u32)>,
) -> bool {
    let Some(piece) = pieces.first() else {
        return pos == path.len();
    };
    match piece {
        Piece::Lit(l) => {
            path.get(pos..pos + l.len()).is_some_and(|s| eq(s, l, fold))
                && walk(&pieces[1..], path, pos + l.len(), fold, spans)
        }
        Piece::Param {
            slot,
            digits,
            exclude,
        } => {
            let mut max = pos;
            while max < path.len() && path[max] != b'/' && (!digits || path[max].is_ascii_digit()) {
                // Stop before the byte that would complete an excluded literal.
                if let Some(x) = exclude {
                    let len = max + 1 - pos;
                    if len >= x.len() && eq(&path[max + 1 - x.len()..max + 1], x, fold) {
                        break;
                    }
                }
                max += 1;
            }
            (pos + 1..=max).rev().any(|e| {
                spans.push((*slot, pos as u32, e as u32));
                let ok = walk(&pieces[1..], path, e, fold, spans);
                if !ok {
                    spans.pop();
                }
                ok
            })
        }
        Piece::Wild(slot) => (pos + 1..=path.len()).rev().any(|e| {
            spans.push((*slot, pos as u32, e as u32));
            let ok = walk(&pieces[1..], path, e, fold, spans);
            if !ok {
                spans.pop();
            }
            ok
        }),
    }
}

/// Reference matcher: the spans (ABSENT for left-out params) of every alternative of
/// `pattern` that matches `path`.
fn naive(pattern: &str, path: &[u8], opts: RouterOptions) -> Vec<Vec<(u32, u32)>> {
    if path.first() != Some(&b'/') {
        return Vec::new();
    }
    let mut path = path;
    if !opts.strict && path.len() > 1 && path.ends_with(b"/") {
        path = &path[..path.len() - 1];
    }
    let mut slots = 0;
    let tree = items(pattern.as_bytes(), &mut 0, &mut slots);
    let mut alts = Vec::new();
    flatten(&tree, &[], &mut Vec::new(), &mut alts);
    let mut found = Vec::new();
    for alt in alts {
        let mut ps = pieces(&alt);
        if ps.is_empty() {
            // Everything was optional: the root.
            ps.push(Piece::Lit(b"/".to_vec()));
        }
        // Non-strict: a trailing empty segment is dropped (the root `/` stays).
        let root = matches!(ps.as_slice(), [Piece::Lit(l)] if l == b"/");
        if !opts.strict && !root {
            if let Some(Piece::Lit(l)) = ps.last_mut() {
                if l.ends_with(b"/") {
                    l.pop();
                    if l.is_empty() {
                        ps.pop();
                    }
                }
            }
        }
        let mut spans = Vec::new();
        if walk(&ps, path, 0, !opts.case_sensitive, &mut spans) {
            let mut out = vec![ABSENT; slots];
            for (slot, s, e) in spans {
                out[slot] = (s, e);
            }
            found.push(out);
        }
    }
    found
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
    let mut last = 0;
    for &span in &params {
        if span == ABSENT {
            continue;
        }
        let (s, e) = span;
        assert!(
            s < e && e as usize <= path.len(),
            "span {s}..{e} of {}",
            path.len()
        );
        assert!(s >= last, "spans out of order: {params:?}");
        last = e;
        let mut out = Vec::new();
        let _ = decode_param(&path[s as usize..e as usize], &mut out);
    }
    if path.len() > NAIVE_MAX {
        return;
    }
    let matching: Vec<(usize, Vec<Vec<(u32, u32)>>)> = live
        .iter()
        .map(|&i| (i, naive(ROUTES[i].1, path, opts)))
        .filter(|(_, alts)| !alts.is_empty())
        .collect();
    let any_accepts = matching.iter().any(|&(i, _)| accepts(ROUTES[i].0, method));
    match found {
        Found::Route(&i) => {
            assert!(
                accepts(ROUTES[i].0, method),
                "route {i} does not accept the method"
            );
            let alts = matching.iter().find(|m| m.0 == i).map(|m| &m.1);
            // The tree picks one alternative (and one greedy split of it).
            assert!(
                alts.is_some_and(|a| a.contains(&params)),
                "route {}: got {params:?}, naive {alts:?}",
                ROUTES[i].1
            );
        }
        Found::MethodNotAllowed { allow } => {
            assert!(params.is_empty());
            let ids: Vec<usize> = matching.iter().map(|m| m.0).collect();
            assert!(!matching.is_empty() && !any_accepts, "405 but {ids:?}");
            for &(i, _) in &matching {
                if let MethodSel::One(m) = ROUTES[i].0 {
                    assert!(allow.contains(m.as_str()), "{allow} lacks {}", m.as_str());
                }
            }
        }
        Found::NotFound => {
            assert!(params.is_empty());
            let ids: Vec<usize> = matching.iter().map(|m| m.0).collect();
            assert!(matching.is_empty(), "404 but {ids:?} match");
        }
    }
});
