//! SVG charts drawn with plotters' SVG backend, which writes text as <text> for the viewer to
//! render: no system fonts are needed. Every chart carries its own <title> and <desc>, so it says
//! what it shows when opened alone. The background stays transparent and a <style> block gives
//! text a colour at WCAG AA contrast on GitHub's light theme and, through
//! `prefers-color-scheme`, on its dark theme. All axes are logarithmic, labelled at every decade
//! from below the smallest value to above the largest; a figure is a dot, its spread a line
//! through it, so no bar starts from an arbitrary floor.

use anyhow::{anyhow, Result};
use plotters::{
    coord::Shift,
    prelude::*,
    style::text_anchor::{HPos, Pos, VPos},
};

use crate::{
    format::{duration, trim_zeros as axis, Lang},
    tables::Table,
};

/// What plotters writes as the colour of text and axes; the <style> block replaces it per theme.
const INK: RGBColor = RGBColor(0x80, 0x80, 0x80);
/// Text on the light theme (on white: 7.6:1) and on the dark one (on #0d1117: 12:1).
pub const TEXT_LIGHT: (u8, u8, u8) = (0x40, 0x48, 0x54);
pub const TEXT_DARK: (u8, u8, u8) = (0xc9, 0xd1, 0xd9);
/// One colour per series, distinguishable on white and on near-black: two stores and two servers
/// in three modes each.
pub const PALETTE: [RGBColor; 8] = [
    RGBColor(0x1f, 0x9e, 0x89),
    RGBColor(0x3b, 0x82, 0xf6),
    RGBColor(0xe0, 0x5d, 0x44),
    RGBColor(0xf2, 0x9e, 0x1f),
    RGBColor(0xb0, 0x5c, 0xd6),
    RGBColor(0x9a, 0x9a, 0x30),
    RGBColor(0xe0, 0x4f, 0x9a),
    RGBColor(0x7a, 0x8b, 0xa3),
];
/// Every store keeps one colour in every chart: its backend's place in the spec picks it from
/// [`PALETTE`] (the spec declares two Doublets stores and two servers in three modes: eight), a C#
/// client's variant of a server backend is a lighter or darker shade of it, and a server named
/// alone (the memory charts' "Redis") takes its first backend's colour. Anything else (a client
/// in the clients charts) takes its series' place.
pub struct Colours {
    backends: Vec<String>,
    suffixes: Vec<String>,
}

impl Colours {
    pub fn new(spec: &contract::spec::Spec) -> Self {
        Self {
            backends: spec.backends.iter().map(|b| b.name.clone()).collect(),
            suffixes: spec
                .clients
                .iter()
                .filter_map(|c| c.suffix.clone())
                .collect(),
        }
    }

    /// The colour of the series `name`, the `index`-th of its chart.
    pub fn of(&self, name: &str, index: usize) -> RGBColor {
        let base = |k: usize| PALETTE[k % PALETTE.len()];
        // A legend may say more after the store: "Redis_Pipeline (16 a batch)".
        let name = name.split(" (").next().unwrap_or(name);
        if let Some(k) = self.backends.iter().position(|b| b == name) {
            return base(k);
        }
        for (rank, suffix) in self.suffixes.iter().enumerate() {
            if let Some(backend) = name.strip_suffix(&format!("_{suffix}")) {
                if let Some(k) = self.backends.iter().position(|b| b == backend) {
                    return shade(base(k), rank);
                }
            }
        }
        if let Some(k) = self
            .backends
            .iter()
            .position(|b| b.starts_with(&format!("{name}_")))
        {
            return base(k);
        }
        base(index)
    }
}

/// The `rank`-th shade of a colour: lighter, then darker.
fn shade(RGBColor(r, g, b): RGBColor, rank: usize) -> RGBColor {
    let (toward, by) = if rank % 2 == 0 {
        (255.0, 0.45)
    } else {
        (0.0, 0.4)
    };
    let mix = |c: u8| (f64::from(c) + (toward - f64::from(c)) * by).round() as u8;
    RGBColor(mix(r), mix(g), mix(b))
}

