//! In-segment templates like `:name.:ext` or `:from-:to`, matched as path-to-regexp v8 does:
//! params are non-empty, greedy left to right, and a param never contains the text before it.

use crate::pattern::Part;

/// Bits of the feasibility table kept on the stack (2048: a 4-part template over a 400-byte
/// segment). Longer segments are rare and fall back to the heap.
const STACK_WORDS: usize = 32;

#[derive(Clone, Debug, PartialEq, Eq)]
enum Piece {
    /// ASCII-lowercased when matching is case-insensitive.
    Lit(Box<[u8]>),
    /// `after_param`: an earlier param shares the segment, so this one may not contain the
    /// literal right before it (v8 compiles it to `(?:(?!lit)[^/])+`).
    Param { after_param: bool },
}

/// A segment made of literal text and params, stored on a tree edge.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Template {
    pieces: Box<[Piece]>,
    /// Literal bytes plus one per param: shorter segments cannot match.
    min_len: usize,
}

fn eq_at(seg: &[u8], at: usize, lit: &[u8], fold: bool) -> bool {
    seg.get(at..at + lit.len()).is_some_and(|s| {
        if fold {
            s.eq_ignore_ascii_case(lit)
        } else {
            s == lit
        }
    })
}

/// Row-major bit table: `can[i][p]` = pieces `i..` match `seg[p..]` exactly.
struct Table<'a> {
    bits: &'a mut [u64],
    width: usize,
}

impl Table<'_> {
    fn get(&self, row: usize, col: usize) -> bool {
        let k = row * self.width + col;
        self.bits[k / 64] >> (k % 64) & 1 == 1
    }

    fn set(&mut self, row: usize, col: usize) {
        let k = row * self.width + col;
        self.bits[k / 64] |= 1 << (k % 64);
    }
}

impl Template {
    /// Build from parsed parts; `fold` lowercases literals for case-insensitive matching.
    pub(crate) fn new(parts: &[Part], fold: bool) -> Template {
        let mut seen_param = false;
        let mut min_len = 0;
        let pieces = parts
            .iter()
            .map(|part| match part {
                Part::Lit(s) => {
                    min_len += s.len();
                    let b = s.as_bytes();
                    Piece::Lit(
                        if fold {
                            b.to_ascii_lowercase()
                        } else {
                            b.to_vec()
                        }
                        .into(),
                    )
                }
                Part::Param => {
                    min_len += 1;
                    let after_param = seen_param;
                    seen_param = true;
                    Piece::Param { after_param }
                }
            })
            .collect();
        Template { pieces, min_len }
    }

    /// The literal param `i` may not contain, if any.
    fn exclusion(&self, i: usize) -> Option<&[u8]> {
        match (&self.pieces[i], i.checked_sub(1).map(|j| &self.pieces[j])) {
            (Piece::Param { after_param: true }, Some(Piece::Lit(lit))) => Some(lit),
            _ => None,
        }
    }

    /// Largest end for param `i` starting at `p`: the span must stop before completing the
    /// first occurrence of its excluded literal.
    fn max_end(&self, i: usize, seg: &[u8], p: usize, fold: bool) -> usize {
        let Some(x) = self.exclusion(i) else {
            return seg.len();
        };
        (p..seg.len())
            .find(|&q| eq_at(seg, q, x, fold))
            .map_or(seg.len(), |q| q + x.len() - 1)
    }

