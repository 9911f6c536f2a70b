//! Fuzz `Router::insert`: raw patterns must never panic, and patterns generated from the full
//! syntax (constraints, optionals, groups, templates, wildcards) must be accepted and then
//! match a path generated alongside them, with well-formed spans.
#![no_main]

use gale_router::{Found, Method, MethodSel, RouteErrorKind, Router, RouterOptions, ABSENT};
use libfuzzer_sys::fuzz_target;

/// Builds a pattern and a path it matches from fuzz bytes. Param values use `$` and `!`, which
/// no generated literal contains, so a template can always split them back out.
struct Gen<'a> {
    data: &'a [u8],
    i: usize,
    pattern: String,
    path: String,
    names: usize,
    wildcard: bool,
    /// Case-insensitive routing: statics may be sent in upper case.
    fold: bool,
}

const WORDS: &[&str] = &["a", "b", "users", "x.y", "A", "%20", "", "me", "v1"];
const VALUES: &[&str] = &["$", "$$", "!", "$!$"];
const CONSTRAINTS: &[(&str, &str)] = &[
    ("\\d+", "42"),
    ("[a-z]+", "abc"),
    ("v\\d+|latest", "latest"),
    ("\\$+", "$$"),
    ("[^-]+(?:-[^-]+)*", "$-$"),
];
const TEMPLATES: &[(&str, &str)] = &[
    (":.:", "$.$"),
    (":-:", "$-$"),
    ("v:", "v$"),
    ("files.:", "files.$"),
    (":.json", "$.json"),
    (":--:.:", "$!--$.$"),
];