/// The most legend entries to a line of the wide charts (fewer where names are long).
const LEGEND_PER_LINE: usize = 4;
/// The height of one legend line.
const LEGEND_LINE: u32 = 26;
const FONT: f64 = 15.0;
/// The SVG backend writes a font of size s as s / 1.24 pixels.
const PIXELS_PER_SIZE: f64 = 1.0 / 1.24;

/// An upper estimate of how wide `text` draws at `pixels` (an SVG font-size) in a sans-serif font,
/// from per-character widths in ems (DejaVu Sans, the widest common default): the charts name no
/// font file, so the reader's own font draws them, and layout must leave room for a wide one.
pub fn text_width(text: &str, pixels: f64) -> f64 {
    let em = |c: char| match c {
        ' ' | '.' | ',' | ':' | ';' | '\'' | '|' | '!' | 'i' | 'j' | 'l' | 'I' | '(' | ')'
        | '[' | ']' | 'f' | 't' | 'r' => 0.4,
        'm' | 'w' | 'M' | 'W' | 'ш' | 'щ' | 'ж' | 'ю' | 'ы' | 'Ш' | 'Щ' | 'Ж' | 'Ю' | 'Ы' | 'м'
        | 'Д' | 'Ф' | 'ф' | '…' | '—' | '%' | '@' => 0.95,
        'A'..='Z' | 'А'..='Я' | 'Ё' | '×' | '#' => 0.75,
        _ => 0.64,
    };
    text.chars().map(em).sum::<f64>() * pixels
}

/// `text` in lines of whole words, each as wide as `room` pixels at [`FONT`] where its words allow.
fn wrap(text: &str, room: f64) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    for word in text.split(' ') {
        match lines.last_mut() {
            Some(line) if text_width(&format!("{line} {word}"), FONT * PIXELS_PER_SIZE) <= room => {
                line.push(' ');
                line.push_str(word);
            }
            _ => lines.push(word.to_string()),
        }
    }
    lines
}

/// How many legend entries fit a line of `width` pixels, at most `most`: the longest name's width
/// with its swatch and a gap.
fn legend_per_line(names: &[(String, RGBColor)], width: u32, most: usize) -> usize {
    let longest = names
        .iter()
        .map(|(n, _)| text_width(n, FONT * PIXELS_PER_SIZE))
        .fold(0.0, f64::max);
    // Entries start 20 px in, one slot of width / per_line apart: the last ends inside.
    let fit = (f64::from(width) - 40.0) / (longest + 18.0 + 12.0);
    (fit.floor() as usize).clamp(1, most)
}

/// What a table's chart shows.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Time per iteration.
    Time,
    /// Each store's time divided by the fastest server mode's in the same row.
    Relative,
    /// A durable or distant store's time divided by its twin's ([`crate::variants`]): the table's
    /// cells already hold the rounds' ratios.
    Twin,
}

fn draw_error<E: std::fmt::Debug>(e: E) -> anyhow::Error {
    anyhow!("drawing a chart: {e:?}")
}

