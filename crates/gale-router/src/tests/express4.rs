//! Express 4 syntax: `:opt?` (with the `/` or `.` before it), bare `*` as a whole segment, a
//! segment suffix or in the middle, and repeated params `:name*` / `:name+`.

use super::*;

#[test]
fn optional_params() {
    let routes = [
        (GET, "/a/:b?"),
        (GET, "/file/:name.:ext?"),
        (GET, "/m/:x?/:y?"),
        (GET, "/mid/:opt?/end"),
        (GET, "/o/:x?"),
        (GET, "/o/new"),
        (GET, "/:root?"),
    ];
    check(
        LOOSE,
        &routes,
        &[
            ("GET", "/a", Hit("GET /a/:b?", &[ABS])),
            ("GET", "/a/", Hit("GET /a/:b?", &[ABS])),
            ("GET", "/A/x", Hit("GET /a/:b?", &["x"])),
            ("GET", "/a/x/y", Miss),
            (
                "GET",
                "/file/readme",
                Hit("GET /file/:name.:ext?", &["readme", ABS]),
            ),
            (
                "GET",
                "/file/a.txt",
                Hit("GET /file/:name.:ext?", &["a", "txt"]),
            ),
            (
                "GET",
                "/file/a.tar.gz",
                Hit("GET /file/:name.:ext?", &["a.tar", "gz"]),
            ),
            ("GET", "/m", Hit("GET /m/:x?/:y?", &[ABS, ABS])),
            ("GET", "/m/1", Hit("GET /m/:x?/:y?", &["1", ABS])),
            ("GET", "/m/1/2", Hit("GET /m/:x?/:y?", &["1", "2"])),
            ("GET", "/mid/end", Hit("GET /mid/:opt?/end", &[ABS])),
            ("GET", "/mid/x/end", Hit("GET /mid/:opt?/end", &["x"])),
            ("GET", "/mid/x/y/end", Miss),
            // Static still beats the optional param; leaving it out is its own alternative.
            ("GET", "/o/new", Hit("GET /o/new", &[])),
            ("GET", "/o/old", Hit("GET /o/:x?", &["old"])),
            ("GET", "/o", Hit("GET /o/:x?", &[ABS])),
            ("GET", "/", Hit("GET /:root?", &[ABS])),
            ("GET", "/top", Hit("GET /:root?", &["top"])),
            ("DELETE", "/a", NotAllowed("GET, HEAD")),
        ],
    );
    check(
        STRICT,
        &routes,
        &[
            ("GET", "/a", Hit("GET /a/:b?", &[ABS])),
            ("GET", "/a/", Miss),
            ("GET", "/a/x/", Miss),
            ("GET", "/A/x", Miss),
            ("GET", "/", Hit("GET /:root?", &[ABS])),
        ],
    );
}

#[test]
fn bare_and_repeated_wildcards() {
    let routes = [
        (GET, "/s/*/edit"),
        (GET, "/api*"),
        (GET, "/ap*"),
        (GET, "/r/:path*"),
        (GET, "/p/:path+"),
        (GET, "/c/*"),
        (GET, "/c/*/x"),
    ];
    check(
        LOOSE,
        &routes,
        &[
            ("GET", "/s/a/edit", Hit("GET /s/*/edit", &["a"])),
            ("GET", "/s/a/b/edit", Hit("GET /s/*/edit", &["a/b"])),
            // Greedy, like Express's `(.*)`.
            ("GET", "/s/a/edit/edit", Hit("GET /s/*/edit", &["a/edit"])),
            ("GET", "/s/a/edit/", Hit("GET /s/*/edit", &["a"])),
            // At least one byte (Express 4 would match these with an empty `*`).
            ("GET", "/s/edit", Miss),
            ("GET", "/s//edit", Miss),
            ("GET", "/s/a/edit/x", Miss),
            ("GET", "/api/x/y", Hit("GET /api*", &["/x/y"])),
            ("GET", "/apix", Hit("GET /api*", &["x"])),
            ("GET", "/API/x", Hit("GET /api*", &["/x"])),
            // The longer literal prefix goes first; a wildcard needs at least one byte.
            ("GET", "/api", Hit("GET /ap*", &["i"])),
            ("GET", "/apx", Hit("GET /ap*", &["x"])),
            ("GET", "/ap", Miss),
            ("GET", "/r", Hit("GET /r/:path*", &[ABS])),
            ("GET", "/r/a", Hit("GET /r/:path*", &["a"])),
            ("GET", "/r/a/b", Hit("GET /r/:path*", &["a/b"])),
            ("GET", "/p", Miss),
            ("GET", "/p/a/b", Hit("GET /p/:path+", &["a/b"])),
            // A route that continues after the wildcard is tried before one ending there.
            ("GET", "/c/a/x", Hit("GET /c/*/x", &["a"])),
            ("GET", "/c/a/b/x", Hit("GET /c/*/x", &["a/b"])),
            ("GET", "/c/a/y", Hit("GET /c/*", &["a/y"])),
            ("GET", "/c/x", Hit("GET /c/*", &["x"])),
        ],
    );
    check(
        STRICT,
        &routes,
        &[
            ("GET", "/s/a/edit", Hit("GET /s/*/edit", &["a"])),
            ("GET", "/s/a/edit/", Miss),
            ("GET", "/API/x", Miss),
            ("GET", "/r/", Miss),
            ("GET", "/r/a/", Hit("GET /r/:path*", &["a/"])),
        ],
    );
}

#[test]
fn express4_conflicts() {
    assert_conflicts(&[
        (LOOSE, (GET, "/a/:b?"), (GET, "/a")),
        (LOOSE, (GET, "/a"), (GET, "/a/:b?")),
        (LOOSE, (GET, "/a/:b?"), (GET, "/a/:c")),
        (LOOSE, (GET, "/a/:b?"), (GET, "/a/")),
        (LOOSE, (GET, "/s/*/e"), (GET, "/s/*rest/e")),
        (LOOSE, (GET, "/p/:x+"), (GET, "/p/*y")),
        (LOOSE, (GET, "/r/:x*"), (GET, "/r")),
        (LOOSE, (GET, "/f/:n.:e?"), (GET, "/f/:m")),
    ]);
    assert_compatible(&[
        (LOOSE, (GET, "/a/:b?"), (POST, "/a")),
        (LOOSE, (GET, "/a/:b?"), (GET, "/a/b")),
        (LOOSE, (GET, "/api*"), (GET, "/api/*")),
        (LOOSE, (GET, "/api*"), (GET, "/ap*")),
        (STRICT, (GET, "/a/:b?"), (GET, "/a/")),
    ]);
}
