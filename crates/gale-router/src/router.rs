//! The public `Router`: registering routes (with conflict detection) and matching request
//! paths against them with static > param > wildcard priority and backtracking.

use memchr::memchr;

use crate::method::{allow_str, warm_allow_table, Method, MethodSel};
use crate::node::{Endpoint, Node};
use crate::pattern::{parse, RouteError, Segment};

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

/// A route table mapping (method, path pattern) to a value `T`.
///
/// Patterns start with `/` and are made of static segments, `:name` params (one non-empty
/// segment) and an optional trailing `*name` or `*` wildcard (the rest of the path, at least
/// one byte). Matching prefers static over param over wildcard at every position, deciding
/// segment by segment from the left, and backtracks when a preferred branch dead-ends or has
/// no route for the request method: with `/a/:x/c` and `/a/b/d`, `/a/b/c` matches the first.
///
/// ```
/// use gale_router::{Found, Method, MethodSel, Router, RouterOptions};
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
/// ```
#[derive(Debug)]
pub struct Router<T> {
    opts: RouterOptions,
    root: Node,
    routes: Vec<Route<T>>,
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

    /// The largest number of params any route captures: a `params` vector with this capacity
    /// never reallocates in [`find`](Self::find).
    pub fn max_params(&self) -> usize {
        self.max_params
    }

    /// Register `pattern` for `method`. Returns the param names in capture order.
    ///
    /// Err when the pattern is malformed or conflicts with an existing route; the message
    /// names both patterns, e.g.
    /// `route GET /users/:name conflicts with GET /users/:id: both match the same paths`.
    /// Param names do not affect the shape, so `/u/:id` and `/u/:name` conflict. `All` and a
    /// specific method on the same shape do not: the specific route wins, `All` is the fallback.
    /// On error the router is unchanged.
    pub fn insert(
        &mut self,
        method: MethodSel,
        pattern: &str,
        value: T,
    ) -> Result<Vec<String>, RouteError> {
        let mut segments = parse(pattern)?;
        // Non-strict: `/about/` is the same route as `/about` (the root `/` stays as is).
        if !self.opts.strict && segments.len() > 1 && segments.last() == Some(&Segment::Static(""))
        {
            segments.pop();
        }
        let fold = !self.opts.case_sensitive;
        let existing = self
            .root
            .lookup(&segments, fold)
            .and_then(Node::endpoint)
            .and_then(|e| e.slot(method));
        if let Some(other) = existing {
            let other = &self.routes[other as usize];
            return Err(RouteError::conflict(format!(
                "route {} {} conflicts with {} {}: both match the same paths",
                method.as_str(),
                pattern,
                other.method.as_str(),
                other.pattern,
            )));
        }
        let Ok(index) = u32::try_from(self.routes.len()) else {
            return Err(RouteError::malformed(pattern, "too many routes"));
        };
        let names: Vec<String> = segments
            .iter()
            .filter_map(Segment::name)
            .map(String::from)
            .collect();
        self.root.insert(&segments, fold, method, index);
        self.routes.push(Route {
            method,
            pattern: pattern.into(),
            value,
        });
        self.max_params = self.max_params.max(names.len());
        Ok(names)
    }

    /// Match raw request path bytes (no query string; not percent-decoded). `params` is
    /// cleared and filled with `(start, end)` byte spans into `path`, one per param name, in
    /// order. Never allocates once `params` has capacity (see [`max_params`](Self::max_params)).
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
            Some(route) => Found::Route(&self.routes[route as usize].value),
            None if search.matched => Found::MethodNotAllowed {
                allow: allow_str(search.allow),
            },
            None => Found::NotFound,
        }
    }
}

/// State for one `find`: the depth-first walk plus what 405 needs if nothing accepts.
struct Search<'p> {
    path: &'p [u8],
    fold: bool,
    method: Option<Method>,
    /// Union of allow masks of every endpoint that matched the path but not the method.
    allow: u16,
    matched: bool,
}

impl Search<'_> {
    /// Match the segment starting at `pos` (just after a `/`) and everything after it below
    /// `node`. Returns the accepting route; on failure `params` is left as it was on entry.
    fn walk(&mut self, node: &Node, pos: usize, params: &mut Vec<(u32, u32)>) -> Option<u32> {
        let path = self.path;
        let seg_end = memchr(b'/', &path[pos..]).map_or(path.len(), |i| pos + i);
        let seg = &path[pos..seg_end];
        let depth = params.len();

        if let Some(child) = node.static_child(seg, self.fold) {
            if let Some(r) = self.descend(child, seg_end, params) {
                return Some(r);
            }
        }
        if !seg.is_empty() {
            if let Some(child) = node.param_child() {
                // Lengths fit in u32: `find` rejects longer paths.
                params.push((pos as u32, seg_end as u32));
                if let Some(r) = self.descend(child, seg_end, params) {
                    return Some(r);
                }
                params.truncate(depth);
            }
        }
        if pos < path.len() {
            if let Some(ep) = node.wildcard_child().and_then(Node::endpoint) {
                params.push((pos as u32, path.len() as u32));
                if let Some(r) = self.accept(ep) {
                    return Some(r);
                }
                params.truncate(depth);
            }
        }
        None
    }

    /// Continue below `child` after the segment ending at `seg_end`.
    fn descend(
        &mut self,
        child: &Node,
        seg_end: usize,
        params: &mut Vec<(u32, u32)>,
    ) -> Option<u32> {
        if seg_end == self.path.len() {
            child.endpoint().and_then(|ep| self.accept(ep))
        } else {
            self.walk(child, seg_end + 1, params)
        }
    }

    fn accept(&mut self, ep: &Endpoint) -> Option<u32> {
        let route = ep.resolve(self.method);
        if route.is_none() {
            self.matched = true;
            self.allow |= ep.allow_mask();
        }
        route
    }
}