/// A table as a dot plot: a group per operation, a dot per backend at its median with its
/// interval (none with one round; its level in the title) as a vertical line; `Kind::Relative` divides every figure by the row's
/// fastest server mode, so Doublets and the servers read on one axis.
pub fn table(
    table: &Table,
    names: &[String],
    kind: Kind,
    title: &str,
    colours: &Colours,
    lang: Lang,
) -> Result<String> {
    // (group, series, median, low, high) of every measured cell.
    let mut dots = Vec::new();
    for (k, row) in table.rows.iter().enumerate() {
        let fastest = row
            .cells
            .iter()
            .filter_map(|c| c.as_ref().ok())
            .find(|c| c.fastest_server)
            .map(|c| c.median_ns);
        for (j, cell) in row.cells.iter().enumerate() {
            let Ok(cell) = cell else { continue };
            let scale = match (kind, fastest) {
                (Kind::Time | Kind::Twin, _) => 1.0,
                (Kind::Relative, Some(fastest)) => fastest,
                (Kind::Relative, None) => continue,
            };
            dots.push((
                k,
                j,
                cell.median_ns / scale,
                cell.span_ns().0.max(f64::MIN_POSITIVE) / scale,
                cell.span_ns().1 / scale,
            ));
        }
    }
    let (y_desc, label): (&str, &dyn Fn(f64) -> String) = match (kind, lang) {
        (Kind::Time, Lang::En) => ("time per iteration", &|v| axis(duration(v, lang))),
        (Kind::Time, Lang::Ru) => ("время итерации", &|v| axis(duration(v, lang))),
        (Kind::Relative, Lang::En) => ("time ÷ the fastest server mode's", &|v| ratio(v, lang)),
        (Kind::Twin, Lang::En) => ("time ÷ the same store's in RAM on loopback", &|v| {
            ratio(v, lang)
        }),
        (Kind::Twin, Lang::Ru) => (
            "время ÷ время того же хранилища в ОЗУ на loopback",
            &|v| ratio(v, lang),
        ),
        (Kind::Relative, Lang::Ru) => (
            "время ÷ время самого быстрого режима сервера",
            &|v| ratio(v, lang),
        ),
    };
    let range = decades(dots.iter().flat_map(|d| [d.3, d.4]), 10.0);
    let mut svg = String::new();
    {
        // Only the backends with a figure: a legend entry always has its mark.
        let shown: Vec<(String, RGBColor)> = table
            .backends
            .iter()
            .enumerate()
            .filter(|(j, _)| dots.iter().any(|d| d.1 == *j))
            .map(|(j, b)| (b.clone(), colours.of(b, j)))
            .collect();
        let (root, plot) = framed(&mut svg, title, &shown)?;
        let mut chart = ChartBuilder::on(&plot)
            .margin(10)
            .x_label_area_size(40)
            .y_label_area_size(90)
            .build_cartesian_2d(0f64..table.rows.len() as f64, widened(&range).log_scale())
            .map_err(draw_error)?;
        mesh(
            &mut chart,
            ("", 10.0),
            (y_desc, 10.0),
            &|_| String::new(),
            label,
        )?;
        if kind != Kind::Time {
            chart
                .draw_series(std::iter::once(PathElement::new(
                    [(0.0, 1.0), (table.rows.len() as f64, 1.0)],
                    INK.stroke_width(1),
                )))
                .map_err(draw_error)?;
        }
        let width = 0.8 / table.backends.len() as f64;
        for &(k, j, median, low, high) in &dots {
            let x = k as f64 + 0.1 + (j as f64 + 0.5) * width;
            let color = colours.of(&table.backends[j], j);
            chart
                .draw_series([PathElement::new(
                    [(x, low), (x, high)],
                    color.stroke_width(2),
                )])
                .map_err(draw_error)?;
            chart
                .draw_series([Circle::new((x, median), 5, color.filled())])
                .map_err(draw_error)?;
        }
        group_names(&root, names, |x| chart.backend_coord(&(x, range.start)))?;
        root.present().map_err(draw_error)?;
    }
    Ok(finish(
        svg,
        title,
        &describe(table, names, &dots, kind, lang),
    ))
}

/// One segment of a split bar: its name in English and Russian, its colour and its figure.
type SplitPart = (
    &'static str,
    &'static str,
    RGBColor,
    fn(&contract::split::Split) -> f64,
);

