//! Pattern lexing: turns `/users/:id(\d+){/:tab}` into literal text, params, wildcards and
//! optional groups, rewriting Express 4 modifiers (`:x?`, `:x*`, `:x+`) into groups on the way.

use crate::constraint::{closing_paren, Constraint};
use crate::error::RouteError;

/// Capture slots are tracked in a `u64` mask (which ones an alternative leaves out).
pub(crate) const MAX_PARAMS: usize = 64;
/// Groups double the alternatives; the expansion limit bites long before this, which only
/// bounds the work done on absurd patterns.
const MAX_GROUPS: usize = 32;
/// Nested groups are lexed recursively.
const MAX_NESTING: usize = 8;

#[derive(Debug)]
pub(crate) enum Token {
    /// Literal characters with escapes resolved; `/` still separates segments here.
    Text(String),
    /// `:name` or `:name(regex)`. `slot` indexes the pattern's names; `at` is the `:`.
    Param {
        slot: usize,
        constraint: Option<Constraint>,
        at: usize,
    },
    /// `*name`, bare `*`, or a repeated param (`:name+`). `at` is the `*` or `:`.
    Wildcard { slot: usize, at: usize },
    /// `{...}`: may be left out.
    Group(Vec<Token>),
}

/// A lexed pattern: its tokens and the capture names, in textual order.
#[derive(Debug)]
pub(crate) struct Lexed {
    pub(crate) tokens: Vec<Token>,
    pub(crate) names: Vec<String>,
}

/// Lex a pattern. `case_insensitive` only affects how constraints are compiled.
pub(crate) fn lex(pattern: &str, case_insensitive: bool) -> Result<Lexed, RouteError> {
    if !pattern.starts_with(['/', '{']) {
        return Err(RouteError::malformed(pattern, "must start with \"/\""));
    }
    let mut lexer = Lexer {
        pattern,
        bytes: pattern.as_bytes(),
        i: 0,
        names: Vec::new(),
        wildcard: false,
        groups: 0,
        case_insensitive,
    };
    let tokens = lexer.sequence(None, 0)?;
    Ok(Lexed {
        tokens,
        names: lexer.names,
    })
}

fn is_name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// RFC 3986 path characters that Express patterns give no meaning to.
fn is_plain_literal(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"-._~!$&',;=@".contains(&b)
}

struct Lexer<'p> {
    pattern: &'p str,
    bytes: &'p [u8],
    i: usize,
    names: Vec<String>,
    wildcard: bool,
    groups: usize,
    case_insensitive: bool,
}

impl<'p> Lexer<'p> {
    fn err(&self, at: usize, reason: impl std::fmt::Display) -> RouteError {
        RouteError::malformed_at(self.pattern, at, reason)
    }

    /// Tokens up to the end of the pattern, or up to the `}` closing the group opened at `open`.
    fn sequence(&mut self, open: Option<usize>, depth: usize) -> Result<Vec<Token>, RouteError> {
        let mut out = Vec::new();
        loop {
            let at = self.i;
            let Some(&b) = self.bytes.get(at) else {
                return match open {
                    Some(open) => Err(self.err(open, "unclosed \"{\"")),
                    None => Ok(out),
                };
            };
            match b {
                b'}' if open.is_some() => {
                    self.i += 1;
                    return Ok(out);
                }
                b'{' => {
                    self.group_count(at, depth + 1)?;
                    self.i += 1;
                    let inner = self.sequence(Some(at), depth + 1)?;
                    if inner.is_empty() {
                        return Err(self.err(at, "empty optional group \"{}\""));
                    }
                    out.push(Token::Group(inner));
                }
                b':' => self.param(&mut out)?,
                b'*' => {
                    self.i += 1;
                    let name = match self.name() {
                        "" => "*",
                        name => name,
                    };
                    let slot = self.capture(name, at, true)?;
                    out.push(Token::Wildcard { slot, at });
                }
                b'\\' => {
                    let c = self.pattern[at + 1..].chars().next();
                    // Path characters that are pattern syntax unless escaped.
                    let escapable = |b: u8| is_plain_literal(b) || b":()*+[]".contains(&b);
                    match c {
                        Some(c) if c.is_ascii() && escapable(c as u8) => push_text(&mut out, c),
                        Some(c) => {
                            return Err(self.err(
                                at,
                                format_args!(
                                    "cannot escape {c:?} (it can never appear in a request path)"
                                ),
                            ))
                        }
                        None => return Err(self.err(at, "a trailing \"\\\" escapes nothing")),
                    }
                    self.i += 2;
                }
                b'%' => {
                    let hex = self.bytes.get(at + 1..at + 3);
                    if !hex.is_some_and(|h| h.iter().all(u8::is_ascii_hexdigit)) {
                        return Err(
                            self.err(at, "\"%\" must start a two-digit hex escape like %20")
                        );
                    }
                    out_text(&mut out).push_str(&self.pattern[at..at + 3]);
                    self.i += 3;
                }
                b'/' => {
                    push_text(&mut out, '/');
                    self.i += 1;
                }
                b if is_plain_literal(b) => {
                    push_text(&mut out, b as char);
                    self.i += 1;
                }
                _ => return Err(self.unexpected(at)),
            }
        }
    }

