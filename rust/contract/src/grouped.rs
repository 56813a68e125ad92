//! Whole numbers with their thousands separated by commas, as Criterion prints nanoseconds: the
//! result files' bencher and split lines, and the sizes in messages.

use std::fmt;

/// A whole number as Criterion prints one: `1,234,568`.
pub struct Grouped(pub u64);

impl fmt::Display for Grouped {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let digits = self.0.to_string();
        let mut out = String::new();
        for (k, c) in digits.chars().enumerate() {
            if k > 0 && (digits.len() - k) % 3 == 0 {
                out.push(',');
            }
            out.push(c);
        }
        f.pad(&out)
    }
}
