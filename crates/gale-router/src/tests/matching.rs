//! Path matching tests: statics, params, wildcards, priority, case and trailing-slash options,
//! exact spans, and a 1000-route sanity check.

use super::*;
use crate::{Found, Router};

#[test]
fn static_routes() {
    let routes = [
        (GET, "/"),
        (GET, "/about"),
        (GET, "/about/team"),
        (GET, "/a/b/c"),
        (GET, "/a.b-c~d"),
        (GET, "/%20x"),
    ];
    check(
        LOOSE,
        &routes,
        &[
            ("GET", "/", Hit("GET /", &[])),
            ("GET", "/about", Hit("GET /about", &[])),
            ("GET", "/about/team", Hit("GET /about/team", &[])),
            ("GET", "/a/b/c", Hit("GET /a/b/c", &[])),
            ("GET", "/a.b-c~d", Hit("GET /a.b-c~d", &[])),
            ("GET", "/%20x", Hit("GET /%20x", &[])),
            ("GET", "/ x", Miss),
            ("GET", "/a/b", Miss),
            ("GET", "/a/b/c/d", Miss),
            ("GET", "/abou", Miss),
            ("GET", "/aboutx", Miss),
            ("GET", "//about", Miss),
            ("GET", "/about//team", Miss),
            ("GET", "", Miss),
            ("GET", "about", Miss),
            ("GET", "*", Miss),
        ],
    );
}

#[test]
fn params() {
    let routes = [
        (GET, "/users/:id"),
        (GET, "/users/:id/posts/:post_id"),
        (GET, "/:a/:b/:c"),
        // Different names at the same position: names are per route.
        (GET, "/u/:id/posts"),
        (GET, "/u/:uid/likes"),
    ];
    check(
        LOOSE,
        &routes,
        &[
            ("GET", "/users/42", Hit("GET /users/:id", &["42"])),
            ("GET", "/users/a%20b", Hit("GET /users/:id", &["a%20b"])),
            ("GET", "/users/x.json", Hit("GET /users/:id", &["x.json"])),
            (
                "GET",
                "/users/7/posts/99",
                Hit("GET /users/:id/posts/:post_id", &["7", "99"]),
            ),
            ("GET", "/x/y/z", Hit("GET /:a/:b/:c", &["x", "y", "z"])),
            ("GET", "/u/1/posts", Hit("GET /u/:id/posts", &["1"])),
            ("GET", "/u/2/likes", Hit("GET /u/:uid/likes", &["2"])),
            (
                "GET",
                "/users/7/x",
                Hit("GET /:a/:b/:c", &["users", "7", "x"]),
            ),
            ("GET", "/users/7/likes/1", Miss),
            ("GET", "/users/", Miss),
            ("GET", "/users//posts/1", Miss),
            ("GET", "/users", Miss),
            ("GET", "/x//z", Miss),
        ],
    );
}

#[test]
fn wildcards() {
    let routes = [
        (GET, "/files/*path"),
        (GET, "/static/*"),
        (GET, "/files/readme"),
        (GET, "/u/:id/*rest"),
    ];
    check(
        LOOSE,
        &routes,
        &[
            ("GET", "/files/a", Hit("GET /files/*path", &["a"])),
            (
                "GET",
                "/files/a/b/c.txt",
                Hit("GET /files/*path", &["a/b/c.txt"]),
            ),
            ("GET", "/files/a//b", Hit("GET /files/*path", &["a//b"])),
            ("GET", "/files///", Hit("GET /files/*path", &["/"])),
            ("GET", "/files//", Miss),
            ("GET", "/files/readme", Hit("GET /files/readme", &[])),
            (
                "GET",
                "/files/readme/x",
                Hit("GET /files/*path", &["readme/x"]),
            ),
            // Non-strict: the trailing slash is dropped before the wildcard captures.
            ("GET", "/files/a/", Hit("GET /files/*path", &["a"])),
            ("GET", "/static/app.js", Hit("GET /static/*", &["app.js"])),
            ("GET", "/u/9/a/b", Hit("GET /u/:id/*rest", &["9", "a/b"])),
            // A wildcard needs at least one byte.
            ("GET", "/files/", Miss),
            ("GET", "/files", Miss),
            ("GET", "/static/", Miss),
            ("GET", "/u/9", Miss),
        ],
    );
    check(
        STRICT,
        &[(GET, "/files/*path")],
        &[
            ("GET", "/files/a/", Hit("GET /files/*path", &["a/"])),
            ("GET", "/files/", Miss),
        ],
    );
}