    fn unexpected(&self, at: usize) -> RouteError {
        let c = self.pattern[at..].chars().next().unwrap_or('\u{fffd}');
        let hint = match c {
            '(' => " (a regex constraint follows a parameter name, like :id(\\d+); escape a literal one as \\()",
            ')' => " (unmatched; escape a literal one as \\))",
            '}' => " (unmatched)",
            '?' | '+' => " (modifiers follow a parameter name, like :name? or :name+; Express 4 character modifiers like /ab?c are not supported)",
            '[' | ']' => " (escape it as \\[ or \\])",
            c if !c.is_ascii() => " (percent-encode non-ASCII text)",
            _ => "",
        };
        self.err(at, format_args!("unsupported character {c:?}{hint}"))
    }

    /// Consume a name (possibly empty).
    fn name(&mut self) -> &'p str {
        let start = self.i;
        while self.bytes.get(self.i).copied().is_some_and(is_name_byte) {
            self.i += 1;
        }
        &self.pattern[start..self.i]
    }

    /// Register a capture name; returns its slot.
    fn capture(&mut self, name: &str, at: usize, wildcard: bool) -> Result<usize, RouteError> {
        if wildcard {
            // Two multi-segment captures would make matching quadratic in the path length.
            if self.wildcard {
                return Err(self.err(
                    at,
                    "only one wildcard (*, :name* or :name+) per pattern is supported",
                ));
            }
            self.wildcard = true;
        }
        // Duplicate names would make the params object ambiguous; Express silently keeps the
        // last one, which hides bugs.
        if self.names.iter().any(|n| n == name) {
            return Err(self.err(at, format_args!("parameter name {name:?} is used twice")));
        }
        if self.names.len() == MAX_PARAMS {
            return Err(self.err(
                at,
                format_args!("too many parameters (at most {MAX_PARAMS})"),
            ));
        }
        self.names.push(name.to_owned());
        Ok(self.names.len() - 1)
    }

    /// `:name`, then an optional `(regex)`, then an optional `?`, `*` or `+` modifier.
    fn param(&mut self, out: &mut Vec<Token>) -> Result<(), RouteError> {
        let at = self.i;
        self.i += 1;
        let name = self.name();
        if name.is_empty() {
            return Err(self.err(at, "empty parameter name"));
        }
        let constraint = match self.bytes.get(self.i) {
            Some(b'(') => Some(self.constraint()?),
            _ => None,
        };
        let bytes = self.bytes;
        // Syntactically; classification rejects an alternative where text follows anyway.
        let ends_segment = |i: usize| matches!(bytes.get(i), None | Some(b'/' | b'{' | b'}'));
        let modifier = match self.bytes.get(self.i) {
            Some(b'?') => Some(b'?'),
            Some(b'+') => Some(b'+'),
            Some(b'*') if ends_segment(self.i + 1) => Some(b'*'),
            _ => None,
        };
        let Some(modifier) = modifier else {
            let slot = self.capture(name, at, false)?;
            out.push(Token::Param {
                slot,
                constraint,
                at,
            });
            return Ok(());
        };
        self.i += 1;
        if modifier == b'?' {
            // Express 4: a `/` or `.` right before the param is optional along with it.
            let prefix = take_last(out, b"/.");
            let slot = self.capture(name, at, false)?;
            let mut group = Vec::from_iter(prefix.map(|c| Token::Text(c.into())));
            group.push(Token::Param {
                slot,
                constraint,
                at,
            });
            self.group_count(at, 1)?;
            out.push(Token::Group(group));
            return Ok(());
        }
        let m = modifier as char;
        if constraint.is_some() {
            return Err(self.err(
                at,
                format_args!("a repeated parameter (:{name}{m}) cannot have a regex constraint"),
            ));
        }
        if !ends_segment(self.i) || !ends_with_slash(out) {
            return Err(self.err(
                at,
                format_args!("a repeated parameter must fill a whole segment, like /:{name}{m}"),
            ));
        }
        let slot = self.capture(name, at, true)?;
        if modifier == b'+' {
            out.push(Token::Wildcard { slot, at });
        } else {
            // `/:x*` is `{/*x}`: zero segments drop the slash too.
            take_last(out, b"/");
            self.group_count(at, 1)?;
            out.push(Token::Group(vec![
                Token::Text("/".into()),
                Token::Wildcard { slot, at },
            ]));
        }
        Ok(())
    }

    /// Count one more group (opened at `at`, `depth` levels deep) against the limits.
    fn group_count(&mut self, at: usize, depth: usize) -> Result<(), RouteError> {
        self.groups += 1;
        if self.groups > MAX_GROUPS || depth > MAX_NESTING {
            return Err(self.err(at, "too many optional groups"));
        }
        Ok(())
    }

    /// The `(...)` after a param name, compiled.
    fn constraint(&mut self) -> Result<Constraint, RouteError> {
        let open = self.i;
        let Some(close) = closing_paren(self.bytes, open) else {
            return Err(self.err(open, "unclosed \"(\""));
        };
        self.i = close + 1;
        Constraint::compile(&self.pattern[open + 1..close], self.case_insensitive)
            .map_err(|reason| self.err(open, reason))
    }
}

