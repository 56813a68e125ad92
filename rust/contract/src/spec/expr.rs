//! The spec's small arithmetic: `B-N+1`, `i`, `1 to N`, `B down to B-N+1`.

use std::fmt;

use serde::{ser::SerializeStruct, Serialize, Serializer};

/// A sum of signed terms: the loop variable `i`, a size symbol (`B`, `N`) or a whole number.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Expr {
    terms: Vec<(i8, Term)>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Term {
    Variable,
    Size(usize, String),
    Number(u64),
}

/// The values an expression is evaluated with.
pub struct Scope<'a> {
    pub sizes: &'a [u64],
    pub i: Option<i128>,
}

impl Expr {
    /// Parses `text`; `symbols` are the size symbols the spec declares, in order.
    pub fn parse(text: &str, symbols: &[String]) -> Result<Self, String> {
        let mut terms = Vec::new();
        let mut sign = 1;
        let mut expect_term = true;
        let mut rest = text.trim();
        if rest.is_empty() {
            return Err("an empty expression".into());
        }
        while !rest.is_empty() {
            let c = rest.chars().next().unwrap_or_default();
            if expect_term {
                let end = rest
                    .find(|c: char| !c.is_ascii_alphanumeric())
                    .unwrap_or(rest.len());
                let word = &rest[..end];
                let term = if word == "i" {
                    Term::Variable
                } else if let Some(index) = symbols.iter().position(|s| s == word) {
                    Term::Size(index, word.to_string())
                } else if !word.is_empty() && word.bytes().all(|b| b.is_ascii_digit()) {
                    Term::Number(word.parse().map_err(|_| format!("{word} is too large"))?)
                } else {
                    return Err(format!(
                        "\"{word}\" is not i, a size ({}) or a whole number",
                        symbols.join(", ")
                    ));
                };
                terms.push((sign, term));
                rest = rest[end..].trim_start();
                expect_term = false;
            } else {
                sign = match c {
                    '+' => 1,
                    '-' => -1,
                    _ => return Err(format!("expected + or - before \"{rest}\"")),
                };
                rest = rest[1..].trim_start();
                expect_term = true;
            }
        }
        if expect_term {
            return Err(format!("\"{text}\" ends with an operator"));
        }
        Ok(Self { terms })
    }

    pub fn uses_variable(&self) -> bool {
        self.terms.iter().any(|(_, t)| *t == Term::Variable)
    }

    pub fn eval(&self, scope: &Scope<'_>) -> i128 {
        self.terms
            .iter()
            .map(|(sign, term)| {
                let value = match term {
                    Term::Variable => scope.i.expect("i is used only inside a for range"),
                    Term::Size(index, _) => i128::from(scope.sizes[*index]),
                    Term::Number(n) => i128::from(*n),
                };
                i128::from(*sign) * value
            })
            .sum()
    }
}

/// An expression as the C# harness evaluates it: its terms, each `{sign, kind, value}` with kind
/// `i`, `size` (value: the size's index) or `number`. Parsing and checking stay here.
impl Serialize for Expr {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct Wire {
            sign: i8,
            kind: &'static str,
            value: u64,
        }
        serializer.collect_seq(self.terms.iter().map(|(sign, term)| {
            let (kind, value) = match term {
                Term::Variable => ("i", 0),
                Term::Size(index, _) => ("size", *index as u64),
                Term::Number(n) => ("number", *n),
            };
            Wire {
                sign: *sign,
                kind,
                value,
            }
        }))
    }
}

/// A range with its text, which the C# harness names when one is empty.
impl Serialize for Range {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut range = serializer.serialize_struct("Range", 4)?;
        range.serialize_field("from", &self.from)?;
        range.serialize_field("to", &self.to)?;
        range.serialize_field("descending", &self.descending)?;
        range.serialize_field("text", &self.to_string())?;
        range.end()
    }
}

/// `from to to` (ascending) or `from down to to` (descending), both ends included.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Range {
    pub from: Expr,
    pub to: Expr,
    pub descending: bool,
}