#[test]
fn priority_and_backtracking() {
    let routes = [
        (GET, "/a/:x/c"),
        (GET, "/a/b/d"),
        (GET, "/p/:x"),
        (GET, "/p/new"),
        (GET, "/p/*all"),
        (GET, "/q/:x/:y/end"),
        (GET, "/q/s/t"),
        (GET, "/w/s/*w"),
        (GET, "/w/:x/end"),
    ];
    check(
        LOOSE,
        &routes,
        &[
            ("GET", "/a/b/c", Hit("GET /a/:x/c", &["b"])),
            ("GET", "/a/b/d", Hit("GET /a/b/d", &[])),
            ("GET", "/a/z/c", Hit("GET /a/:x/c", &["z"])),
            ("GET", "/a/z/d", Miss),
            ("GET", "/p/new", Hit("GET /p/new", &[])),
            ("GET", "/p/old", Hit("GET /p/:x", &["old"])),
            ("GET", "/p/new/x", Hit("GET /p/*all", &["new/x"])),
            ("GET", "/p/old/x", Hit("GET /p/*all", &["old/x"])),
            // Static `s` dead-ends two levels down, so the walk falls back to the param.
            ("GET", "/q/s/t/end", Hit("GET /q/:x/:y/end", &["s", "t"])),
            ("GET", "/q/s/t", Hit("GET /q/s/t", &[])),
            ("GET", "/q/s/u", Miss),
            // Priority is decided segment by segment, left to right: the static `s` branch
            // succeeds through its wildcard before the param branch is ever tried.
            ("GET", "/w/s/end", Hit("GET /w/s/*w", &["end"])),
            ("GET", "/w/r/end", Hit("GET /w/:x/end", &["r"])),
        ],
    );
}

#[test]
fn case_sensitivity() {
    let routes = [(GET, "/About/Team"), (GET, "/x/:Name")];
    let cases_insensitive = [
        ("GET", "/about/team", Hit("GET /About/Team", &[])),
        ("GET", "/ABOUT/TEAM", Hit("GET /About/Team", &[])),
        ("GET", "/About/Team", Hit("GET /About/Team", &[])),
        ("GET", "/X/MiXeD", Hit("GET /x/:Name", &["MiXeD"])),
        ("GET", "/abouT/teaM/", Hit("GET /About/Team", &[])),
    ];
    check(LOOSE, &routes, &cases_insensitive);
    let sensitive = RouterOptions {
        case_sensitive: true,
        strict: false,
    };
    check(
        sensitive,
        &routes,
        &[
            ("GET", "/About/Team", Hit("GET /About/Team", &[])),
            ("GET", "/about/team", Miss),
            ("GET", "/ABOUT/TEAM", Miss),
            ("GET", "/x/MiXeD", Hit("GET /x/:Name", &["MiXeD"])),
            ("GET", "/X/MiXeD", Miss),
        ],
    );
}

#[test]
fn trailing_slash_strictness() {
    let routes = [(GET, "/"), (GET, "/about"), (GET, "/dir/"), (GET, "/u/:id")];
    check(
        LOOSE,
        &routes,
        &[
            ("GET", "/", Hit("GET /", &[])),
            ("GET", "/about", Hit("GET /about", &[])),
            ("GET", "/about/", Hit("GET /about", &[])),
            ("GET", "/about//", Miss),
            ("GET", "/dir", Hit("GET /dir/", &[])),
            ("GET", "/dir/", Hit("GET /dir/", &[])),
            ("GET", "/u/1/", Hit("GET /u/:id", &["1"])),
            ("GET", "//", Hit("GET /", &[])),
        ],
    );
    let strict = RouterOptions {
        case_sensitive: false,
        strict: true,
    };
    check(
        strict,
        &routes,
        &[
            ("GET", "/", Hit("GET /", &[])),
            ("GET", "/about", Hit("GET /about", &[])),
            ("GET", "/about/", Miss),
            ("GET", "/dir", Miss),
            ("GET", "/dir/", Hit("GET /dir/", &[])),
            ("GET", "/u/1/", Miss),
            ("GET", "//", Miss),
        ],
    );
}