/// Where one server backend's time goes in a table ([`crate::tables::SplitCell`]): a bar per
/// operation, stacked to 100% of its end-to-end time: the server's native commands, its scripts'
/// and MULTI/EXEC's own time, and the rest (round trip, protocol, client). Shares, not times: the
/// rest can be a thousand times the execution, which a linear axis of times would hide.
pub fn split(
    cells: &[&contract::split::Split],
    names: &[String],
    title: &str,
    lang: Lang,
) -> Result<String> {
    let parts: [SplitPart; 4] = [
        (
            "native commands",
            "собственные команды",
            RGBColor(0x1f, 0x77, 0xb4),
            |c| c.native_ns,
        ),
        (
            "scripts",
            "скрипты",
            RGBColor(0xff, 0x7f, 0x0e),
            |c| c.script_ns,
        ),
        (
            "MULTI/EXEC",
            "MULTI/EXEC",
            RGBColor(0x2c, 0xa0, 0x2c),
            |c| c.transaction_ns,
        ),
        (
            "round trip, protocol, client",
            "обмен, протокол, клиент",
            RGBColor(0xaa, 0xaa, 0xaa),
            |c| c.rest_ns(),
        ),
    ];
    let shown: Vec<(String, RGBColor)> = parts
        .iter()
        .filter(|p| cells.iter().any(|c| p.3(c) > 0.0))
        .map(|p| (lang.pick(p.0, p.1).to_string(), p.2))
        .collect();
    let mut svg = String::new();
    {
        let (root, plot) = framed(&mut svg, title, &shown)?;
        let mut chart = ChartBuilder::on(&plot)
            .margin(10)
            .x_label_area_size(40)
            .y_label_area_size(90)
            .build_cartesian_2d(0f64..cells.len() as f64, 0f64..100f64)
            .map_err(draw_error)?;
        let y_desc = lang.pick(
            "share of the end-to-end time",
            "доля времени от начала до конца",
        );
        let style = ("sans-serif", FONT).into_font().color(&INK);
        chart
            .configure_mesh()
            .disable_x_mesh()
            .y_desc(y_desc)
            .axis_style(INK)
            .light_line_style(INK.mix(0.15))
            .bold_line_style(INK.mix(0.3))
            .label_style(style.clone())
            .axis_desc_style(style)
            .x_label_formatter(&|_| String::new())
            .y_label_formatter(&|v| format!("{v:.0}%"))
            .draw()
            .map_err(draw_error)?;
        for (k, cell) in cells.iter().enumerate() {
            let total = cell.execution_ns().max(cell.wall_ns).max(f64::MIN_POSITIVE);
            let mut bottom = 0.0;
            for part in &parts {
                let height = 100.0 * part.3(cell).max(0.0) / total;
                if height <= 0.0 {
                    continue;
                }
                let x = k as f64;
                chart
                    .draw_series([Rectangle::new(
                        [(x + 0.15, bottom), (x + 0.85, bottom + height)],
                        part.2.filled(),
                    )])
                    .map_err(draw_error)?;
                bottom += height;
            }
        }
        group_names(&root, names, |x| chart.backend_coord(&(x, 0.0)))?;
        root.present().map_err(draw_error)?;
    }
    let desc: Vec<String> = cells
        .iter()
        .zip(names)
        .map(|(c, name)| {
            let share = |v: f64| format!("{:.1}%", 100.0 * v / c.wall_ns.max(f64::MIN_POSITIVE));
            match lang {
                Lang::En => format!(
                    "{name}: executing {} of {} ({}), the rest {}",
                    duration(c.execution_ns(), lang),
                    duration(c.wall_ns, lang),
                    share(c.execution_ns()),
                    share(c.rest_ns())
                ),
                Lang::Ru => format!(
                    "{name}: исполнение {} из {} ({}), остальное {}",
                    duration(c.execution_ns(), lang),
                    duration(c.wall_ns, lang),
                    share(c.execution_ns()),
                    share(c.rest_ns())
                ),
            }
        })
        .collect();
    Ok(finish(svg, title, &desc.join("; ")))
}

/// The <desc> of a table chart: every dot, in words, for a reader who cannot see it.
fn describe(
    table: &Table,
    names: &[String],
    dots: &[(usize, usize, f64, f64, f64)],
    kind: Kind,
    lang: Lang,
) -> String {
    let parts: Vec<String> = dots
        .iter()
        .map(|&(k, j, median, ..)| {
            let value = match kind {
                Kind::Time => duration(median, lang),
                Kind::Relative | Kind::Twin => ratio(median, lang),
            };
            format!("{} / {}: {value}", names[k], table.backends[j])
        })
        .collect();
    parts.join("; ")
}

