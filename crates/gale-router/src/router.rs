//! The public `Router`: registering routes (with conflict detection) and matching request
//! paths against them by edge priority, with backtracking.

use crate::error::RouteError;
use crate::method::{allow_str, bit, warm_allow_table, Method, MethodSel};
use crate::node::Node;
use crate::pattern::{parse, Segment};
use crate::search::Search;

/// The span reported for an optional param that the matched path left out (`:b?` on `/a`,
/// `{/:b}`, `:name*` matching zero segments). It still occupies its slot, so spans and the
/// names returned by [`Router::insert`] stay aligned; it is never a valid span into the path.
pub const ABSENT: (u32, u32) = (u32::MAX, u32::MAX);

/// Matching options, mirroring Express's `case sensitive routing` and `strict routing`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RouterOptions {
    /// When false (the default), static segments compare ASCII-case-insensitively.
    pub case_sensitive: bool,
    /// When false (the default), one trailing slash is ignored on both patterns and request
    /// paths, so `/about/` and `/about` are the same. When true, they are different routes.
    pub strict: bool,
}

/// The outcome of [`Router::find`].
#[derive(Debug, PartialEq, Eq)]
pub enum Found<'r, T> {
    /// A route accepts this method and path; its params are in the caller's `params`.
    Route(&'r T),
    /// Some route matches the path, but none accepts the method. `allow` is the union of the
    /// methods that would be accepted for this path (e.g. `"GET, HEAD, POST"`), ready for an
    /// `Allow` header. An `OPTIONS` request that lands here can be answered from it too.
    MethodNotAllowed { allow: &'r str },
    /// No route matches the path.
    NotFound,
}

#[derive(Debug)]
struct Route<T> {
    method: MethodSel,
    pattern: Box<str>,
    value: T,
}

/// One registered alternative of a route (a pattern with optional parts has several).
#[derive(Debug)]
struct Leaf {
    route: u32,
    /// Capture slots this alternative leaves out: reported as [`ABSENT`].
    absent: u64,
}

/// A route table mapping (method, path pattern) to a value `T`.
///
/// Patterns start with `/`. Each `/`-separated segment is one of:
///
/// - static text, e.g. `/about` (escape pattern characters with `\`, e.g. `\(`);
/// - `:name`, one non-empty segment, optionally constrained by a regex matched against the
///   whole segment: `:id(\d+)`;
/// - text and params mixed, e.g. `:name.:ext`, `:from-:to` or `v:major` (path-to-regexp v8:
///   params are non-empty, the first is greedy, a later one never contains the text before it);
/// - a wildcard `*name` or bare `*`, also after text (`/files*`), also in the middle
///   (`/a/*path/edit`): at least one byte, spanning one or more segments, greedy;
///   `:name+` is the same, `:name*` also matches zero segments.
///
/// Optional parts: `{...}` groups (`/users{/:id}`, `/files{.:ext}`, nestable) and Express 4
/// `:name?`, which takes a `/` or `.` right before it along (`/a/:b?` matches `/a` and `/a/x`).
/// At most one wildcard per pattern.
///
/// At every position matching prefers static over template over constrained param (each in
/// registration order) over plain param over wildcard (longest literal prefix first, and
/// routes continuing after the wildcard before those ending with it), deciding segment by
/// segment from the left, and backtracks when a preferred branch dead-ends or has no route
/// for the request method: with `/a/:x/c` and `/a/b/d`, `/a/b/c` matches the first.
///
/// ```
/// use gale_router::{Found, Method, MethodSel, Router, RouterOptions, ABSENT};
///
/// let mut router = Router::new(RouterOptions::default());
/// let names = router.insert(MethodSel::One(Method::Get), "/users/:id", "show user").unwrap();
/// assert_eq!(names, ["id"]);
/// router.insert(MethodSel::One(Method::Get), "/users/me", "show me").unwrap();
///
/// let mut params = Vec::with_capacity(router.max_params());
/// let path = b"/users/42";
/// assert_eq!(router.find(b"GET", path, &mut params), Found::Route(&"show user"));
/// let (start, end) = params[0];
/// assert_eq!(&path[start as usize..end as usize], b"42");
///
/// assert_eq!(router.find(b"GET", b"/users/me", &mut params), Found::Route(&"show me"));
/// assert_eq!(
///     router.find(b"DELETE", b"/users/42", &mut params),
///     Found::MethodNotAllowed { allow: "GET, HEAD" }
/// );
/// assert_eq!(router.find(b"GET", b"/nope", &mut params), Found::NotFound);
///
/// // Optional parts keep their slot: ABSENT when left out.
/// let names = router.insert(MethodSel::One(Method::Get), "/files/:name{.:ext}", "file").unwrap();
/// assert_eq!(names, ["name", "ext"]);
/// assert_eq!(router.find(b"GET", b"/files/a.tar.gz", &mut params), Found::Route(&"file"));
/// assert_eq!(params, [(7, 12), (13, 15)]);
/// assert_eq!(router.find(b"GET", b"/files/readme", &mut params), Found::Route(&"file"));
/// assert_eq!(params, [(7, 13), ABSENT]);
/// ```
#[derive(Debug)]
pub struct Router<T> {
    opts: RouterOptions,
    root: Node,
    routes: Vec<Route<T>>,
    leaves: Vec<Leaf>,
    max_params: usize,
}

impl<T> Router<T> {
    /// An empty router.
    pub fn new(opts: RouterOptions) -> Self {
        warm_allow_table();
        Router {
            opts,
            root: Node::default(),
            routes: Vec::new(),
            leaves: Vec::new(),
            max_params: 0,
        }
    }

    /// The options this router was built with.
    pub fn options(&self) -> RouterOptions {
        self.opts
    }

    /// Number of registered routes.
    pub fn len(&self) -> usize {
        self.routes.len()
    }

    /// True when no route is registered.
    pub fn is_empty(&self) -> bool {
        self.routes.is_empty()
    }

    /// The methods some route accepts anywhere, for an `Allow` header about the server as a whole (`OPTIONS *`,
    /// a refused `CONNECT`): each registered method, HEAD with GET, every method once an `All` route exists;
    /// never CONNECT, whose target is an authority, not a path. `also` adds a method the caller serves itself.
    pub fn allow_any(&self, also: Option<Method>) -> &'static str {
        let mut mask = also.map_or(0, bit);
        for r in &self.routes {
            mask |= match r.method {
                MethodSel::One(Method::Get) => bit(Method::Get) | bit(Method::Head),
                MethodSel::One(m) => bit(m),
                MethodSel::All => u16::MAX,
            };
        }
        allow_str(mask & !bit(Method::Connect))
    }

    /// The largest number of params any route captures: a `params` vector with this capacity
    /// never reallocates in [`find`](Self::find).
    pub fn max_params(&self) -> usize {
        self.max_params
    }

    /// Register `pattern` for `method`. Returns the param names in capture order (the
    /// order of the spans [`find`](Self::find) reports).
    ///
    /// Err when the pattern is malformed (the message names the pattern and the byte offset
    /// of the problem) or conflicts with an existing route; the message names both patterns,
    /// e.g. `route GET /users/:name conflicts with GET /users/:id: both match the same paths`.
    /// Param names do not affect the shape, so `/u/:id` and `/u/:name` conflict, and so do
    /// `/u/:id(\d+)` and `/u/:n(\d+)`; different constraints do not. A pattern with optional
    /// parts conflicts when any of its alternatives does (`/a/:b?` with `/a`). `All` and a
    /// specific method on the same shape do not: the specific route wins, `All` is the
    /// fallback. On error the router is unchanged.
    pub fn insert(
        &mut self,
        method: MethodSel,
        pattern: &str,
        value: T,
    ) -> Result<Vec<String>, RouteError> {
        let fold = !self.opts.case_sensitive;
        let parsed = parse(pattern, fold)?;
        let mut variants = parsed.variants;
        // Non-strict: `/about/` is the same route as `/about` (the root `/` stays as is).
        if !self.opts.strict {
            for v in &mut variants {
                let segs = &mut v.segments;
                if segs.len() > 1 && matches!(segs.last(), Some(Segment::Static(s)) if s.is_empty())
                {
                    segs.pop();
                }
            }
        }
        for v in &variants {
            if let Some(leaf) = self.slot(&v.segments, method) {
                let other = &self.routes[self.leaves[leaf as usize].route as usize];
                return Err(RouteError::conflict(format!(
                    "route {} {} conflicts with {} {}: both match the same paths",
                    method.as_str(),
                    pattern,
                    other.method.as_str(),
                    other.pattern,
                )));
            }
        }
        let (Ok(index), Ok(_)) = (
            u32::try_from(self.routes.len()),
            u32::try_from(self.leaves.len() + variants.len()),
        ) else {
            return Err(RouteError::malformed(pattern, "too many routes"));
        };
        for v in &variants {
            // Two alternatives of this route with one shape (`{/:a}{/:b}` gives `/:a` and
            // `/:b`): the first wins, as in path-to-regexp.
            if self.slot(&v.segments, method).is_some() {
                continue;
            }
            let leaf = self.leaves.len() as u32;
            self.leaves.push(Leaf {
                route: index,
                absent: v.absent,
            });
            self.root.insert(&v.segments, fold, method, leaf);
        }
        self.routes.push(Route {
            method,
            pattern: pattern.into(),
            value,
        });
        self.max_params = self.max_params.max(parsed.names.len());
        Ok(parsed.names)
    }

    /// The value of the route registered for exactly `pattern`'s shape and `method` (what
    /// [`insert`](Self::insert) would report as a conflict), with that route's param names.
    /// `None` when there is none, the pattern is malformed, or its alternatives belong to
    /// different routes. Lets a caller share one path between two kinds of handler (a
    /// WebSocket route and a plain GET route, say) without a second router.
    ///
    /// ```
    /// use gale_router::{Method, MethodSel, Router, RouterOptions};
    /// let mut router = Router::new(RouterOptions::default());
    /// router.insert(MethodSel::One(Method::Get), "/chat/:room", 1).unwrap();
    /// let (value, names) = router.route_mut(MethodSel::One(Method::Get), "/chat/:name").unwrap();
    /// *value = 2;
    /// assert_eq!(names, ["room"]);
    /// assert!(router.route_mut(MethodSel::One(Method::Post), "/chat/:room").is_none());
    /// ```
    pub fn route_mut(&mut self, method: MethodSel, pattern: &str) -> Option<(&mut T, Vec<String>)> {
        let fold = !self.opts.case_sensitive;
        let parsed = parse(pattern, fold).ok()?;
        let mut found: Option<u32> = None;
        for v in &parsed.variants {
            let mut segs = v.segments.clone();
            if !self.opts.strict
                && segs.len() > 1
                && matches!(segs.last(), Some(Segment::Static(s)) if s.is_empty())
            {
                segs.pop();
            }
            let leaf = self.slot(&segs, method)?;
            let route = self.leaves[leaf as usize].route;
            if found.is_some_and(|r| r != route) {
                return None;
            }
            found = Some(route);
        }
        let route = &mut self.routes[found? as usize];
        if route.method != method {
            return None;
        }
        let names = parse(&route.pattern, fold).ok()?.names;
        Some((&mut route.value, names))
    }

    /// The leaf already registered for exactly this shape and selector.
    fn slot(&self, segments: &[Segment], method: MethodSel) -> Option<u32> {
        self.root
            .lookup(segments, !self.opts.case_sensitive)
            .and_then(Node::endpoint)
            .and_then(|e| e.slot(method))
    }

    /// Match raw request path bytes (no query string; not percent-decoded). `params` is
    /// cleared and filled with `(start, end)` byte spans into `path`, one per param name, in
    /// order; an optional param the path left out is reported as [`ABSENT`]. Never allocates
    /// once `params` has capacity (see [`max_params`](Self::max_params)), except that regex
    /// constraints and in-segment templates over very long segments may.
    ///
    /// `method` is the raw request-line token; unknown tokens only match `All` routes. Paths
    /// that do not start with `/` (e.g. `*` or absolute-form targets) are `NotFound`.
    pub fn find<'r>(
        &'r self,
        method: &[u8],
        path: &[u8],
        params: &mut Vec<(u32, u32)>,
    ) -> Found<'r, T> {
        params.clear();
        if path.first() != Some(&b'/') || u32::try_from(path.len()).is_err() {
            return Found::NotFound;
        }
        let mut path = path;
        if !self.opts.strict && path.len() > 1 && path.ends_with(b"/") {
            path = &path[..path.len() - 1];
        }
        let mut search = Search {
            path,
            fold: !self.opts.case_sensitive,
            method: Method::from_bytes(method),
            allow: 0,
            matched: false,
        };
        match search.walk(&self.root, 1, params) {
            Some(leaf) => {
                let leaf = &self.leaves[leaf as usize];
                if leaf.absent != 0 {
                    spread_absent(params, leaf.absent);
                }
                Found::Route(&self.routes[leaf.route as usize].value)
            }
            None if search.matched => Found::MethodNotAllowed {
                allow: allow_str(search.allow),
            },
            None => Found::NotFound,
        }
    }
}

/// Insert [`ABSENT`] at the `absent` slots, shifting the captured spans right, in place.
fn spread_absent(params: &mut Vec<(u32, u32)>, absent: u64) {
    let mut src = params.len();
    let total = src + absent.count_ones() as usize;
    params.resize(total, ABSENT);
    for slot in (0..total).rev() {
        if absent >> slot & 1 == 1 {
            params[slot] = ABSENT;
        } else {
            src -= 1;
            params[slot] = params[src];
        }
    }
}
