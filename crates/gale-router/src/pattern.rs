//! Route pattern parsing: expands optional parts into alternatives (as path-to-regexp v8 does)
//! and splits each alternative into the segments the tree stores.

use crate::constraint::Constraint;
use crate::error::RouteError;
use crate::lexer::{lex, Token, MAX_PARAMS};

/// Optional parts multiply: `n` independent ones give `2^n` alternatives.
const MAX_ALTERNATIVES: usize = 64;

/// One `/`-separated piece of an alternative. Capture names are not stored: captures are
/// reported in textual order and names live on the route.
#[derive(Clone, Debug)]
pub(crate) enum Segment {
    /// Literal text (may be empty: `/a/` ends in an empty static segment).
    Static(String),
    /// `:name` or `:name(regex)`: exactly one non-empty path segment.
    Param(Option<Constraint>),
    /// Literal text and params inside one segment, like `:name.:ext` or `v:major`. Params are
    /// never adjacent, at least one is present, and none is constrained.
    Template(Vec<Part>),
    /// `*name`, bare `*` or `:name+`, after the literal prefix in its segment (usually
    /// empty): at least one byte, spanning one or more segments.
    Wildcard(String),
}

/// A piece of a [`Segment::Template`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Part {
    Lit(String),
    Param,
}

/// One concrete alternative of a pattern.
#[derive(Debug)]
pub(crate) struct Variant {
    pub(crate) segments: Vec<Segment>,
    /// Capture slots this alternative leaves out (bit i = `names[i]`).
    pub(crate) absent: u64,
}

/// A parsed pattern: capture names in textual order and its alternatives, most complete first.
#[derive(Debug)]
pub(crate) struct Parsed {
    pub(crate) names: Vec<String>,
    pub(crate) variants: Vec<Variant>,
}

/// Parse and validate a pattern. Trailing-slash folding happens in the router, so that a
/// pattern is either valid in every configuration or in none; `case_insensitive` only
/// affects how regex constraints are compiled.
pub(crate) fn parse(pattern: &str, case_insensitive: bool) -> Result<Parsed, RouteError> {
    let lexed = lex(pattern, case_insensitive)?;
    let mut seqs = Vec::new();
    if !expand(&mut vec![&lexed.tokens[..]], &mut Vec::new(), &mut seqs) {
        return Err(RouteError::malformed(
            pattern,
            format_args!("too many optional parts (more than {MAX_ALTERNATIVES} alternatives)"),
        ));
    }
    let all = match lexed.names.len() {
        MAX_PARAMS => u64::MAX,
        n => (1 << n) - 1,
    };
    let variants = seqs
        .iter()
        .map(|seq| split(pattern, seq, all))
        .collect::<Result<_, _>>()?;
    Ok(Parsed {
        names: lexed.names,
        variants,
    })
}

/// A token of one alternative: groups resolved.
#[derive(Clone, Copy)]
enum Flat<'t> {
    Text(&'t str),
    Param(usize, Option<&'t Constraint>, usize),
    Wild(usize, usize),
}

/// Every way of keeping or dropping groups, with-group first (the order path-to-regexp v8
/// tries them in). `stack` holds the token runs still to visit, innermost on top; it and
/// `acc` are restored on return. False when the alternatives exceed the limit.
fn expand<'t>(
    stack: &mut Vec<&'t [Token]>,
    acc: &mut Vec<Flat<'t>>,
    out: &mut Vec<Vec<Flat<'t>>>,
) -> bool {
    let Some(top) = stack.pop() else {
        out.push(acc.clone());
        return out.len() <= MAX_ALTERNATIVES;
    };
    let ok = match top.split_first() {
        None => expand(stack, acc, out),
        Some((Token::Group(inner), rest)) => {
            stack.push(rest);
            stack.push(inner);
            let with = expand(stack, acc, out);
            stack.pop();
            let ok = with && expand(stack, acc, out);
            stack.pop();
            ok
        }
        Some((token, rest)) => {
            acc.push(match token {
                Token::Text(t) => Flat::Text(t),
                Token::Param {
                    slot,
                    constraint,
                    at,
                } => Flat::Param(*slot, constraint.as_ref(), *at),
                Token::Wildcard { slot, at } => Flat::Wild(*slot, *at),
                Token::Group(_) => unreachable!("matched above"),
            });
            stack.push(rest);
            let ok = expand(stack, acc, out);
            stack.pop();
            acc.pop();
            ok
        }
    };
    stack.push(top);
    ok
}