    /// Match one whole path segment (no `/`) that starts at byte `base` of the path. On
    /// success pushes one span per param and returns true; otherwise leaves `params` alone.
    ///
    /// A right-to-left feasibility table, then a greedy left-to-right pick: linear in the
    /// segment per piece, where naive backtracking can be exponential.
    pub(crate) fn matches(
        &self,
        seg: &[u8],
        base: usize,
        fold: bool,
        params: &mut Vec<(u32, u32)>,
    ) -> bool {
        let n = seg.len();
        if n < self.min_len {
            return false;
        }
        let rows = self.pieces.len() + 1;
        let words = (rows * (n + 1)).div_ceil(64);
        let mut stack = [0u64; STACK_WORDS];
        let mut heap = Vec::new();
        let bits = if words <= STACK_WORDS {
            &mut stack[..words]
        } else {
            heap.resize(words, 0);
            &mut heap[..]
        };
        let mut can = Table { bits, width: n + 1 };
        can.set(rows - 1, n);
        for i in (0..self.pieces.len()).rev() {
            match &self.pieces[i] {
                Piece::Lit(lit) => {
                    for p in 0..(n + 1).saturating_sub(lit.len()) {
                        if can.get(i + 1, p + lit.len()) && eq_at(seg, p, lit, fold) {
                            can.set(i, p);
                        }
                    }
                }
                Piece::Param { .. } => {
                    let exclude = self.exclusion(i);
                    // Scanning leftwards: the nearest feasible end and excluded occurrence.
                    let mut next_ok = None;
                    let mut occurs = None;
                    for p in (0..n).rev() {
                        if can.get(i + 1, p + 1) {
                            next_ok = Some(p + 1);
                        }
                        if let Some(x) = exclude {
                            if eq_at(seg, p, x, fold) {
                                occurs = Some(p + x.len() - 1);
                            }
                        }
                        if next_ok.is_some_and(|e| e <= occurs.unwrap_or(n)) {
                            can.set(i, p);
                        }
                    }
                }
            }
        }
        if !can.get(0, 0) {
            return false;
        }
        let mut p = 0;
        for (i, piece) in self.pieces.iter().enumerate() {
            match piece {
                Piece::Lit(lit) => p += lit.len(),
                Piece::Param { .. } => {
                    let max = self.max_end(i, seg, p, fold);
                    // `can[i][p]` guarantees a feasible end in `p+1..=max`.
                    let e = (p + 1..=max)
                        .rev()
                        .find(|&e| can.get(i + 1, e))
                        .unwrap_or(max);
                    // Spans fit in u32: `find` rejects longer paths.
                    params.push(((base + p) as u32, (base + e) as u32));
                    p = e;
                }
            }
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `:` is a param, anything else literal text: `":.:"` is `:a.:b`.
    fn template(spec: &str, fold: bool) -> Template {
        let mut parts = Vec::new();
        for piece in spec.split_inclusive(':') {
            let lit = piece.trim_end_matches(':');
            if !lit.is_empty() {
                parts.push(Part::Lit(lit.into()));
            }
            if piece.ends_with(':') {
                parts.push(Part::Param);
            }
        }
        Template::new(&parts, fold)
    }

    #[test]
    fn matches_like_path_to_regexp() {
        type Case = (
            &'static str,
            &'static str,
            bool,
            Option<&'static [(u32, u32)]>,
        );
        let cases: &[Case] = &[
            (":.:", "a.b", false, Some(&[(10, 11), (12, 13)])),
            // The first param is greedy; the second may not contain the `.` before it.
            (":.:", "a.b.c", false, Some(&[(10, 13), (14, 15)])),
            (":.:", "a..b", false, Some(&[(10, 12), (13, 14)])),
            (":.:", "a.", false, None),
            (":.:", ".b", false, None),
            (":.:", "ab", false, None),
            (":-:", "LAX-SFO-X", false, Some(&[(10, 17), (18, 19)])),
            ("files.:", "files.a.b", false, Some(&[(16, 19)])),
            ("files.:", "FILES.json", false, None),
            ("files.:", "FILES.json", true, Some(&[(16, 20)])),
            ("files.:", "files.", false, None),
            (":.json", "a.b.json", false, Some(&[(10, 13)])),
            (":.json", ".json", false, None),
            ("v:", "v1", false, Some(&[(11, 12)])),
            ("v:", "v", false, None),
            // Multi-byte literal: the second param may hold `-` but not `--`.
            (":--:", "a--b--c", false, Some(&[(10, 14), (16, 17)])),
            (":--:", "a-b--c-d", false, Some(&[(10, 13), (15, 18)])),
            (":-:.", "a-b-c.", false, Some(&[(10, 13), (14, 15)])),
            (":AB:", "xaby", true, Some(&[(10, 11), (13, 14)])),
            (":AB:", "xaby", false, None),
            (":a:", "banana", false, None),
            (":a:", "bananax", false, Some(&[(10, 15), (16, 17)])),
            (
                ":-:-:",
                "a-b-c-d",
                false,
                Some(&[(10, 13), (14, 15), (16, 17)]),
            ),
        ];
        for &(spec, seg, fold, want) in cases {
            let mut params = vec![(1, 1)];
            let got = template(spec, fold).matches(seg.as_bytes(), 10, fold, &mut params);
            let ctx = format!("{spec:?} on {seg:?} fold={fold}");
            match want {
                Some(spans) => {
                    assert!(got, "{ctx}");
                    assert_eq!(&params[1..], spans, "{ctx}");
                }
                None => assert!(!got && params == [(1, 1)], "{ctx}: {params:?}"),
            }
        }
    }

    #[test]
    fn long_segments_stay_linear() {
        // Many candidate split points for every param: backtracking would explode here.
        let seg = "a-.".repeat(3000);
        let t = template(":-:.:-:.:-:x", false);
        let mut params = Vec::new();
        assert!(!t.matches(seg.as_bytes(), 0, false, &mut params));
        let seg = format!("{seg}p-q.r-s.t-ux");
        assert!(t.matches(seg.as_bytes(), 0, false, &mut params));
        let got: Vec<&str> = params
            .iter()
            .map(|&(s, e)| &seg[s as usize..e as usize])
            .collect();
        assert_eq!(got[1..], ["q", "r", "s", "t", "u"]);
        assert_eq!(got[0].len(), 9001);
    }
}
