//! Route pattern parsing: turns `/users/:id/*rest` into segments, and the error type for
//! malformed or conflicting patterns.

use std::fmt;

/// One `/`-separated piece of a pattern.
///
/// Later syntax (`:id(\d+)` constraints, `:opt?`, `{/:opt}` groups) will extend this enum; the
/// tree only ever sees segments, so it does not need to know about pattern text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Segment<'p> {
    /// Literal text (may be empty: `/a/` ends in an empty static segment).
    Static(&'p str),
    /// `:name`: exactly one non-empty path segment.
    Param(&'p str),
    /// `*name` or bare `*` (name `"*"`): the rest of the path, at least one byte.
    Wildcard(&'p str),
}

impl<'p> Segment<'p> {
    /// The capture name, for segments that capture.
    pub(crate) fn name(&self) -> Option<&'p str> {
        match *self {
            Segment::Static(_) => None,
            Segment::Param(n) | Segment::Wildcard(n) => Some(n),
        }
    }
}

/// What kind of problem a [`RouteError`] reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RouteErrorKind {
    /// The pattern text is not valid (or uses syntax not supported yet).
    Malformed,
    /// The pattern is valid but an existing route already claims the same method and paths.
    Conflict,
}

/// Why [`Router::insert`](crate::Router::insert) rejected a route. The message is meant to be
/// shown to the application author as-is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RouteError {
    kind: RouteErrorKind,
    message: String,
}

impl RouteError {
    pub(crate) fn malformed(pattern: &str, reason: impl fmt::Display) -> Self {
        RouteError {
            kind: RouteErrorKind::Malformed,
            message: format!("invalid route pattern {pattern:?}: {reason}"),
        }
    }

    pub(crate) fn conflict(message: String) -> Self {
        RouteError {
            kind: RouteErrorKind::Conflict,
            message,
        }
    }

    /// Human-readable description naming the offending pattern(s).
    pub fn message(&self) -> &str {
        &self.message
    }

    /// Malformed pattern or conflict with an existing route.
    pub fn kind(&self) -> RouteErrorKind {
        self.kind
    }
}

impl fmt::Display for RouteError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for RouteError {}

/// Split and validate a pattern. Option-independent: trailing-slash folding happens in the
/// router so that a pattern is either valid in every configuration or in none.
pub(crate) fn parse(pattern: &str) -> Result<Vec<Segment<'_>>, RouteError> {
    let Some(rest) = pattern.strip_prefix('/') else {
        return Err(RouteError::malformed(pattern, "must start with \"/\""));
    };
    let mut segments = Vec::new();
    for text in rest.split('/') {
        segments.push(parse_segment(pattern, text)?);
    }
    let wildcard_at = segments
        .iter()
        .position(|s| matches!(s, Segment::Wildcard(_)));
    if let Some(i) = wildcard_at {
        if i + 1 != segments.len() {
            return Err(RouteError::malformed(
                pattern,
                "a wildcard (*) must be the last segment",
            ));
        }
    }
    // Duplicate names would make the params object ambiguous; Express silently keeps the
    // last one, which hides bugs.
    let names: Vec<&str> = segments.iter().filter_map(Segment::name).collect();
    for (i, name) in names.iter().enumerate() {
        if names[..i].contains(name) {
            return Err(RouteError::malformed(
                pattern,
                format_args!("parameter name {name:?} is used twice"),
            ));
        }
    }
    Ok(segments)
}

fn parse_segment<'p>(pattern: &str, text: &'p str) -> Result<Segment<'p>, RouteError> {
    if let Some(name) = text.strip_prefix(':') {
        check_name(pattern, name, "parameter")?;
        return Ok(Segment::Param(name));
    }
    if let Some(name) = text.strip_prefix('*') {
        if name.is_empty() {
            return Ok(Segment::Wildcard("*"));
        }
        check_name(pattern, name, "wildcard")?;
        return Ok(Segment::Wildcard(name));
    }
    check_static(pattern, text)?;
    Ok(Segment::Static(text))
}

fn is_name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

fn check_name(pattern: &str, name: &str, what: &str) -> Result<(), RouteError> {
    if name.is_empty() {
        return Err(RouteError::malformed(
            pattern,
            format_args!("empty {what} name"),
        ));
    }
    if let Some(c) = name
        .chars()
        .find(|&c| !c.is_ascii() || !is_name_byte(c as u8))
    {
        let hint = match c {
            '(' => " (regex constraints are not supported yet)",
            '?' => " (optional parameters are not supported yet)",
            '*' | '+' => " (repeat modifiers are not supported)",
            _ => "",
        };
        return Err(RouteError::malformed(
            pattern,
            format_args!(
                "unexpected character {c:?} in {what} name {name:?}; \
                 names use only A-Z, a-z, 0-9 and _ and fill a whole segment{hint}"
            ),
        ));
    }
    Ok(())
}