/// A piece of one segment of an alternative, before classification.
enum Piece<'t> {
    Lit(String),
    Param(Option<&'t Constraint>, usize),
    Wild(usize),
}

/// Cut one alternative at `/` and classify each segment.
fn split(pattern: &str, seq: &[Flat<'_>], all: u64) -> Result<Variant, RouteError> {
    if seq.is_empty() {
        // Everything was optional (`{/:x}`): the alternative without it is the root.
        return Ok(Variant {
            segments: vec![Segment::Static(String::new())],
            absent: all,
        });
    }
    if !matches!(seq[0], Flat::Text(t) if t.starts_with('/')) {
        return Err(RouteError::malformed(
            pattern,
            "must start with \"/\" (also when its optional parts are left out)",
        ));
    }
    let mut present = 0u64;
    let mut segments = Vec::new();
    let mut pieces: Vec<Piece> = Vec::new();
    let mut started = false;
    for flat in seq {
        match *flat {
            Flat::Text(text) => {
                for (k, lit) in text.split('/').enumerate() {
                    if k > 0 {
                        if started {
                            segments.push(classify(pattern, &pieces)?);
                        }
                        pieces.clear();
                        started = true;
                    }
                    match pieces.last_mut() {
                        Some(Piece::Lit(prev)) => prev.push_str(lit),
                        _ if lit.is_empty() => {}
                        _ => pieces.push(Piece::Lit(lit.to_owned())),
                    }
                }
            }
            Flat::Param(slot, constraint, at) => {
                present |= 1 << slot;
                pieces.push(Piece::Param(constraint, at));
            }
            Flat::Wild(slot, at) => {
                present |= 1 << slot;
                pieces.push(Piece::Wild(at));
            }
        }
    }
    segments.push(classify(pattern, &pieces)?);
    Ok(Variant {
        segments,
        absent: all & !present,
    })
}

fn classify(pattern: &str, pieces: &[Piece<'_>]) -> Result<Segment, RouteError> {
    let err = |at: usize, reason: &str| -> Result<Segment, RouteError> {
        Err(RouteError::malformed_at(pattern, at, reason))
    };
    match pieces {
        [] => return Ok(Segment::Static(String::new())),
        [Piece::Lit(s)] => return Ok(Segment::Static(s.clone())),
        [Piece::Param(c, _)] => return Ok(Segment::Param(c.cloned())),
        [Piece::Wild(_)] => return Ok(Segment::Wildcard(String::new())),
        [Piece::Lit(prefix), Piece::Wild(_)] => return Ok(Segment::Wildcard(prefix.clone())),
        _ => {}
    }
    let mut parts = Vec::with_capacity(pieces.len());
    for (i, piece) in pieces.iter().enumerate() {
        match piece {
            Piece::Lit(s) => parts.push(Part::Lit(s.clone())),
            Piece::Wild(at) => {
                return err(
                    *at,
                    "a wildcard must end its segment and can only follow static text there",
                )
            }
            Piece::Param(Some(_), at) => {
                return err(
                    *at,
                    "a regex constraint needs its parameter to fill a whole segment",
                )
            }
            Piece::Param(None, at) => {
                if i > 0 && matches!(pieces[i - 1], Piece::Param(..)) {
                    return err(
                        *at,
                        "parameters in one segment must be separated by static text",
                    );
                }
                parts.push(Part::Param);
            }
        }
    }
    Ok(Segment::Template(parts))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::RouteErrorKind;

    /// `/users/:/x | /users -0`: `:` a param, `:(re)` a constrained one, `*` a wildcard after
    /// its prefix, template pieces inline; `-i` lists the slots an alternative leaves out.
    fn render(parsed: &Parsed) -> String {
        let alts: Vec<String> = parsed
            .variants
            .iter()
            .map(|v| {
                let mut out = String::new();
                for seg in &v.segments {
                    out.push('/');
                    match seg {
                        Segment::Static(s) => out.push_str(s),
                        Segment::Param(None) => out.push(':'),
                        Segment::Param(Some(c)) => out.push_str(&format!(":({})", c.source)),
                        Segment::Wildcard(prefix) => out.push_str(&format!("{prefix}*")),
                        Segment::Template(parts) => {
                            for part in parts {
                                match part {
                                    Part::Lit(s) => out.push_str(s),
                                    Part::Param => out.push(':'),
                                }
                            }
                        }
                    }
                }
                for slot in (0..64).filter(|i| v.absent >> i & 1 == 1) {
                    out.push_str(&format!(" -{slot}"));
                }
                out
            })
            .collect();
        alts.join(" | ")
    }

    #[test]
    fn parses_valid_patterns() {
        let cases: &[(&str, &[&str], &str)] = &[
            ("/", &[], "/"),
            ("/about", &[], "/about"),
            ("/about/", &[], "/about/"),
            ("//", &[], "//"),
            ("/a.b-c~d/%20x", &[], "/a.b-c~d/%20x"),
            ("/users/:id", &["id"], "/users/:"),
            ("/:a/:b_2", &["a", "b_2"], "/:/:"),
            ("/files/*path", &["path"], "/files/*"),
            ("/*", &["*"], "/*"),
            ("/a/*mid/b", &["mid"], "/a/*/b"),
            ("/foo*", &["*"], "/foo*"),
            ("/a/:rest+", &["rest"], "/a/*"),
            ("/a/:rest*", &["rest"], "/a/* | /a -0"),
            ("/a/:r*{/x}", &["r"], "/a/*/x | /a/* | /a/x -0 | /a -0"),
            // Constraints: balanced parens, escapes and classes (where `)` is literal).
            ("/users/:id(\\d+)", &["id"], "/users/:(\\d+)"),
            ("/u/:id([a-z)]+)", &["id"], "/u/:([a-z)]+)"),
            ("/u/:id(\\d+(?:x|\\)))", &["id"], "/u/:(\\d+(?:x|\\)))"),
            ("/u/:id(\\d{3})", &["id"], "/u/:(\\d{3})"),
            // Express 4 optionals take a `/` or `.` before them along.
            ("/a/:b?", &["b"], "/a/: | /a -0"),
            ("/a/:b(\\d+)?", &["b"], "/a/:(\\d+) | /a -0"),
            ("/file.:ext?", &["ext"], "/file.: | /file -0"),
            ("/:a?", &["a"], "/: | / -0"),
            ("/a/:b?/c", &["b"], "/a/:/c | /a/c -0"),
            // Params inside a segment.
            ("/files/:name.:ext", &["name", "ext"], "/files/:.:"),
            ("/flights/:from-:to", &["from", "to"], "/flights/:-:"),
            ("/v:major", &["major"], "/v:"),
            // Express 5 groups, with-group first, nestable.
            ("/users{/:id}", &["id"], "/users/: | /users -0"),
            ("/files{.:ext}", &["ext"], "/files.: | /files -0"),
            ("{/:a/:b}", &["a", "b"], "/:/: | / -0 -1"),
            ("/a{/b{/c}}", &[], "/a/b/c | /a/b | /a"),
            ("/{a}{b}", &[], "/ab | /a | /b | /"),
            ("/:a{-:b}", &["a", "b"], "/:-: | /: -1"),
            (
                "/x{/:a}{/:b}",
                &["a", "b"],
                "/x/:/: | /x/: -1 | /x/: -0 | /x -0 -1",
            ),
            // Escapes make pattern characters literal.
            ("/a\\:b/\\(x\\)\\*", &[], "/a:b/(x)*"),
        ];
        for &(pattern, names, want) in cases {
            let parsed = parse(pattern, false).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(parsed.names, names, "{pattern}");
            assert_eq!(render(&parsed), want, "{pattern}");
        }
    }

    #[test]
    fn rejects_malformed_alternatives() {
        let many_optionals = "/:a?/:b?/:c?/:d?/:e?/:f?/:g?";
        let cases: &[(&str, &str)] = &[
            ("/a/:r+{.x}", "a wildcard must end its segment"),
            (
                "/a/*x.js",
                "a wildcard must end its segment and can only follow static text there at byte 3",
            ),
            (
                "/:a-*b",
                "a wildcard must end its segment and can only follow static text there at byte 4",
            ),
            (
                "/:a:b",
                "parameters in one segment must be separated by static text at byte 3",
            ),
            (
                "/{:a}:b",
                "parameters in one segment must be separated by static text at byte 5",
            ),
            (
                "/:id(\\d+).json",
                "a regex constraint needs its parameter to fill a whole segment at byte 1",
            ),
            (
                "{/a}b",
                "must start with \"/\" (also when its optional parts are left out)",
            ),
            (
                many_optionals,
                "too many optional parts (more than 64 alternatives)",
            ),
        ];
        for (pattern, needle) in cases {
            let err = parse(pattern, false).expect_err(pattern);
            assert_eq!(err.kind(), RouteErrorKind::Malformed);
            assert!(err.message().contains(needle), "{pattern}: {err}");
            assert!(err.message().contains(&format!("{pattern:?}")), "{err}");
        }
    }
}
