//! Express 5 (path-to-regexp v8) syntax: `{...}` optional groups, params sharing a segment
//! with static text (`:name.:ext`, `:from-:to`) and named wildcards in the middle.

use super::*;

#[test]
fn optional_groups() {
    let routes = [
        (GET, "/users{/:id}"),
        (GET, "/files/:name{.:ext}"),
        (GET, "/dl{.:ext}"),
        (GET, "/g{/:a/:b}/end"),
        (GET, "/nest{/a{/:b}}"),
        (GET, "/x{/:a}{/:b}"),
    ];
    check(
        LOOSE,
        &routes,
        &[
            ("GET", "/users", Hit("GET /users{/:id}", &[ABS])),
            ("GET", "/users/", Hit("GET /users{/:id}", &[ABS])),
            ("GET", "/users/7", Hit("GET /users{/:id}", &["7"])),
            ("GET", "/users/7/x", Miss),
            (
                "GET",
                "/files/a.tar.gz",
                Hit("GET /files/:name{.:ext}", &["a.tar", "gz"]),
            ),
            (
                "GET",
                "/files/readme",
                Hit("GET /files/:name{.:ext}", &["readme", ABS]),
            ),
            // `:name.:ext` needs a non-empty name, so the alternative without the group wins.
            (
                "GET",
                "/files/.x",
                Hit("GET /files/:name{.:ext}", &[".x", ABS]),
            ),
            (
                "GET",
                "/files/a.",
                Hit("GET /files/:name{.:ext}", &["a.", ABS]),
            ),
            ("GET", "/dl", Hit("GET /dl{.:ext}", &[ABS])),
            ("GET", "/dl.zip", Hit("GET /dl{.:ext}", &["zip"])),
            ("GET", "/DL.ZIP", Hit("GET /dl{.:ext}", &["ZIP"])),
            ("GET", "/dl.", Miss),
            ("GET", "/dlx", Miss),
            ("GET", "/g/end", Hit("GET /g{/:a/:b}/end", &[ABS, ABS])),
            ("GET", "/g/x/y/end", Hit("GET /g{/:a/:b}/end", &["x", "y"])),
            ("GET", "/g/x/end", Miss),
            ("GET", "/nest", Hit("GET /nest{/a{/:b}}", &[ABS])),
            ("GET", "/nest/a", Hit("GET /nest{/a{/:b}}", &[ABS])),
            ("GET", "/nest/a/z", Hit("GET /nest{/a{/:b}}", &["z"])),
            ("GET", "/nest/z", Miss),
            // Two alternatives with one shape: the first (`/x/:a`) wins, as in v8.
            ("GET", "/x/1", Hit("GET /x{/:a}{/:b}", &["1", ABS])),
            ("GET", "/x/1/2", Hit("GET /x{/:a}{/:b}", &["1", "2"])),
            ("GET", "/x", Hit("GET /x{/:a}{/:b}", &[ABS, ABS])),
        ],
    );
    let sensitive = RouterOptions {
        case_sensitive: true,
        strict: false,
    };
    check(
        sensitive,
        &routes,
        &[
            ("GET", "/dl.ZIP", Hit("GET /dl{.:ext}", &["ZIP"])),
            ("GET", "/DL.zip", Miss),
            ("GET", "/users/", Hit("GET /users{/:id}", &[ABS])),
        ],
    );
    check(STRICT, &routes, &[("GET", "/users/", Miss)]);
}

#[test]
fn params_inside_segments() {
    let routes = [
        (GET, "/flights/:from-:to"),
        (GET, "/v:major.:minor"),
        (GET, "/f/a.txt"),
        (GET, "/f/:n.:e"),
        (GET, "/f/:any"),
        (GET, "/f/*rest"),
        (GET, "/t/:a.:b"),
        (GET, "/t/:x-:y"),
        (GET, "/bt/:n.:e/x"),
        (GET, "/bt/:p/y"),
    ];
    check(
        LOOSE,
        &routes,
        &[
            (
                "GET",
                "/flights/LAX-SFO",
                Hit("GET /flights/:from-:to", &["LAX", "SFO"]),
            ),
            // The first param is greedy; the last may not contain the `-` before it.
            (
                "GET",
                "/flights/LAX-SFO-X",
                Hit("GET /flights/:from-:to", &["LAX-SFO", "X"]),
            ),
            ("GET", "/flights/LAX", Miss),
            ("GET", "/flights/-SFO", Miss),
            ("GET", "/flights/LAX-", Miss),
            ("GET", "/v1.2", Hit("GET /v:major.:minor", &["1", "2"])),
            ("GET", "/V1.2", Hit("GET /v:major.:minor", &["1", "2"])),
            ("GET", "/v1", Miss),
            ("GET", "/f/a.txt", Hit("GET /f/a.txt", &[])),
            ("GET", "/f/b.txt", Hit("GET /f/:n.:e", &["b", "txt"])),
            ("GET", "/f/b", Hit("GET /f/:any", &["b"])),
            ("GET", "/f/b.c/d", Hit("GET /f/*rest", &["b.c/d"])),
            // Templates at one position are tried in registration order.
            ("GET", "/t/1-2.3", Hit("GET /t/:a.:b", &["1-2", "3"])),
            ("GET", "/t/1.2-3", Hit("GET /t/:a.:b", &["1", "2-3"])),
            ("GET", "/t/1-2", Hit("GET /t/:x-:y", &["1", "2"])),
            ("GET", "/bt/a.b/x", Hit("GET /bt/:n.:e/x", &["a", "b"])),
            ("GET", "/bt/a.b/y", Hit("GET /bt/:p/y", &["a.b"])),
        ],
    );
}