/// The trailing text token, created if the last token is not text.
fn out_text(out: &mut Vec<Token>) -> &mut String {
    if !matches!(out.last(), Some(Token::Text(_))) {
        out.push(Token::Text(String::new()));
    }
    match out.last_mut() {
        Some(Token::Text(t)) => t,
        _ => unreachable!("just pushed"),
    }
}

fn push_text(out: &mut Vec<Token>, c: char) {
    out_text(out).push(c);
}

fn ends_with_slash(out: &[Token]) -> bool {
    matches!(out.last(), Some(Token::Text(t)) if t.ends_with('/'))
}

/// Remove and return the last literal character if it is one of `chars`.
fn take_last(out: &mut Vec<Token>, chars: &[u8]) -> Option<char> {
    let Some(Token::Text(t)) = out.last_mut() else {
        return None;
    };
    let c = t
        .chars()
        .last()
        .filter(|&c| c.is_ascii() && chars.contains(&(c as u8)))?;
    t.pop();
    if t.is_empty() {
        out.pop();
    }
    Some(c)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::RouteErrorKind;

    #[test]
    fn rejects_malformed_patterns() {
        let params: String = (0..65).map(|i| format!("/:p{i}")).collect();
        let deep = format!("/{}a{}", "{".repeat(9), "}".repeat(9));
        let cases: &[(&str, &str)] = &[
            ("", "must start with \"/\""),
            ("users", "must start with \"/\""),
            ("/users/:", "empty parameter name at byte 7"),
            ("/users/:/x", "empty parameter name at byte 7"),
            ("/a/:-b", "empty parameter name at byte 3"),
            ("/a b", "unsupported character ' ' at byte 2"),
            ("/a?b", "character '?' (modifiers follow a parameter name"),
            ("/a+b", "unsupported character '+'"),
            (
                "/(\\d+)",
                "character '(' (a regex constraint follows a parameter",
            ),
            ("/a)", "unsupported character ')' (unmatched"),
            ("/a}", "unsupported character '}' (unmatched) at byte 2"),
            ("/a[b", "unsupported character '['"),
            ("/{/:x", "unclosed \"{\" at byte 1"),
            ("/a{b{c}", "unclosed \"{\" at byte 2"),
            ("/a{}", "empty optional group \"{}\" at byte 2"),
            (&deep, "too many optional groups at byte 9"),
            ("/:id(\\d+", "unclosed \"(\" at byte 4"),
            ("/:id([)", "unclosed \"(\" at byte 4"),
            ("/:id()", "empty regex constraint \"()\" at byte 4"),
            ("/:id(a{2,1})", "invalid regex constraint (a{2,1})"),
            ("/:id((a{1000}){1000})", "invalid regex constraint"),
            (
                "/:a(\\d+)+",
                "(:a+) cannot have a regex constraint at byte 1",
            ),
            ("/x-:a*", "must fill a whole segment, like /:a* at byte 3"),
            ("/:a+b", "must fill a whole segment, like /:a+ at byte 1"),
            (
                "/a/*/b/*",
                "only one wildcard (*, :name* or :name+) per pattern",
            ),
            ("/a/*/b/*", "is supported at byte 7"),
            ("/:a*/*b", "only one wildcard"),
            ("/:id/:id", "parameter name \"id\" is used twice at byte 5"),
            ("/:x/*x", "parameter name \"x\" is used twice at byte 4"),
            (&params, "too many parameters (at most 64)"),
            (
                "/caf\u{e9}",
                "'\u{e9}' (percent-encode non-ASCII text) at byte 4",
            ),
            ("/a\u{0}", "unsupported character '\\0'"),
            (
                "/%zz",
                "must start a two-digit hex escape like %20 at byte 1",
            ),
            ("/%2", "two-digit hex escape"),
            ("/a\\", "a trailing \"\\\" escapes nothing at byte 2"),
            ("/a\\?", "cannot escape '?'"),
        ];
        for (pattern, needle) in cases {
            let err = lex(pattern, false).expect_err(pattern);
            assert_eq!(err.kind(), RouteErrorKind::Malformed);
            assert!(err.message().contains(needle), "{pattern}: {err}");
            assert!(err.message().contains(&format!("{pattern:?}")), "{err}");
        }
    }
}
