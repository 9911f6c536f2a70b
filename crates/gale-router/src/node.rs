//! The segment trie: one node per pattern position, with static, param and wildcard children
//! and the routes that end there.

use std::cmp::Ordering;

use crate::method::{bit, Method, MethodSel, METHOD_COUNT};
use crate::pattern::Segment;

/// A position in the tree (the paths whose first N segments are fixed).
///
/// Children are kept by kind because matching priority is by kind: static, then param, then
/// wildcard. Param and wildcard children are shared by every route with a capture at that
/// position; capture *names* live on the routes, so `/u/:id/posts` and `/u/:uid/likes` coexist.
/// Future constrained params (`:id(\d+)`) fit as extra param edges tried before the plain one.
#[derive(Debug, Default)]
pub(crate) struct Node {
    /// Sorted by key under [`cmp_key`]; keys are ASCII-lowercased when matching is
    /// case-insensitive.
    statics: Vec<StaticEdge>,
    param: Option<Box<Node>>,
    /// Only its `endpoint` is used today (a wildcard must be last); it is a full node so that
    /// Express 5 mid-pattern splats can hang children off it later.
    wildcard: Option<Box<Node>>,
    endpoint: Option<Box<Endpoint>>,
}

#[derive(Debug)]
struct StaticEdge {
    key: Box<[u8]>,
    node: Node,
}

/// The routes that end at a node, by method, as indices into the router's route list.
#[derive(Debug, Default)]
pub(crate) struct Endpoint {
    methods: [Option<u32>; METHOD_COUNT],
    all: Option<u32>,
    /// `Allow` bitmask for a 405: registered methods, plus HEAD whenever GET is.
    allow: u16,
}

impl Endpoint {
    /// The route registered for exactly this selector (used for conflict detection).
    pub(crate) fn slot(&self, sel: MethodSel) -> Option<u32> {
        match sel {
            MethodSel::One(m) => self.methods[m.index()],
            MethodSel::All => self.all,
        }
    }

    fn set(&mut self, sel: MethodSel, route: u32) {
        match sel {
            MethodSel::One(m) => {
                self.methods[m.index()] = Some(route);
                self.allow |= bit(m);
                if m == Method::Get {
                    self.allow |= bit(Method::Head);
                }
            }
            MethodSel::All => self.all = Some(route),
        }
    }

    /// Pick the route for a request method: exact, then GET for HEAD, then `All`.
    /// `None` for the method means an unknown token, which only `All` accepts.
    pub(crate) fn resolve(&self, method: Option<Method>) -> Option<u32> {
        if let Some(m) = method {
            if let Some(r) = self.methods[m.index()] {
                return Some(r);
            }
            if m == Method::Head {
                if let Some(r) = self.methods[Method::Get.index()] {
                    return Some(r);
                }
            }
        }
        self.all
    }

    pub(crate) fn allow_mask(&self) -> u16 {
        self.allow
    }
}

/// Order static keys; with `fold`, the request side is lowercased on the fly (stored keys
/// already are), so lookups never allocate.
fn cmp_key(key: &[u8], seg: &[u8], fold: bool) -> Ordering {
    if !fold {
        return key.cmp(seg);
    }
    let n = key.len().min(seg.len());
    for i in 0..n {
        match key[i].cmp(&seg[i].to_ascii_lowercase()) {
            Ordering::Equal => {}
            other => return other,
        }
    }
    key.len().cmp(&seg.len())
}

impl Node {
    pub(crate) fn static_child(&self, seg: &[u8], fold: bool) -> Option<&Node> {
        self.statics
            .binary_search_by(|e| cmp_key(&e.key, seg, fold))
            .ok()
            .map(|i| &self.statics[i].node)
    }

    pub(crate) fn param_child(&self) -> Option<&Node> {
        self.param.as_deref()
    }

    pub(crate) fn wildcard_child(&self) -> Option<&Node> {
        self.wildcard.as_deref()
    }

    pub(crate) fn endpoint(&self) -> Option<&Endpoint> {
        self.endpoint.as_deref()
    }

    /// Follow an already-parsed pattern without creating anything.
    pub(crate) fn lookup(&self, segments: &[Segment<'_>], fold: bool) -> Option<&Node> {
        let mut node = self;
        for seg in segments {
            node = match *seg {
                Segment::Static(s) => node.static_child(s.as_bytes(), fold)?,
                Segment::Param(_) => node.param.as_deref()?,
                Segment::Wildcard(_) => node.wildcard.as_deref()?,
            };
        }
        Some(node)
    }

    /// Follow a pattern, creating missing nodes, and record `route` for `sel` at the end.
    /// The caller has already checked for conflicts.
    pub(crate) fn insert(
        &mut self,
        segments: &[Segment<'_>],
        fold: bool,
        sel: MethodSel,
        route: u32,
    ) {
        let mut node = self;
        for seg in segments {
            node = match *seg {
                Segment::Static(s) => node.static_child_mut(s.as_bytes(), fold),
                Segment::Param(_) => node.param.get_or_insert_with(Box::default),
                Segment::Wildcard(_) => node.wildcard.get_or_insert_with(Box::default),
            };
        }
        node.endpoint
            .get_or_insert_with(Box::default)
            .set(sel, route);
    }

    fn static_child_mut(&mut self, seg: &[u8], fold: bool) -> &mut Node {
        let i = match self
            .statics
            .binary_search_by(|e| cmp_key(&e.key, seg, fold))
        {
            Ok(i) => i,
            Err(i) => {
                let key = if fold {
                    seg.to_ascii_lowercase()
                } else {
                    seg.to_vec()
                };
                let edge = StaticEdge {
                    key: key.into_boxed_slice(),
                    node: Node::default(),
                };
                self.statics.insert(i, edge);
                i
            }
        };
        &mut self.statics[i].node
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cmp_key_folds_only_when_asked() {
        let cases: &[(&[u8], &[u8], bool, Ordering)] = &[
            (b"abc", b"abc", false, Ordering::Equal),
            (b"abc", b"ABC", false, Ordering::Greater),
            (b"abc", b"ABC", true, Ordering::Equal),
            (b"abc", b"abd", true, Ordering::Less),
            (b"ab", b"abc", true, Ordering::Less),
            (b"abc", b"ab", true, Ordering::Greater),
            (b"", b"", true, Ordering::Equal),
        ];
        for &(key, seg, fold, want) in cases {
            assert_eq!(cmp_key(key, seg, fold), want, "{key:?} {seg:?} {fold}");
        }
    }

    #[test]
    fn resolve_order() {
        let mut e = Endpoint::default();
        e.set(MethodSel::One(Method::Get), 1);
        e.set(MethodSel::All, 2);
        let cases = [
            (Some(Method::Get), Some(1)),
            (Some(Method::Head), Some(1)),
            (Some(Method::Post), Some(2)),
            (None, Some(2)),
        ];
        for (m, want) in cases {
            assert_eq!(e.resolve(m), want, "{m:?}");
        }
        e.set(MethodSel::One(Method::Head), 3);
        assert_eq!(e.resolve(Some(Method::Head)), Some(3));
        assert_eq!(e.allow_mask(), bit(Method::Get) | bit(Method::Head));
    }
}
