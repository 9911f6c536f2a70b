//! Regex-constrained params (`:id(\d+)`): anchored matching, priority against static, template,
//! plain param and wildcard edges, case option, optional constraints and conflicts.

use super::*;

#[test]
fn constrained_params() {
    let routes = [
        (GET, "/users/:id(\\d+)"),
        (GET, "/users/:name([a-z]+)"),
        (GET, "/users/:any"),
        (GET, "/users/me"),
        (GET, "/users/*rest"),
        (GET, "/posts/:id(\\d+)/edit"),
        (GET, "/posts/:slug/view"),
        // Alternation stays anchored on both sides: `^(?:v\d+|latest)$`.
        (GET, "/v/:ver(v\\d+|latest)"),
        // Constraints at one position are tried in registration order.
        (GET, "/o/:a(\\d+)"),
        (GET, "/o/:b(\\d{2})"),
        (GET, "/p/:b(\\d{2})"),
        (GET, "/p/:a(\\d+)"),
        // A template beats a constraint.
        (GET, "/t/:id(\\d+)"),
        (GET, "/t/:a.:b"),
        (GET, "/q/:page(\\d+)?"),
    ];
    check(
        LOOSE,
        &routes,
        &[
            ("GET", "/users/42", Hit("GET /users/:id(\\d+)", &["42"])),
            (
                "GET",
                "/users/abc",
                Hit("GET /users/:name([a-z]+)", &["abc"]),
            ),
            // Case-insensitive routing compiles constraints case-insensitively, as Express 4.
            (
                "GET",
                "/users/ABC",
                Hit("GET /users/:name([a-z]+)", &["ABC"]),
            ),
            ("GET", "/users/me", Hit("GET /users/me", &[])),
            ("GET", "/users/a1", Hit("GET /users/:any", &["a1"])),
            ("GET", "/users/%31", Hit("GET /users/:any", &["%31"])),
            ("GET", "/users/42/", Hit("GET /users/:id(\\d+)", &["42"])),
            ("GET", "/users/42/x", Hit("GET /users/*rest", &["42/x"])),
            ("GET", "/users/", Miss),
            (
                "GET",
                "/posts/7/edit",
                Hit("GET /posts/:id(\\d+)/edit", &["7"]),
            ),
            ("GET", "/posts/x/edit", Miss),
            // The constrained branch dead-ends, so the plain param answers.
            ("GET", "/posts/7/view", Hit("GET /posts/:slug/view", &["7"])),
            ("GET", "/v/v12", Hit("GET /v/:ver(v\\d+|latest)", &["v12"])),
            (
                "GET",
                "/v/latest",
                Hit("GET /v/:ver(v\\d+|latest)", &["latest"]),
            ),
            ("GET", "/v/v12latest", Miss),
            ("GET", "/v/xlatest", Miss),
            ("GET", "/v/v1x", Miss),
            ("GET", "/o/12", Hit("GET /o/:a(\\d+)", &["12"])),
            ("GET", "/p/12", Hit("GET /p/:b(\\d{2})", &["12"])),
            ("GET", "/p/123", Hit("GET /p/:a(\\d+)", &["123"])),
            ("GET", "/t/1.2", Hit("GET /t/:a.:b", &["1", "2"])),
            ("GET", "/t/12", Hit("GET /t/:id(\\d+)", &["12"])),
            ("GET", "/q", Hit("GET /q/:page(\\d+)?", &[ABS])),
            ("GET", "/q/3", Hit("GET /q/:page(\\d+)?", &["3"])),
            ("GET", "/q/x", Miss),
            ("POST", "/users/42", NotAllowed("GET, HEAD")),
        ],
    );
    check(
        STRICT,
        &routes,
        &[
            (
                "GET",
                "/users/abc",
                Hit("GET /users/:name([a-z]+)", &["abc"]),
            ),
            ("GET", "/users/ABC", Hit("GET /users/:any", &["ABC"])),
            ("GET", "/users/42/", Hit("GET /users/*rest", &["42/"])),
            ("GET", "/q/", Miss),
        ],
    );
}

#[test]
fn raw_bytes_never_satisfy_a_constraint() {
    let mut router = Router::new(LOOSE);
    router.insert(GET, "/x/:a(.+)", "re").unwrap();
    router.insert(GET, "/x/:b", "plain").unwrap();
    let mut params = Vec::new();
    assert_eq!(
        router.find(b"GET", b"/x/\xff", &mut params),
        Found::Route(&"plain")
    );
    assert_eq!(
        router.find(b"GET", b"/x/\xc3\xa9", &mut params),
        Found::Route(&"re")
    );
    assert_eq!(params, [(3, 5)]);
}

#[test]
fn constraint_conflicts() {
    assert_conflicts(&[
        (LOOSE, (GET, "/u/:id(\\d+)"), (GET, "/u/:n(\\d+)")),
        (STRICT, (GET, "/u/:id(\\d+)/x"), (GET, "/u/:n(\\d+)/x")),
        (LOOSE, (GET, "/a"), (GET, "/a/:b(\\d+)?")),
        (LOOSE, (GET, "/a/:b(\\d+)?"), (GET, "/a/:c(\\d+)")),
    ]);
    assert_compatible(&[
        (LOOSE, (GET, "/u/:id(\\d+)"), (GET, "/u/:id")),
        (LOOSE, (GET, "/u/:id(\\d+)"), (GET, "/u/:id([0-9]+)")),
        (LOOSE, (GET, "/u/:id(\\d+)"), (POST, "/u/:id(\\d+)")),
        (LOOSE, (GET, "/u/:id(\\d+)"), (ALL, "/u/:id(\\d+)")),
        (LOOSE, (GET, "/u/:id(\\d+)"), (GET, "/u/*id")),
    ]);
}
