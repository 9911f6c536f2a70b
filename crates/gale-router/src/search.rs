//! One `find`: a depth-first walk of the tree, trying edges in priority order and backtracking
//! when a branch dead-ends or has no route for the request method.

use memchr::{memchr, memrchr};

use crate::method::Method;
use crate::node::{Endpoint, Node};

/// State for one `find`: the walk plus what a 405 needs if nothing accepts.
pub(crate) struct Search<'p> {
    pub(crate) path: &'p [u8],
    pub(crate) fold: bool,
    pub(crate) method: Option<Method>,
    /// Union of allow masks of every endpoint that matched the path but not the method.
    pub(crate) allow: u16,
    pub(crate) matched: bool,
}

fn starts_with(seg: &[u8], prefix: &[u8], fold: bool) -> bool {
    seg.get(..prefix.len()).is_some_and(|s| {
        if fold {
            s.eq_ignore_ascii_case(prefix)
        } else {
            s == prefix
        }
    })
}

impl Search<'_> {
    /// Match the segment starting at `pos` (just after a `/`) and everything after it below
    /// `node`. Returns the accepting leaf; on failure `params` is left as it was on entry.
    /// Lengths fit in u32 (`find` rejects longer paths), so spans are cast freely.
    pub(crate) fn walk(
        &mut self,
        node: &Node,
        pos: usize,
        params: &mut Vec<(u32, u32)>,
    ) -> Option<u32> {
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
            for edge in node.templates() {
                if edge.template.matches(seg, pos, self.fold, params) {
                    if let Some(r) = self.descend(&edge.node, seg_end, params) {
                        return Some(r);
                    }
                    params.truncate(depth);
                }
            }
            // Regexes see text; raw non-UTF-8 bytes (never sent by browsers) fail them all.
            let text = match node.constrained() {
                [] => None,
                _ => std::str::from_utf8(seg).ok(),
            };
            if let Some(text) = text {
                for edge in node.constrained() {
                    if edge.regex.is_match(text) {
                        params.push((pos as u32, seg_end as u32));
                        if let Some(r) = self.descend(&edge.node, seg_end, params) {
                            return Some(r);
                        }
                        params.truncate(depth);
                    }
                }
            }
            if let Some(child) = node.param_child() {
                params.push((pos as u32, seg_end as u32));
                if let Some(r) = self.descend(child, seg_end, params) {
                    return Some(r);
                }
                params.truncate(depth);
            }
        }
        for edge in node.wildcards() {
            if !starts_with(seg, &edge.prefix, self.fold) {
                continue;
            }
            let start = pos + edge.prefix.len();
            if let Some(r) = self.wildcard(&edge.node, start, params) {
                return Some(r);
            }
        }
        None
    }

    /// A wildcard capturing from `start`, at least one byte. Routes that continue after it
    /// are more specific, so they go first (greedy: ending at the last `/`, then earlier
    /// ones); capturing the whole rest of the path for a route ending here comes last.
    fn wildcard(
        &mut self,
        child: &Node,
        start: usize,
        params: &mut Vec<(u32, u32)>,
    ) -> Option<u32> {
        let path = self.path;
        if start >= path.len() {
            return None;
        }
        let depth = params.len();
        if child.has_children() {
            let mut end = path.len();
            while let Some(i) = memrchr(b'/', &path[start + 1..end]) {
                end = start + 1 + i;
                params.push((start as u32, end as u32));
                if let Some(r) = self.walk(child, end + 1, params) {
                    return Some(r);
                }
                params.truncate(depth);
            }
        }
        let ep = child.endpoint()?;
        params.push((start as u32, path.len() as u32));
        let r = self.accept(ep);
        if r.is_none() {
            params.truncate(depth);
        }
        r
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
        let leaf = ep.resolve(self.method);
        if leaf.is_none() {
            self.matched = true;
            self.allow |= ep.allow_mask();
        }
        leaf
    }
}
