//! Numbers for people, in English and Russian: grouped whole numbers, durations and ratios with
//! three significant digits, and plural forms. Machines get the raw values (the JSON summary).

use serde::Serialize;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Lang {
    En,
    Ru,
}

impl Lang {
    pub fn code(self) -> &'static str {
        match self {
            Lang::En => "en",
            Lang::Ru => "ru",
        }
    }

    /// The text of this language of two.
    pub fn pick<'a>(self, en: &'a str, ru: &'a str) -> &'a str {
        match self {
            Lang::En => en,
            Lang::Ru => ru,
        }
    }

    fn group_separator(self) -> char {
        match self {
            Lang::En => ',',
            // Russian groups digits with a (non-breaking) space.
            Lang::Ru => '\u{a0}',
        }
    }

    /// The spec's text in this language.
    pub fn text(self, text: &contract::spec::Text) -> String {
        match self {
            Lang::En => text.en.clone(),
            Lang::Ru => text.ru.clone(),
        }
    }

    pub fn decimal_separator(self) -> char {
        match self {
            Lang::En => '.',
            Lang::Ru => ',',
        }
    }
}

/// A table's sizes, as every title and method table names them: "B = 1,000, N = 100".
pub fn sizes(background: u64, operations: u64, lang: Lang) -> String {
    format!(
        "B = {}, N = {}",
        whole(background, lang),
        whole(operations, lang)
    )
}

/// 1000000 → "1,000,000" (en) or "1 000 000" (ru).
pub fn whole(n: u64, lang: Lang) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (k, c) in digits.chars().enumerate() {
        if k > 0 && (digits.len() - k) % 3 == 0 {
            out.push(lang.group_separator());
        }
        out.push(c);
    }
    out
}

/// Three significant digits: 1234.5 → "1,230", 12.345 → "12.3", 0.5 → "0.500".
pub fn significant(value: f64, lang: Lang) -> String {
    if value >= 100.0 {
        let magnitude = 10f64.powi(value.log10().floor() as i32 - 2);
        return whole(((value / magnitude).round() * magnitude) as u64, lang);
    }
    let decimals = if value >= 10.0 {
        1
    } else if value >= 1.0 {
        2
    } else {
        3
    };
    format!("{value:.decimals$}").replace('.', &lang.decimal_separator().to_string())
}

/// A number's text without the zeros `significant` keeps after the separator: "10.0 µs" →
/// "10 µs", "1,00×" → "1×", "2.50 s" → "2.5 s".
pub fn trim_zeros(text: String) -> String {
    let end = text
        .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == ','))
        .unwrap_or(text.len());
    let (number, rest) = text.split_at(end);
    if number.contains(['.', ',']) {
        format!(
            "{}{rest}",
            number.trim_end_matches('0').trim_end_matches(['.', ','])
        )
    } else {
        text
    }
}

/// A unit of a scale: how many base units it holds, and its English and Russian symbols.
type Unit = (f64, &'static str, &'static str);

/// The largest of `units` (largest first) that keeps a whole part of `value`, with the value in it.
fn in_unit(value: f64, units: &[Unit], lang: Lang) -> (f64, f64, &'static str) {
    let (scale, en, ru) = units
        .iter()
        .copied()
        .find(|(scale, ..)| value >= *scale)
        .unwrap_or(units[units.len() - 1]);
    (value / scale, scale, if lang == Lang::En { en } else { ru })
}

/// Nanoseconds in the largest unit that keeps a whole part: "812 ns", "12.3 µs", "1.23 ms".
pub fn duration(ns: f64, lang: Lang) -> String {
    const UNITS: [Unit; 4] = [
        (1e9, "s", "с"),
        (1e6, "ms", "мс"),
        (1e3, "µs", "мкс"),
        (1.0, "ns", "нс"),
    ];
    let (value, scale, unit) = in_unit(ns, &UNITS, lang);
    // Rounding can carry into the next unit (999.7 µs → "1,000 µs"): print it there instead.
    if value >= 999.5 && scale < 1e9 {
        return duration(1000.0 * scale, lang);
    }
    format!("{} {unit}", significant(value, lang))
}

/// Bytes in the largest binary unit that keeps a whole part, three significant digits:
/// "688 B", "65.6 MiB", "1.23 GiB" ("65,6 МиБ" in Russian).
pub fn bytes(n: f64, lang: Lang) -> String {
    const UNITS: [Unit; 4] = [
        (1024.0 * 1024.0 * 1024.0, "GiB", "ГиБ"),
        (1024.0 * 1024.0, "MiB", "МиБ"),
        (1024.0, "KiB", "КиБ"),
        (1.0, "B", "Б"),
    ];
    let (value, scale, unit) = in_unit(n, &UNITS, lang);
    if scale == 1.0 {
        return format!("{} {unit}", whole(n.round() as u64, lang));
    }
    format!("{} {unit}", significant(value, lang))
}

/// Requests per second, three significant digits in the largest unit that keeps a whole part:
/// "812", "45.6k", "1.23M" ("45,6 тыс.", "1,23 млн" in Russian).
pub fn per_second(n: f64, lang: Lang) -> String {
    const UNITS: [Unit; 3] = [
        (1e6, "M", "\u{a0}млн"),
        (1e3, "k", "\u{a0}тыс."),
        (1.0, "", ""),
    ];
    let (value, scale, unit) = in_unit(n, &UNITS, lang);
    if value >= 999.5 && scale < 1e6 {
        return per_second(1000.0 * scale, lang);
    }
    format!("{}{unit}", significant(value, lang))
}

/// The Russian plural form for n: 0 one (1, 21, …), 1 few (2–4, 22–24, …), 2 many.
pub fn russian_form(n: u64) -> usize {
    match (n % 10, n % 100) {
        (1, r) if r != 11 => 0,
        (2..=4, r) if !(12..=14).contains(&r) => 1,
        _ => 2,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_digits_per_language() {
        assert_eq!(whole(1_000_000, Lang::En), "1,000,000");
        assert_eq!(whole(1_000, Lang::Ru), "1\u{a0}000");
        assert_eq!(whole(100, Lang::Ru), "100");
    }

    #[test]
    fn durations_keep_three_significant_digits() {
        assert_eq!(duration(812.4, Lang::En), "812 ns");
        assert_eq!(duration(2_382.0, Lang::En), "2.38 µs");
        assert_eq!(duration(12_345.0, Lang::Ru), "12,3 мкс");
        assert_eq!(duration(3_127_074.0, Lang::En), "3.13 ms");
        assert_eq!(duration(999_700.0, Lang::En), "1.00 ms");
        assert_eq!(duration(1_500_000_000.0, Lang::Ru), "1,50 с");
        assert_eq!(duration(0.4, Lang::En), "0.400 ns");
        assert_eq!(significant(1_314.0, Lang::En), "1,310");
    }

    #[test]
    fn bytes_take_binary_units() {
        assert_eq!(bytes(688.4, Lang::En), "688 B");
        assert_eq!(bytes(1_536.0, Lang::En), "1.50 KiB");
        assert_eq!(bytes(68_787_814.0, Lang::Ru), "65,6 МиБ");
        assert_eq!(bytes(4_187_593_113.0, Lang::En), "3.90 GiB");
    }

    #[test]
    fn russian_plurals() {
        let forms: Vec<usize> = [1, 2, 5, 11, 12, 21, 22, 25, 100, 1000, 1001]
            .iter()
            .map(|&n| russian_form(n))
            .collect();
        assert_eq!(forms, [0, 1, 2, 2, 2, 0, 1, 2, 2, 2, 0]);
    }
}
