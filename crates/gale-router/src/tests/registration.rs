//! Registration and method tests: HEAD/All resolution, 405 allow lists, conflicts and
//! malformed patterns.

use super::*;

#[test]
fn methods_head_all_and_405() {
    let routes = [
        (GET, "/r"),
        (POST, "/r"),
        (ALL, "/any"),
        (PUT, "/any"),
        (HEAD, "/h"),
        (GET, "/g"),
        (ALL, "/g"),
        (DELETE, "/d"),
        (GET, "/m/:x"),
        (POST, "/m/fixed"),
        (PUT, "/m/*w"),
    ];
    check(
        LOOSE,
        &routes,
        &[
            ("GET", "/r", Hit("GET /r", &[])),
            ("HEAD", "/r", Hit("GET /r", &[])),
            ("POST", "/r", Hit("POST /r", &[])),
            ("PUT", "/r", NotAllowed("GET, HEAD, POST")),
            ("OPTIONS", "/r", NotAllowed("GET, HEAD, POST")),
            ("get", "/r", NotAllowed("GET, HEAD, POST")),
            ("PURGE", "/r", NotAllowed("GET, HEAD, POST")),
            ("PUT", "/any", Hit("PUT /any", &[])),
            ("GET", "/any", Hit("ALL /any", &[])),
            ("HEAD", "/any", Hit("ALL /any", &[])),
            ("PURGE", "/any", Hit("ALL /any", &[])),
            ("", "/any", Hit("ALL /any", &[])),
            ("HEAD", "/h", Hit("HEAD /h", &[])),
            ("GET", "/h", NotAllowed("HEAD")),
            // HEAD prefers GET over the All fallback.
            ("HEAD", "/g", Hit("GET /g", &[])),
            ("DELETE", "/g", Hit("ALL /g", &[])),
            ("GET", "/d", NotAllowed("DELETE")),
            // Method-aware backtracking: the static node has no GET, so the param route answers.
            ("GET", "/m/fixed", Hit("GET /m/:x", &["fixed"])),
            ("POST", "/m/fixed", Hit("POST /m/fixed", &[])),
            ("PUT", "/m/fixed", Hit("PUT /m/*w", &["fixed"])),
            // 405 lists every method any matching route would accept.
            ("DELETE", "/m/fixed", NotAllowed("GET, HEAD, POST, PUT")),
            ("DELETE", "/m/other", NotAllowed("GET, HEAD, PUT")),
            ("DELETE", "/m/a/b", NotAllowed("PUT")),
            ("PURGE", "/nope", Miss),
        ],
    );
}

#[test]
fn conflicts() {
    assert_conflicts(&[
        (LOOSE, (GET, "/users/:id"), (GET, "/users/:name")),
        (LOOSE, (GET, "/x"), (GET, "/x")),
        (LOOSE, (ALL, "/x"), (ALL, "/x")),
        (LOOSE, (GET, "/f/*path"), (GET, "/f/*")),
        (LOOSE, (GET, "/About"), (GET, "/about")),
        (LOOSE, (GET, "/about"), (GET, "/about/")),
        (LOOSE, (POST, "/a/:b/c/:d"), (POST, "/a/:x/c/:y")),
        (STRICT, (GET, "/x/:a"), (GET, "/x/:b")),
    ]);
    // Not conflicts: a different method, All beside a specific method, distinct shapes,
    // case/slash variants when the options make them distinct.
    assert_compatible(&[
        (LOOSE, (GET, "/x"), (POST, "/x")),
        (LOOSE, (GET, "/x"), (ALL, "/x")),
        (LOOSE, (ALL, "/x"), (HEAD, "/x")),
        (LOOSE, (GET, "/x/:a"), (GET, "/x/*a")),
        (LOOSE, (GET, "/x/:a"), (GET, "/x/a")),
        (STRICT, (GET, "/About"), (GET, "/about")),
        (STRICT, (GET, "/about"), (GET, "/about/")),
    ]);
}

#[test]
fn malformed_patterns_via_insert() {
    let cases = [
        ("users", "must start with"),
        ("/users/:", "empty parameter name at byte 7"),
        ("/a/*/b/*c", "only one wildcard"),
        ("/a/b c", "unsupported character"),
        ("/a/:b:c", "separated by static text"),
        ("/caf\u{e9}", "percent-encode"),
        ("/:id(\\d+", "unclosed \"(\" at byte 4"),
        ("/a{/b", "unclosed \"{\" at byte 2"),
    ];
    let mut router = Router::new(LOOSE);
    for (pattern, needle) in cases {
        let err = router.insert(GET, pattern, ()).expect_err(pattern);
        assert_eq!(err.kind(), RouteErrorKind::Malformed, "{pattern}");
        assert!(err.message().contains(needle), "{err}");
    }
    assert!(router.is_empty());
}