#[test]
fn param_spans_are_exact_byte_offsets() {
    let mut router = Router::new(LOOSE);
    let names = router.insert(GET, "/a/:first/b/:second/*rest", ()).unwrap();
    assert_eq!(names, ["first", "second", "rest"]);
    assert_eq!(router.max_params(), 3);
    let mut params = Vec::with_capacity(router.max_params());
    let buf = params.as_ptr();
    let path = b"/a/xy/b/%E4%B8%96/r/s";
    assert_eq!(router.find(b"GET", path, &mut params), Found::Route(&()));
    assert_eq!(params, [(3, 5), (8, 17), (18, 21)]);
    assert_eq!(params.as_ptr(), buf, "find must not reallocate params");
    // Non-UTF-8 bytes are matched and captured verbatim.
    assert_eq!(
        router.find(b"GET", b"/a/\xff/b/\x00/\xfe", &mut params),
        Found::Route(&())
    );
    assert_eq!(params, [(3, 4), (7, 8), (9, 10)]);
}

#[test]
fn absent_slots_keep_alignment_without_reallocating() {
    let mut router = Router::new(LOOSE);
    let names = router.insert(GET, "/o/:a?/:b?{/*rest}", ()).unwrap();
    assert_eq!(names, ["a", "b", "rest"]);
    let mut params = Vec::with_capacity(router.max_params());
    let buf = params.as_ptr();
    let cases: &[(&str, &[(u32, u32)])] = &[
        ("/o", &[ABSENT, ABSENT, ABSENT]),
        ("/o/x", &[(3, 4), ABSENT, ABSENT]),
        ("/o/x/y", &[(3, 4), (5, 6), ABSENT]),
        ("/o/x/y/z/w", &[(3, 4), (5, 6), (7, 10)]),
    ];
    for &(path, want) in cases {
        assert_eq!(
            router.find(b"GET", path.as_bytes(), &mut params),
            Found::Route(&())
        );
        assert_eq!(params, want, "{path}");
    }
    assert_eq!(params.as_ptr(), buf, "find must not reallocate params");
}

#[test]
fn thousand_routes() {
    let mut router = Router::new(LOOSE);
    for i in 0..1000 {
        let pattern = match i % 4 {
            0 => format!("/static/s{i}"),
            1 => format!("/api/v{i}/users/:id"),
            2 => format!("/p{i}/:a/x/:b"),
            _ => format!("/files{i}/*path"),
        };
        let names = router.insert(GET, &pattern, i).unwrap();
        assert_eq!(names.len(), [0, 1, 2, 1][i % 4], "{pattern}");
    }
    assert_eq!(router.len(), 1000);
    let mut params = Vec::with_capacity(router.max_params());
    for i in 0..1000 {
        let (path, want) = match i % 4 {
            0 => (format!("/STATIC/S{i}"), vec![]),
            1 => (format!("/api/v{i}/users/u{i}"), vec![format!("u{i}")]),
            2 => (
                format!("/p{i}/a{i}/x/b{i}/"),
                vec![format!("a{i}"), format!("b{i}")],
            ),
            _ => (format!("/files{i}/d/{i}.txt"), vec![format!("d/{i}.txt")]),
        };
        assert_eq!(
            router.find(b"GET", path.as_bytes(), &mut params),
            Found::Route(&i),
            "{path}"
        );
        let got: Vec<&str> = params
            .iter()
            .map(|&(s, e)| &path[s as usize..e as usize])
            .collect();
        assert_eq!(got, want, "{path}");
        assert_eq!(
            router.find(b"POST", path.as_bytes(), &mut params),
            Found::MethodNotAllowed { allow: "GET, HEAD" }
        );
    }
    assert_eq!(
        router.find(b"GET", b"/static/s1", &mut params),
        Found::NotFound
    );
    assert_eq!(
        router.find(b"GET", b"/p2/a/y/b", &mut params),
        Found::NotFound
    );
}

#[test]
fn allow_any_is_the_union_of_every_route() {
    let mut r: Router<u32> = Router::new(RouterOptions::default());
    assert_eq!(r.allow_any(None), "");
    r.insert(MethodSel::One(Method::Post), "/items", 1).unwrap();
    assert_eq!(r.allow_any(None), "POST");
    r.insert(MethodSel::One(Method::Get), "/", 2).unwrap();
    r.insert(MethodSel::One(Method::Connect), "/tunnel", 3)
        .unwrap();
    assert_eq!(
        r.allow_any(None),
        "GET, HEAD, POST",
        "HEAD with GET; never CONNECT"
    );
    assert_eq!(
        r.allow_any(Some(Method::Options)),
        "GET, HEAD, POST, OPTIONS"
    );
    r.insert(MethodSel::All, "/any", 4).unwrap();
    assert_eq!(
        r.allow_any(None),
        "GET, HEAD, POST, PUT, DELETE, OPTIONS, TRACE, PATCH"
    );
}