/// Time per iteration against the number of background links, one line per backend (log–log).
pub fn sizes(
    series: &[(String, Vec<(u64, f64)>)],
    title: &str,
    colours: &Colours,
    lang: Lang,
) -> Result<String> {
    let (x_desc, y_desc) = match lang {
        Lang::En => ("background links (B)", "time per iteration"),
        Lang::Ru => ("фоновые связи (B)", "время итерации"),
    };
    let axes = Axes {
        x: (x_desc, "B", 10.0),
        y: (y_desc, 10.0),
        y_label: &|v| axis(duration(v, lang)),
    };
    log_log(series, title, &axes, colours, lang)
}

/// A log–log chart's axes: the x axis' description, symbol and base; the y axis' description and
/// base, and how a y tick is labelled. Ticks are labelled at the powers of the base.
struct Axes<'a> {
    x: (&'a str, &'a str, f64),
    y: (&'a str, f64),
    y_label: &'a dyn Fn(f64) -> String,
}

/// Resident memory per unit of B against B, one line per store (log–log).
pub fn memory(
    series: &[(String, Vec<(u64, f64)>)],
    title: &str,
    colours: &Colours,
    lang: Lang,
) -> Result<String> {
    let (x_desc, y_desc) = match lang {
        Lang::En => (
            "B (background links, or keys with their queue items and members)",
            "resident memory per B",
        ),
        Lang::Ru => (
            "B (фоновые связи или ключи с элементами очереди и множества)",
            "резидентная память на единицу B",
        ),
    };
    // Ticks at the powers of 32 are whole binary units (32 B, 1 KiB, 32 KiB), as the tables print.
    let axes = Axes {
        x: (x_desc, "B", 10.0),
        y: (y_desc, 32.0),
        y_label: &|v| format_bytes(v, lang),
    };
    log_log(series, title, &axes, colours, lang)
}

/// What the load measurement shows against the number of concurrent clients K, one line per
/// store (log–log): requests per second, or the 99th percentile latency.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LoadMetric {
    PerSecond,
    P99,
}

pub fn clients(
    series: &[(String, Vec<(u64, f64)>)],
    title: &str,
    metric: LoadMetric,
    colours: &Colours,
    lang: Lang,
) -> Result<String> {
    let x_desc = match lang {
        Lang::En => "concurrent clients (K)",
        Lang::Ru => "одновременные клиенты (K)",
    };
    let y_desc = match (metric, lang) {
        (LoadMetric::PerSecond, Lang::En) => "requests per second",
        (LoadMetric::PerSecond, Lang::Ru) => "запросов в секунду",
        (LoadMetric::P99, Lang::En) => "p99 of a timed batch (its size in the legend)",
        (LoadMetric::P99, Lang::Ru) => "p99 измеряемой пачки (её размер — в легенде)",
    };
    let label = |v: f64| match metric {
        LoadMetric::PerSecond => crate::format::per_second(v, lang),
        LoadMetric::P99 => axis(duration(v, lang)),
    };
    // K doubles from 1 to the most clients: powers of 2 label every K and end the axis there.
    let axes = Axes {
        x: (x_desc, "K", 2.0),
        y: (y_desc, 10.0),
        y_label: &label,
    };
    log_log(series, title, &axes, colours, lang)
}

