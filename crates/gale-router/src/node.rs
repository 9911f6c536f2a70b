//! The segment trie: one node per pattern position, with static, template, constrained,
//! param and wildcard children, and the routes that end there.

use std::cmp::Ordering;

use regex_lite::Regex;

use crate::method::{bit, Method, MethodSel, METHOD_COUNT};
use crate::pattern::Segment;
use crate::template::Template;

/// A position in the tree (the paths whose first N segments are fixed, or end a wildcard).
///
/// Children are kept by kind because matching priority is by kind: static, then templates
/// (`:name.:ext`), then constrained params (`:id(\d+)`), then the plain param, then
/// wildcards. Capture edges are shared by every route with the same capture shape at that
/// position; capture *names* live on the routes, so `/u/:id/posts` and `/u/:uid/likes` coexist.
#[derive(Debug, Default)]
pub(crate) struct Node {
    /// Sorted by key under [`cmp_key`]; keys are ASCII-lowercased when matching is
    /// case-insensitive.
    statics: Vec<StaticEdge>,
    /// In insertion order (Express's tie-break); the first that matches and leads to a
    /// route wins.
    templates: Vec<TemplateEdge>,
    /// In insertion order, all tried before the plain param.
    constrained: Vec<ConstrainedEdge>,
    param: Option<Box<Node>>,
    /// Longest literal prefix first (`/a*` before `/*`), then insertion order.
    wildcards: Vec<WildcardEdge>,
    endpoint: Option<Box<Endpoint>>,
}

#[derive(Debug)]
struct StaticEdge {
    key: Box<[u8]>,
    node: Node,
}

/// An in-segment template edge.
#[derive(Debug)]
pub(crate) struct TemplateEdge {
    pub(crate) template: Template,
    pub(crate) node: Node,
}

/// A constrained param edge; routes with the same constraint text share it.
#[derive(Debug)]
pub(crate) struct ConstrainedEdge {
    source: Box<str>,
    pub(crate) regex: Regex,
    pub(crate) node: Node,
}

/// A wildcard edge: `prefix` (lowercased when folding) is literal text at the start of the
/// segment, the capture is everything after it up to a segment boundary, at least one byte.
#[derive(Debug)]
pub(crate) struct WildcardEdge {
    pub(crate) prefix: Box<[u8]>,
    pub(crate) node: Node,
}

/// The routes that end at a node, by method, as indices into the router's leaf list (one
/// leaf per registered alternative of a route).
#[derive(Debug, Default)]
pub(crate) struct Endpoint {
    methods: [Option<u32>; METHOD_COUNT],
    all: Option<u32>,
    /// `Allow` bitmask for a 405: registered methods, plus HEAD whenever GET is.
    allow: u16,
}

impl Endpoint {
    /// The leaf registered for exactly this selector (used for conflict detection).
    pub(crate) fn slot(&self, sel: MethodSel) -> Option<u32> {
        match sel {
            MethodSel::One(m) => self.methods[m.index()],
            MethodSel::All => self.all,
        }
    }

    fn set(&mut self, sel: MethodSel, leaf: u32) {
        match sel {
            MethodSel::One(m) => {
                self.methods[m.index()] = Some(leaf);
                self.allow |= bit(m);
                if m == Method::Get {
                    self.allow |= bit(Method::Head);
                }
            }
            MethodSel::All => self.all = Some(leaf),
        }
    }

    /// Pick the leaf for a request method: exact, then GET for HEAD, then `All`.
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

fn fold_key(s: &str, fold: bool) -> Box<[u8]> {
    if fold {
        s.as_bytes().to_ascii_lowercase().into()
    } else {
        s.as_bytes().into()
    }
}

/// The edge `same` picks out, or a new one from `make` inserted at index `at`.
fn find_or_insert<E>(
    edges: &mut Vec<E>,
    same: impl Fn(&E) -> bool,
    at: usize,
    make: impl FnOnce() -> E,
) -> &mut E {
    let i = match edges.iter().position(same) {
        Some(i) => i,
        None => {
            edges.insert(at, make());
            at
        }
    };
    &mut edges[i]
}

impl Node {
    pub(crate) fn static_child(&self, seg: &[u8], fold: bool) -> Option<&Node> {
        self.statics
            .binary_search_by(|e| cmp_key(&e.key, seg, fold))
            .ok()
            .map(|i| &self.statics[i].node)
    }

