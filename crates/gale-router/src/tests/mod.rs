//! Router behaviour tests: each table registers a set of routes, then checks what a list of
//! (method, path) requests resolve to, including the exact param spans. Shared helpers live here.

mod constraints;
mod express4;
mod express5;
mod matching;
mod registration;

use std::collections::HashMap;

use crate::{Found, Method, MethodSel, RouteErrorKind, Router, RouterOptions, ABSENT};

const GET: MethodSel = MethodSel::One(Method::Get);
const HEAD: MethodSel = MethodSel::One(Method::Head);
const POST: MethodSel = MethodSel::One(Method::Post);
const PUT: MethodSel = MethodSel::One(Method::Put);
const DELETE: MethodSel = MethodSel::One(Method::Delete);
const ALL: MethodSel = MethodSel::All;

/// Express defaults.
const LOOSE: RouterOptions = RouterOptions {
    case_sensitive: false,
    strict: false,
};
const STRICT: RouterOptions = RouterOptions {
    case_sensitive: true,
    strict: true,
};

/// Stands for an [`ABSENT`] span in expected param texts.
const ABS: &str = "<absent>";

#[derive(Debug)]
enum Want {
    /// Route value (`"METHOD pattern"`) and the captured param texts ([`ABS`] if absent).
    Hit(&'static str, &'static [&'static str]),
    NotAllowed(&'static str),
    Miss,
}
use Want::*;

/// Routes are labelled `"METHOD pattern"`; the map remembers each label's param names.
fn build(
    opts: RouterOptions,
    routes: &[(MethodSel, &str)],
) -> (Router<String>, HashMap<String, Vec<String>>) {
    let mut router = Router::new(opts);
    let mut names = HashMap::new();
    for &(sel, pattern) in routes {
        let label = format!("{} {}", sel.as_str(), pattern);
        match router.insert(sel, pattern, label.clone()) {
            Ok(n) => names.insert(label, n),
            Err(e) => panic!("insert {label}: {e}"),
        };
    }
    (router, names)
}

fn check(opts: RouterOptions, routes: &[(MethodSel, &str)], cases: &[(&str, &str, Want)]) {
    let (router, names) = build(opts, routes);
    let mut params = vec![(7, 7)];
    for (method, path, want) in cases {
        let got = router.find(method.as_bytes(), path.as_bytes(), &mut params);
        let ctx = format!("{method} {path:?} ({opts:?})");
        match (want, got) {
            (Hit(label, texts), Found::Route(got_label)) => {
                assert_eq!(got_label, label, "{ctx}");
                assert_eq!(
                    params.len(),
                    names[*label].len(),
                    "{ctx}: one span per name"
                );
                let got_texts: Vec<&str> = params
                    .iter()
                    .map(|&span| match span {
                        ABSENT => ABS,
                        (s, e) => &path[s as usize..e as usize],
                    })
                    .collect();
                assert_eq!(got_texts, *texts, "{ctx}");
            }
            (NotAllowed(allow), Found::MethodNotAllowed { allow: got }) => {
                assert_eq!(got, *allow, "{ctx}");
                assert!(params.is_empty(), "{ctx}: params left behind {params:?}");
            }
            (Miss, Found::NotFound) => assert!(params.is_empty(), "{ctx}: {params:?}"),
            (want, got) => panic!("{ctx}: want {want:?}, got {got:?}"),
        }
    }
}

/// Two registrations under one set of options.
type Pair<'a> = (RouterOptions, (MethodSel, &'a str), (MethodSel, &'a str));

/// The second registration of each pair must fail with a conflict naming both, and leave the
/// router unchanged.
fn assert_conflicts(cases: &[Pair]) {
    for &(opts, (m1, p1), (m2, p2)) in cases {
        let mut router = Router::new(opts);
        router.insert(m1, p1, 1).unwrap();
        let err = router.insert(m2, p2, 2).expect_err(p2);
        assert_eq!(err.kind(), RouteErrorKind::Conflict, "{err}");
        let want = format!(
            "route {} {p2} conflicts with {} {p1}: both match the same paths",
            m2.as_str(),
            m1.as_str()
        );
        assert_eq!(err.message(), want);
        assert_eq!(err.to_string(), want);
        assert_eq!(router.len(), 1, "failed insert must not register");
    }
}

/// Both registrations of each pair must succeed.
fn assert_compatible(cases: &[Pair]) {
    for &(opts, (m1, p1), (m2, p2)) in cases {
        let mut router = Router::new(opts);
        router.insert(m1, p1, 1).unwrap();
        router
            .insert(m2, p2, 2)
            .unwrap_or_else(|e| panic!("{p1} then {p2}: {e}"));
    }
}