/// A value against B (or K: `x` is the axis' description and its symbol), one line per series
/// (log–log).
fn log_log(
    series: &[(String, Vec<(u64, f64)>)],
    title: &str,
    axes: &Axes<'_>,
    colours: &Colours,
    lang: Lang,
) -> Result<String> {
    let ((x_desc, x_symbol, x_base), (y_desc, y_base), y_label) = (axes.x, axes.y, axes.y_label);
    let points: Vec<&(u64, f64)> = series.iter().flat_map(|(_, p)| p).collect();
    let x_range = decades(points.iter().map(|(b, _)| *b as f64), x_base);
    let y_range = decades(points.iter().map(|(_, v)| *v), y_base);
    let mut svg = String::new();
    {
        // At most three names to a line of the narrower chart.
        let names: Vec<(String, RGBColor)> = series
            .iter()
            .enumerate()
            .map(|(j, (n, _))| (n.clone(), colours.of(n, j)))
            .collect();
        let per_line = legend_per_line(&names, 760, 3);
        let lines = names.chunks(per_line).count().max(2) as u32;
        let root = SVGBackend::with_string(&mut svg, (760, 420 + 30 * lines)).into_drawing_area();
        let (head, plot) = root.split_vertically(36 + 30 * lines);
        draw_title(&head, title)?;
        let mut legend = head.split_vertically(36).1;
        for line in names.chunks(per_line) {
            let (this, rest) = legend.split_vertically(30);
            draw_legend(&this, line, per_line)?;
            legend = rest;
        }
        let mut chart = ChartBuilder::on(&plot)
            .margin(10)
            // Room for the last decade's label, centred on the right edge.
            .margin_right(50)
            .x_label_area_size(50)
            .y_label_area_size(90)
            .build_cartesian_2d(
                widened(&x_range).log_scale().base(x_base),
                widened(&y_range).log_scale().base(y_base),
            )
            .map_err(draw_error)?;
        mesh(
            &mut chart,
            (x_desc, x_base),
            (y_desc, y_base),
            &|v| crate::format::whole(v.round() as u64, lang),
            y_label,
        )?;
        for (j, (name, points)) in series.iter().enumerate() {
            let color = colours.of(name, j);
            let line: Vec<(f64, f64)> = points.iter().map(|(b, t)| (*b as f64, *t)).collect();
            chart
                .draw_series(LineSeries::new(line.clone(), color.stroke_width(2)))
                .map_err(draw_error)?;
            chart
                .draw_series(line.into_iter().map(|p| Circle::new(p, 4, color.filled())))
                .map_err(draw_error)?;
        }
        root.present().map_err(draw_error)?;
    }
    let desc: Vec<String> = series
        .iter()
        .map(|(name, points)| {
            let values: Vec<String> = points
                .iter()
                .map(|(b, v)| {
                    format!(
                        "{x_symbol} = {}: {}",
                        crate::format::whole(*b, lang),
                        y_label(*v)
                    )
                })
                .collect();
            format!("{name}: {}", values.join(", "))
        })
        .collect();
    Ok(finish(svg, title, &desc.join("; ")))
}

/// Axes, grid and labels, in the ink the <style> block recolours; labels at the decades only.
fn mesh<X: Ranged<ValueType = f64> + plotters::coord::ranged1d::ValueFormatter<f64>>(
    chart: &mut ChartContext<
        '_,
        SVGBackend<'_>,
        Cartesian2d<X, plotters::coord::combinators::LogCoord<f64>>,
    >,
    (x_desc, x_base): (&str, f64),
    (y_desc, y_base): (&str, f64),
    x_label: &dyn Fn(f64) -> String,
    y_label: &dyn Fn(f64) -> String,
) -> Result<()> {
    let style = ("sans-serif", FONT).into_font().color(&INK);
    // A tick is labelled when it is a power of its axis' base.
    let power = |v: f64, base: f64| {
        let d = base.powf((v.ln() / base.ln()).round());
        ((v - d).abs() < d * 1e-6).then_some(d)
    };
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_desc(x_desc)
        .y_desc(y_desc)
        .axis_style(INK)
        .light_line_style(INK.mix(0.15))
        .bold_line_style(INK.mix(0.3))
        .label_style(style.clone())
        .axis_desc_style(style)
        .x_label_formatter(&|v| power(*v, x_base).map_or_else(String::new, x_label))
        .y_label_formatter(&|v| power(*v, y_base).map_or_else(String::new, y_label))
        .draw()
        .map_err(draw_error)?;
    Ok(())
}