    pub(crate) fn templates(&self) -> &[TemplateEdge] {
        &self.templates
    }

    pub(crate) fn constrained(&self) -> &[ConstrainedEdge] {
        &self.constrained
    }

    pub(crate) fn param_child(&self) -> Option<&Node> {
        self.param.as_deref()
    }

    pub(crate) fn wildcards(&self) -> &[WildcardEdge] {
        &self.wildcards
    }

    pub(crate) fn endpoint(&self) -> Option<&Endpoint> {
        self.endpoint.as_deref()
    }

    /// True when some route continues below this node (a wildcard leading here then has to
    /// try stopping at earlier segment boundaries, not just the end of the path).
    pub(crate) fn has_children(&self) -> bool {
        !self.statics.is_empty()
            || !self.templates.is_empty()
            || !self.constrained.is_empty()
            || self.param.is_some()
            || !self.wildcards.is_empty()
    }

    /// Follow an already-parsed alternative without creating anything.
    pub(crate) fn lookup(&self, segments: &[Segment], fold: bool) -> Option<&Node> {
        let mut node = self;
        for seg in segments {
            node = match seg {
                Segment::Static(s) => node.static_child(s.as_bytes(), fold)?,
                Segment::Template(parts) => {
                    let t = Template::new(parts, fold);
                    &node.templates.iter().find(|e| e.template == t)?.node
                }
                Segment::Param(Some(c)) => {
                    &node.constrained.iter().find(|e| e.source == c.source)?.node
                }
                Segment::Param(None) => node.param.as_deref()?,
                Segment::Wildcard(prefix) => {
                    let key = fold_key(prefix, fold);
                    &node.wildcards.iter().find(|e| e.prefix == key)?.node
                }
            };
        }
        Some(node)
    }

    /// Follow an alternative, creating missing nodes, and record `leaf` for `sel` at the end.
    /// The caller has already checked for conflicts.
    pub(crate) fn insert(&mut self, segments: &[Segment], fold: bool, sel: MethodSel, leaf: u32) {
        let mut node = self;
        for seg in segments {
            node = match seg {
                Segment::Static(s) => node.static_child_mut(s.as_bytes(), fold),
                Segment::Template(parts) => {
                    let t = Template::new(parts, fold);
                    let edges = &mut node.templates;
                    let at = edges.len();
                    let same = |e: &TemplateEdge| e.template == t;
                    let edge = find_or_insert(edges, same, at, || TemplateEdge {
                        template: t.clone(),
                        node: Node::default(),
                    });
                    &mut edge.node
                }
                Segment::Param(Some(c)) => {
                    let edges = &mut node.constrained;
                    let at = edges.len();
                    let same = |e: &ConstrainedEdge| e.source == c.source;
                    let edge = find_or_insert(edges, same, at, || ConstrainedEdge {
                        source: c.source.clone(),
                        regex: c.regex.clone(),
                        node: Node::default(),
                    });
                    &mut edge.node
                }
                Segment::Param(None) => node.param.get_or_insert_with(Box::default),
                Segment::Wildcard(prefix) => {
                    let key = fold_key(prefix, fold);
                    let edges = &mut node.wildcards;
                    // After every edge with a prefix at least as long: stable order.
                    let at = edges.partition_point(|e| e.prefix.len() >= key.len());
                    let same = |e: &WildcardEdge| e.prefix == key;
                    let edge = find_or_insert(edges, same, at, || WildcardEdge {
                        prefix: key.clone(),
                        node: Node::default(),
                    });
                    &mut edge.node
                }
            };
        }
        node.endpoint
            .get_or_insert_with(Box::default)
            .set(sel, leaf);
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