impl Range {
    pub fn parse(text: &str, symbols: &[String]) -> Result<Self, String> {
        let (from, to, descending) = if let Some((from, to)) = text.split_once(" down to ") {
            (from, to, true)
        } else if let Some((from, to)) = text.split_once(" to ") {
            (from, to, false)
        } else {
            return Err(format!(
                "\"{text}\" is not a range such as \"1 to N\" or \"B down to B-N+1\""
            ));
        };
        let (from, to) = (Expr::parse(from, symbols)?, Expr::parse(to, symbols)?);
        if from.uses_variable() || to.uses_variable() {
            return Err(format!("the range \"{text}\" cannot use i"));
        }
        Ok(Self {
            from,
            to,
            descending,
        })
    }

    /// The lowest and highest value, or why the range is empty or reversed for these sizes.
    fn bounds(&self, sizes: &[u64]) -> Result<(i128, i128), String> {
        let scope = Scope { sizes, i: None };
        let (from, to) = (self.from.eval(&scope), self.to.eval(&scope));
        let (low, high) = if self.descending {
            (to, from)
        } else {
            (from, to)
        };
        if low > high {
            return Err(format!("the range {self} is empty ({from} to {to})"));
        }
        Ok((low, high))
    }

    /// How many values the range has, without building them.
    pub fn len(&self, sizes: &[u64]) -> Result<u128, String> {
        let (low, high) = self.bounds(sizes)?;
        Ok((high - low) as u128 + 1)
    }

    /// The values of the range, or why it is empty or reversed for these sizes.
    pub fn values(&self, sizes: &[u64]) -> Result<Vec<i128>, String> {
        let (low, high) = self.bounds(sizes)?;
        let values = low..=high;
        Ok(if self.descending {
            values.rev().collect()
        } else {
            values.collect()
        })
    }
}

impl fmt::Display for Expr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (k, (sign, term)) in self.terms.iter().enumerate() {
            match (k, sign) {
                (0, -1) => f.write_str("-")?,
                (0, _) => {}
                (_, -1) => f.write_str("-")?,
                _ => f.write_str("+")?,
            }
            match term {
                Term::Variable => f.write_str("i")?,
                Term::Size(_, symbol) => f.write_str(symbol)?,
                Term::Number(n) => write!(f, "{n}")?,
            }
        }
        Ok(())
    }
}

impl fmt::Display for Range {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let word = if self.descending { "down to" } else { "to" };
        write!(f, "{} {word} {}", self.from, self.to)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn symbols() -> Vec<String> {
        vec!["B".into(), "N".into()]
    }

    #[test]
    fn sums_and_differences() {
        let e = Expr::parse("B - N + 1", &symbols()).unwrap();
        assert_eq!(
            e.eval(&Scope {
                sizes: &[1000, 100],
                i: None
            }),
            901
        );
        let e = Expr::parse("i+B", &symbols()).unwrap();
        assert_eq!(
            e.eval(&Scope {
                sizes: &[1000, 100],
                i: Some(7)
            }),
            1007
        );
    }

    #[test]
    fn rejects_unknown_words_and_dangling_operators() {
        assert!(Expr::parse("B*2", &symbols())
            .unwrap_err()
            .contains("expected + or -"));
        assert!(Expr::parse("K+1", &symbols())
            .unwrap_err()
            .contains("\"K\""));
        assert!(Expr::parse("B+", &symbols())
            .unwrap_err()
            .contains("ends with an operator"));
        assert!(Expr::parse(" ", &symbols()).is_err());
    }

    #[test]
    fn ranges_run_both_ways() {
        let up = Range::parse("B+1 to B+N", &symbols()).unwrap();
        assert_eq!(up.values(&[10, 3]).unwrap(), vec![11, 12, 13]);
        let down = Range::parse("B down to B-N+1", &symbols()).unwrap();
        assert_eq!(down.values(&[10, 3]).unwrap(), vec![10, 9, 8]);
        assert!(up.values(&[10, 0]).unwrap_err().contains("empty"));
        assert!(Range::parse("1..N", &symbols()).is_err());
        assert!(Range::parse("i to N", &symbols()).is_err());
    }
}