impl Gen<'_> {
    fn byte(&mut self) -> u8 {
        let b = self.data.get(self.i).copied().unwrap_or(0);
        self.i += 1;
        b
    }

    fn pick<'t, T>(&mut self, items: &'t [T]) -> &'t T {
        &items[usize::from(self.byte()) % items.len()]
    }

    fn name(&mut self) -> String {
        self.names += 1;
        format!("p{}", self.names)
    }

    fn push(&mut self, pattern: &str, path: &str) {
        self.pattern.push_str(pattern);
        self.path.push_str(path);
    }

    /// One `/`-led segment (or group of them) appended to both pattern and path.
    fn segment(&mut self, depth: usize) {
        match self.byte() % 11 {
            0 => {
                let w = self.pick(WORDS);
                self.push(&format!("/{w}"), &format!("/{w}"));
            }
            1 => {
                let (n, v) = (self.name(), *self.pick(VALUES));
                self.push(&format!("/:{n}"), &format!("/{v}"));
            }
            2 => {
                let (n, &(re, v)) = (self.name(), self.pick(CONSTRAINTS));
                self.push(&format!("/:{n}({re})"), &format!("/{v}"));
            }
            3 => {
                let n = self.name();
                let v = if self.byte() & 1 == 0 { "" } else { "/$" };
                self.push(&format!("/:{n}?"), v);
            }
            4 => {
                let &(spec, v) = self.pick(TEMPLATES);
                let mut pattern = String::from("/");
                for c in spec.chars() {
                    match c {
                        ':' => pattern.push_str(&format!(":{}", self.name())),
                        c => pattern.push(c),
                    }
                }
                self.push(&pattern, &format!("/{v}"));
            }
            5 if !self.wildcard => {
                self.wildcard = true;
                let n = self.name();
                let (p, v) = match self.byte() % 5 {
                    0 => ("/*".to_owned(), "/$/$"),
                    1 => (format!("/*{n}"), "/$"),
                    2 => (format!("/:{n}+"), "/$/!"),
                    3 => ("/pre*".to_owned(), "/pre$"),
                    _ => (
                        format!("/:{n}*"),
                        if self.byte() & 1 == 0 { "" } else { "/$" },
                    ),
                };
                self.push(&p, v);
            }
            6 if depth < 2 => {
                let keep = self.byte() & 1 == 0;
                let mark = self.path.len();
                self.pattern.push('{');
                for _ in 0..=self.byte() % 2 {
                    self.segment(depth + 1);
                }
                self.pattern.push('}');
                if !keep {
                    self.path.truncate(mark);
                }
            }
            7 => {
                let n = self.name();
                let v = if self.byte() & 1 == 0 { "" } else { ".$" };
                self.push(&format!("/w{{.:{n}}}"), &format!("/w{v}"));
            }
            8 => self.push("/\\(x\\)\\:y", "/(x):y"),
            _ => {
                let w = self.pick(WORDS);
                let sent = if self.fold {
                    w.to_ascii_uppercase()
                } else {
                    w.to_string()
                };
                self.push(&format!("/{w}"), &format!("/{sent}"));
            }
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&sel, rest)) = data.split_first() else {
        return;
    };
    let opts = RouterOptions {
        case_sensitive: sel & 1 != 0,
        strict: sel & 2 != 0,
    };
    let structured = sel & 0x80 != 0;
    let mut router = Router::new(opts);
    // (path to try, method, param count, route id); path None when the pattern is raw text
    // that cannot be read back as a path.
    let mut accepted: Vec<(Option<String>, MethodSel, usize, usize)> = Vec::new();
    for (k, chunk) in rest.split(|&b| b == b'\n').take(64).enumerate() {
        let method = match k % 4 {
            0 => MethodSel::All,
            n => MethodSel::One(Method::VARIANTS[(n + usize::from(sel >> 2)) % 9]),
        };
        let (pattern, path) = if structured {
            let mut g = Gen {
                data: chunk,
                i: 0,
                pattern: String::new(),
                path: String::new(),
                names: 0,
                wildcard: false,
                fold: !opts.case_sensitive,
            };
            for _ in 0..=g.byte() % 4 {
                g.segment(0);
            }
            if g.path.is_empty() {
                g.path.push('/');
            }
            (g.pattern, Some(g.path))
        } else {
            let pattern = String::from_utf8_lossy(chunk).into_owned();
            // Read as a path, a pattern without optional or escaped parts matches itself:
            // statics are literal, `:x`, `*x` and templates are non-empty text.
            let plain = !pattern.contains(['{', '}', '(', ')', '?', '\\', '+']);
            let path = plain.then(|| pattern.clone());
            (pattern, path)
        };
        match router.insert(method, &pattern, k) {
            Ok(names) => accepted.push((path, method, names.len(), k)),
            Err(e) => {
                assert!(!e.message().is_empty());
                if structured && e.kind() == RouteErrorKind::Malformed {
                    // Only the limits can reject generated patterns.
                    assert!(e.message().contains("too many"), "{pattern:?}: {e}");
                }
            }
        }
    }
    assert_eq!(router.len(), accepted.len());
    let mut params = Vec::with_capacity(router.max_params());
    for (path, method, _, _) in &accepted {
        let Some(path) = path else { continue };
        let token = match method {
            MethodSel::One(m) => m.as_str(),
            MethodSel::All => "PURGE",
        };
        // Another route may win, but something must accept.
        let found = router.find(token.as_bytes(), path.as_bytes(), &mut params);
        let mut last = 0;
        for &span in &params {
            if span == ABSENT {
                continue;
            }
            let (s, e) = span;
            assert!(s < e && e as usize <= path.len(), "{span:?} in {path:?}");
            assert!(s >= last, "spans out of order: {params:?}");
            last = e;
        }
        match found {
            Found::Route(&k) => {
                let names = accepted.iter().find(|a| a.3 == k).map(|a| a.2);
                assert_eq!(Some(params.len()), names, "one span per name of route {k}");
            }
            Found::MethodNotAllowed { .. } | Found::NotFound => {
                panic!("accepted pattern with path {path:?} ({token}) does not match: {found:?}")
            }
        }
    }
});