/// The smallest range between powers of `base` that holds every value (at least one power wide).
fn decades(values: impl Iterator<Item = f64>, base: f64) -> std::ops::Range<f64> {
    let (low, high) = values
        .filter(|v| *v > 0.0 && v.is_finite())
        .fold((f64::MAX, f64::MIN), |(lo, hi), v| (lo.min(v), hi.max(v)));
    if low > high {
        return 1.0..base;
    }
    // A hair of tolerance: 32 is a power of 2, though its logarithm may come out a bit above 5.
    let exponent = |v: f64| v.ln() / base.ln();
    let bottom = base.powf((exponent(low) + 1e-9).floor());
    let top = base.powf((exponent(high) - 1e-9).ceil()).max(bottom * base);
    bottom..top
}

/// A hair wider than its decades, so that the end decades are ticks plotters keeps and labels.
fn widened(range: &std::ops::Range<f64>) -> std::ops::Range<f64> {
    range.start * 0.999..range.end * 1.001
}

fn draw_title(area: &DrawingArea<SVGBackend<'_>, Shift>, title: &str) -> Result<()> {
    // A second line, smaller, says what code the figures measured when it is not the checkout's.
    let (title, note) = title.split_once('\n').unwrap_or((title, ""));
    let width = area.dim_in_pixel().0;
    let centre = width as i32 / 2;
    for (text, size, y) in [(title, FONT + 2.0, 8), (note, FONT - 2.0, 25)] {
        if text.is_empty() {
            continue;
        }
        // A title too long for the chart is drawn smaller rather than cut at both edges.
        let room = f64::from(width) - 16.0;
        let size = size.min(room / text_width(text, PIXELS_PER_SIZE));
        let style = ("sans-serif", size)
            .into_font()
            .color(&INK)
            .pos(Pos::new(HPos::Center, VPos::Top));
        area.draw(&Text::new(text.to_string(), (centre, y), style))
            .map_err(draw_error)?;
    }
    Ok(())
}

/// Legend entries side by side, `per_line` to the width: each name with a swatch of its series'
/// colour.
/// A chart 960 px wide: the title, then the legend on as many lines as its names need, then the
/// area to plot in, which is returned with the whole.
fn framed<'a>(
    svg: &'a mut String,
    title: &str,
    shown: &[(String, RGBColor)],
) -> Result<(
    DrawingArea<SVGBackend<'a>, Shift>,
    DrawingArea<SVGBackend<'a>, Shift>,
)> {
    let per_line = legend_per_line(shown, 960, LEGEND_PER_LINE);
    let lines = shown.chunks(per_line).count().max(1) as u32;
    let root = SVGBackend::with_string(svg, (960, 470 + LEGEND_LINE * lines)).into_drawing_area();
    let (head, plot) = root.split_vertically(44 + LEGEND_LINE * lines);
    draw_title(&head, title)?;
    let mut legend = head.split_vertically(36).1;
    for line in shown.chunks(per_line) {
        let (this, rest) = legend.split_vertically(LEGEND_LINE);
        draw_legend(&this, line, per_line)?;
        legend = rest;
    }
    Ok((root, plot))
}

/// Operation names under their groups (group k spans k..k+1 on the x axis; `at` gives the pixel
/// of an x on the axis), wrapped to a group's width so that neighbours do not overlap.
fn group_names(
    root: &DrawingArea<SVGBackend<'_>, Shift>,
    names: &[String],
    at: impl Fn(f64) -> (i32, i32),
) -> Result<()> {
    let style =
        (("sans-serif", FONT).into_font().color(&INK)).pos(Pos::new(HPos::Center, VPos::Top));
    let group = at(1.0).0 - at(0.0).0;
    for (k, name) in names.iter().enumerate() {
        let (x, y) = at(k as f64 + 0.5);
        for (line, words) in wrap(name, f64::from(group - 8)).iter().enumerate() {
            root.draw(&Text::new(
                words.clone(),
                (x, y + 6 + 16 * line as i32),
                style.clone(),
            ))
            .map_err(draw_error)?;
        }
    }
    Ok(())
}