/// Static text may use RFC 3986 path characters except those Express patterns give a meaning
/// (`( ) * + ? : { } [ ]`), so nothing that would be special in Express is silently literal.
/// Non-ASCII is rejected because clients percent-encode it: it could never match.
fn check_static(pattern: &str, text: &str) -> Result<(), RouteError> {
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' => {}
            b'-' | b'.' | b'_' | b'~' | b'!' | b'$' | b'&' | b'\'' | b',' | b';' | b'=' | b'@' => {}
            b'%' => {
                let hex = bytes.get(i + 1..i + 3);
                if !hex.is_some_and(|h| h.iter().all(u8::is_ascii_hexdigit)) {
                    return Err(RouteError::malformed(
                        pattern,
                        "\"%\" must start a two-digit hex escape like %20",
                    ));
                }
                i += 3;
                continue;
            }
            _ => {
                let c = text[i..].chars().next().unwrap_or('\u{fffd}');
                let hint = match c {
                    ':' => " (a parameter must fill a whole segment, like /:name)",
                    '*' => " (a wildcard must fill a whole segment, like /*name)",
                    '(' | ')' | '?' | '+' | '{' | '}' | '[' | ']' => {
                        " (this Express pattern syntax is not supported yet)"
                    }
                    c if !c.is_ascii() => " (percent-encode non-ASCII text)",
                    _ => "",
                };
                return Err(RouteError::malformed(
                    pattern,
                    format_args!("unsupported character {c:?} in segment {text:?}{hint}"),
                ));
            }
        }
        i += 1;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::Segment::*;
    use super::*;

    #[test]
    fn parses_valid_patterns() {
        let cases: &[(&str, &[Segment])] = &[
            ("/", &[Static("")]),
            ("/about", &[Static("about")]),
            ("/about/", &[Static("about"), Static("")]),
            ("//", &[Static(""), Static("")]),
            ("/users/:id", &[Static("users"), Param("id")]),
            ("/:a/:b_2", &[Param("a"), Param("b_2")]),
            ("/files/*path", &[Static("files"), Wildcard("path")]),
            ("/*", &[Wildcard("*")]),
            ("/a.b-c~d/%20x", &[Static("a.b-c~d"), Static("%20x")]),
        ];
        for (pattern, want) in cases {
            assert_eq!(parse(pattern).unwrap(), *want, "{pattern}");
        }
    }

    #[test]
    fn rejects_malformed_patterns() {
        let cases: &[(&str, &str)] = &[
            ("", "must start with \"/\""),
            ("users", "must start with \"/\""),
            ("/users/:", "empty parameter name"),
            ("/users/:/x", "empty parameter name"),
            ("/a/*/b", "wildcard (*) must be the last segment"),
            ("/a/*rest/", "wildcard (*) must be the last segment"),
            ("/a/*re-st", "unexpected character '-' in wildcard name"),
            ("/users/:id-x", "unexpected character '-' in parameter name"),
            (
                "/users/:id(\\d+)",
                "regex constraints are not supported yet",
            ),
            ("/users/:id?", "optional parameters are not supported yet"),
            ("/a:b", "parameter must fill a whole segment"),
            ("/ab*cd", "wildcard must fill a whole segment"),
            ("/a b", "unsupported character ' '"),
            ("/a?b", "not supported yet"),
            ("/{/:x}", "not supported yet"),
            ("/caf\u{e9}", "percent-encode non-ASCII"),
            ("/a\u{0}", "unsupported character"),
            ("/%zz", "two-digit hex escape"),
            ("/%2", "two-digit hex escape"),
            ("/:id/:id", "\"id\" is used twice"),
            ("/:x/*x", "\"x\" is used twice"),
        ];
        for (pattern, needle) in cases {
            let err = parse(pattern).expect_err(pattern);
            assert_eq!(err.kind(), RouteErrorKind::Malformed);
            assert!(
                err.message().contains(needle),
                "{pattern}: {:?} lacks {needle:?}",
                err.message()
            );
            assert!(err.message().contains(&format!("{pattern:?}")), "{err}");
        }
    }
}