#[test]
fn named_wildcards_in_the_middle() {
    let routes = [
        (GET, "/splat/*path/edit"),
        (GET, "/splat/*path"),
        (GET, "/m/:id/*rest/:tail"),
        (GET, "/o{/*rest}"),
    ];
    check(
        LOOSE,
        &routes,
        &[
            (
                "GET",
                "/splat/a/b/edit",
                Hit("GET /splat/*path/edit", &["a/b"]),
            ),
            (
                "GET",
                "/splat/a/b/EDIT",
                Hit("GET /splat/*path/edit", &["a/b"]),
            ),
            ("GET", "/splat/a/b", Hit("GET /splat/*path", &["a/b"])),
            ("GET", "/splat/edit", Hit("GET /splat/*path", &["edit"])),
            (
                "GET",
                "/m/1/a/b/c",
                Hit("GET /m/:id/*rest/:tail", &["1", "a/b", "c"]),
            ),
            (
                "GET",
                "/m/1/a/c",
                Hit("GET /m/:id/*rest/:tail", &["1", "a", "c"]),
            ),
            ("GET", "/m/1/a", Miss),
            ("GET", "/m/1/a//", Miss),
            ("GET", "/o", Hit("GET /o{/*rest}", &[ABS])),
            ("GET", "/o/a/b", Hit("GET /o{/*rest}", &["a/b"])),
        ],
    );
}

#[test]
fn catch_all_including_root() {
    // The Express 5 spelling of Express 4's `*`: `/{*splat}` also matches `/`.
    let routes = [(GET, "/{*splat}"), (GET, "/api/:v")];
    check(
        LOOSE,
        &routes,
        &[
            ("GET", "/", Hit("GET /{*splat}", &[ABS])),
            ("GET", "/a", Hit("GET /{*splat}", &["a"])),
            ("GET", "/a/b/", Hit("GET /{*splat}", &["a/b"])),
            ("GET", "/api/1", Hit("GET /api/:v", &["1"])),
            ("GET", "/api/1/2", Hit("GET /{*splat}", &["api/1/2"])),
        ],
    );
}

#[test]
fn express5_conflicts() {
    assert_conflicts(&[
        (LOOSE, (GET, "/u{/:id}"), (GET, "/u/:x")),
        (LOOSE, (GET, "/u{/:id}"), (GET, "/u")),
        (LOOSE, (GET, "/f/:a.:b"), (GET, "/f/:x.:y")),
        (LOOSE, (GET, "/f/:a.:b"), (GET, "/F/:x.:y")),
        (LOOSE, (GET, "/d{.:ext}"), (GET, "/d.:e")),
        (LOOSE, (GET, "/s/*a/x"), (GET, "/s/*b/x")),
        (LOOSE, (GET, "/s/*a/x"), (GET, "/s/:p+/x")),
    ]);
    assert_compatible(&[
        (LOOSE, (GET, "/f/:a.:b"), (GET, "/f/:a-:b")),
        (LOOSE, (GET, "/f/:a.:b"), (GET, "/f/:a")),
        (LOOSE, (GET, "/f/:a.:b"), (GET, "/f/:a.:b.:c")),
        (STRICT, (GET, "/f/:a.:b"), (GET, "/F/:a.:b")),
        (LOOSE, (GET, "/s/*a/x"), (GET, "/s/*a")),
    ]);
    // One pattern whose alternatives share a shape is not a conflict with itself.
    let mut router = Router::new(LOOSE);
    assert_eq!(router.insert(GET, "/x{/:a}{/:b}", ()).unwrap(), ["a", "b"]);
}