fn draw_legend(
    area: &DrawingArea<SVGBackend<'_>, Shift>,
    names: &[(String, RGBColor)],
    per_line: usize,
) -> Result<()> {
    let style = ("sans-serif", FONT).into_font().color(&INK);
    let width = area.dim_in_pixel().0 as i32 / per_line.max(1) as i32;
    for (k, (name, colour)) in names.iter().enumerate() {
        let x = 20 + k as i32 * width;
        area.draw(&Rectangle::new([(x, 8), (x + 12, 20)], colour.filled()))
            .map_err(draw_error)?;
        area.draw(&Text::new(name.clone(), (x + 18, 6), style.clone()))
            .map_err(draw_error)?;
    }
    Ok(())
}

/// Adds the <title>, the <desc> and the theme-aware text colours (with a halo) to a drawn chart.
fn finish(svg: String, title: &str, desc: &str) -> String {
    let ink = format!("#{:02X}{:02X}{:02X}", INK.0, INK.1, INK.2);
    let hex = |(r, g, b): (u8, u8, u8)| format!("#{r:02x}{g:02x}{b:02x}");
    // A halo in the page's own colour behind every glyph keeps text readable even where the
    // viewer's colour scheme is not the page's (a dark GitHub theme on a light system).
    let halo = "paint-order: stroke; stroke-width: 3px; stroke-linejoin: round; stroke";
    let head = format!(
        "<title>{}</title>\n<desc>{}</desc>\n<style>text[fill=\"{ink}\"] {{ fill: {}; {halo}: #ffffff }} @media (prefers-color-scheme: dark) {{ text[fill=\"{ink}\"] {{ fill: {}; stroke: #0d1117 }} }}</style>\n",
        escape(&title.replace('\n', " · ")),
        escape(desc),
        hex(TEXT_LIGHT),
        hex(TEXT_DARK),
    );
    match svg.find('>') {
        Some(end) => format!("{}\n{head}{}", &svg[..=end], svg[end + 1..].trim_start()),
        None => svg,
    }
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// "0.01×", "1×", "100×" (with a decimal comma in Russian).
fn ratio(value: f64, lang: Lang) -> String {
    if value >= 1.0 {
        return axis(format!("{}×", crate::format::significant(value, lang)));
    }
    // Three significant digits however small: 1/400 is "0.0025×", not "0.003×".
    let decimals = (-value.log10().floor()) as usize + 2;
    let text = format!("{value:.decimals$}").replace('.', &lang.decimal_separator().to_string());
    axis(format!("{text}×"))
}

/// Axis labels at the powers of 32 of a log axis: "32 B", "1 KiB", "32 MiB" (binary units, as the
/// tables print them, so that a label is its tick's exact value).
fn format_bytes(bytes: f64, lang: Lang) -> String {
    axis(crate::format::bytes(bytes, lang))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decades_hold_every_value() {
        assert_eq!(decades([2.6e3, 5e6].into_iter(), 10.0), 1e3..1e7);
        assert_eq!(decades([100.0].into_iter(), 10.0), 100.0..1000.0);
        assert_eq!(decades(std::iter::empty(), 10.0), 1.0..10.0);
        // The clients axis ends at the most clients, not at the next decade.
        assert_eq!(decades([1.0, 32.0].into_iter(), 2.0), 1.0..32.0);
    }

    #[test]
    fn decade_labels_drop_kept_zeros() {
        assert_eq!(axis("10.0 µs".into()), "10 µs");
        assert_eq!(axis("1,00 мс".into()), "1 мс");
        assert_eq!(axis("100 ns".into()), "100 ns");
        assert_eq!(ratio(0.01, Lang::Ru), "0,01×");
        assert_eq!(ratio(100.0, Lang::En), "100×");
        assert_eq!(format_bytes(32.0 * 1024.0, Lang::Ru), "32 КиБ");
        assert_eq!(format_bytes(1024.0, Lang::En), "1 KiB");
    }
}
