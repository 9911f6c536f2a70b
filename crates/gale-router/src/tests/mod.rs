//! Router behaviour tests: each table registers a set of routes, then checks what a list of
//! (method, path) requests resolve to, including the exact param spans. Shared helpers live here.

mod matching;
mod registration;

use std::collections::HashMap;

use crate::{Found, Method, MethodSel, Router, RouterOptions};

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

#[derive(Debug)]
enum Want {
    /// Route value (`"METHOD pattern"`) and the captured param texts.
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
                    .map(|&(s, e)| &path[s as usize..e as usize])
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
