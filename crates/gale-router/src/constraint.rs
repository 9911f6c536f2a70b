//! `:name(regex)` constraints: finding the `)` that closes them and compiling the regex
//! anchored to the whole segment.

use regex_lite::{Regex, RegexBuilder};

/// NFA budget per constraint: real constraints are tiny, `(a{1000}){1000}` is not.
const REGEX_SIZE_LIMIT: usize = 1 << 18;

/// A compiled `:name(regex)` constraint.
#[derive(Clone, Debug)]
pub(crate) struct Constraint {
    /// The regex as written between the parentheses: identical text means the same edge.
    pub(crate) source: Box<str>,
    /// `^(?:source)$`, case-insensitive when routing is.
    pub(crate) regex: Regex,
}

impl Constraint {
    /// Compile `source`; Err is the reason, for the caller to place in the pattern.
    pub(crate) fn compile(source: &str, case_insensitive: bool) -> Result<Constraint, String> {
        if source.is_empty() {
            return Err("empty regex constraint \"()\"".into());
        }
        // `source` has balanced parens (see `closing_paren`), so it cannot close the group
        // early and escape the anchors.
        let regex = RegexBuilder::new(&format!("^(?:{source})$"))
            .case_insensitive(case_insensitive)
            .size_limit(REGEX_SIZE_LIMIT)
            .build()
            .map_err(|e| format!("invalid regex constraint ({source}): {e}"))?;
        Ok(Constraint {
            source: source.into(),
            regex,
        })
    }
}

/// The index of the `)` closing the `(` at `open`, skipping `\` escapes and `[...]` classes
/// (where parens are literal); None when unbalanced.
pub(crate) fn closing_paren(bytes: &[u8], open: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut class = 0usize;
    let mut i = open;
    loop {
        match *bytes.get(i)? {
            b'\\' => i += 1,
            b'[' => class += 1,
            b']' if class > 0 => class -= 1,
            b'(' if class == 0 => depth += 1,
            b')' if class == 0 => {
                depth -= 1;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
        i += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_closing_paren() {
        let cases: &[(&str, Option<usize>)] = &[
            ("(a)", Some(2)),
            ("(\\d+)/x", Some(4)),
            ("((a)(b))c", Some(7)),
            ("(\\))", Some(3)),
            ("([)])", Some(4)),
            ("([[:alpha:])]x)", Some(14)),
            ("(a", None),
            ("(\\)", None),
            ("([)", None),
        ];
        for &(text, want) in cases {
            assert_eq!(closing_paren(text.as_bytes(), 0), want, "{text}");
        }
    }

    #[test]
    fn compiles_anchored_with_case_option() {
        let cases = [
            ("[a-z]+", false, "abc", true),
            ("[a-z]+", false, "ABC", false),
            ("[a-z]+", true, "ABC", true),
            ("[a-z]+", true, "abc1", false),
            ("\\d+|latest", false, "1latest", false),
            ("\\d+|latest", false, "latest", true),
            ("a|", false, "", true),
        ];
        for (source, ci, text, want) in cases {
            let c = Constraint::compile(source, ci).unwrap();
            assert_eq!(c.regex.is_match(text), want, "{source} {ci} {text}");
            assert_eq!(&*c.source, source);
        }
        for bad in ["", "a{2,1}", "(a{1000}){1000}", "(?<", "\\"] {
            assert!(Constraint::compile(bad, false).is_err(), "{bad}");
        }
    }
}
