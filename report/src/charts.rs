//! SVG charts drawn with plotters' SVG backend, which writes text as <text> for the viewer to
//! render: no system fonts are needed. The background stays transparent and text and axes are a
//! mid grey, so the charts read on GitHub's light and dark themes alike.

use anyhow::{anyhow, Result};
use plotters::{
    coord::{ranged1d::ValueFormatter, types::RangedCoordf64, Shift},
    prelude::*,
    style::text_anchor::{HPos, Pos, VPos},
};

use crate::tables::Table;

const INK: RGBColor = RGBColor(0x80, 0x80, 0x80);
/// One colour per backend column, distinguishable on white and on near-black.
const PALETTE: [RGBColor; 6] = [
    RGBColor(0x1f, 0x9e, 0x89),
    RGBColor(0x3b, 0x82, 0xf6),
    RGBColor(0xe0, 0x5d, 0x44),
    RGBColor(0xf2, 0x9e, 0x1f),
    RGBColor(0xb0, 0x5c, 0xd6),
    RGBColor(0x9a, 0x9a, 0x30),
];

#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Scale {
    Log,
    Linear,
}

fn draw_error<E: std::fmt::Debug>(e: E) -> anyhow::Error {
    anyhow!("drawing a chart: {e:?}")
}

type Chart<'a, Y> = ChartContext<'a, SVGBackend<'a>, Cartesian2d<RangedCoordf64, Y>>;

/// A grouped bar chart of a table: a group per operation, a bar per backend, y = median ns.
pub fn bars(table: &Table, names: &[String], scale: Scale) -> Result<String> {
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (960, 460)).into_drawing_area();
        let values: Vec<f64> = table
            .rows
            .iter()
            .flat_map(|r| {
                r.cells
                    .iter()
                    .filter_map(|c| c.as_ref().ok().map(|c| c.median_ns))
            })
            .collect();
        let max = values.iter().copied().fold(1.0, f64::max);
        let min = values.iter().copied().fold(max, f64::min).max(0.1);
        let groups = 0f64..table.rows.len() as f64;
        let (legend, plot) = root.split_vertically(40);
        draw_legend(&legend, &table.backends)?;
        let mut builder = ChartBuilder::on(&plot);
        builder
            .margin(10)
            .x_label_area_size(40)
            .y_label_area_size(80);
        match scale {
            Scale::Log => {
                let chart = builder
                    .build_cartesian_2d(groups, (min / 2.0..max * 2.0).log_scale())
                    .map_err(draw_error)?;
                draw_bars(
                    chart,
                    &root,
                    table,
                    names,
                    min / 2.0,
                    "time per iteration (log scale)",
                )?;
            }
            Scale::Linear => {
                let chart = builder
                    .build_cartesian_2d(groups, 0f64..max * 1.05)
                    .map_err(draw_error)?;
                draw_bars(chart, &root, table, names, 0.0, "time per iteration")?;
            }
        }
        root.present().map_err(draw_error)?;
    }
    Ok(svg)
}

fn draw_bars<Y: Ranged<ValueType = f64> + ValueFormatter<f64>>(
    mut chart: Chart<'_, Y>,
    root: &DrawingArea<SVGBackend<'_>, Shift>,
    table: &Table,
    names: &[String],
    bottom: f64,
    y_desc: &str,
) -> Result<()> {
    let style = ("sans-serif", 13).into_font().color(&INK);
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(0)
        .y_desc(y_desc)
        .axis_style(INK)
        .light_line_style(INK.mix(0.15))
        .bold_line_style(INK.mix(0.3))
        .label_style(style.clone())
        .axis_desc_style(style.clone())
        .y_label_formatter(&|v| format_ns(*v))
        .draw()
        .map_err(draw_error)?;
    let width = 0.8 / table.backends.len() as f64;
    for (k, row) in table.rows.iter().enumerate() {
        for (j, cell) in row.cells.iter().enumerate() {
            if let Ok(cell) = cell {
                let x0 = k as f64 + 0.1 + j as f64 * width;
                let bar = Rectangle::new(
                    [(x0, bottom), (x0 + width * 0.9, cell.median_ns)],
                    PALETTE[j % PALETTE.len()].filled(),
                );
                chart
                    .draw_series(std::iter::once(bar))
                    .map_err(draw_error)?;
            }
        }
    }
    // Operation names under their groups, a word a line so neighbours do not overlap.
    let label = style.pos(Pos::new(HPos::Center, VPos::Top));
    for (k, name) in names.iter().enumerate() {
        let (x, y) = chart.backend_coord(&(k as f64 + 0.5, bottom));
        for (line, word) in name.split(' ').enumerate() {
            root.draw(&Text::new(
                word.to_string(),
                (x, y + 6 + 15 * line as i32),
                label.clone(),
            ))
            .map_err(draw_error)?;
        }
    }
    Ok(())
}

fn draw_legend(area: &DrawingArea<SVGBackend<'_>, Shift>, backends: &[String]) -> Result<()> {
    let style = ("sans-serif", 13).into_font().color(&INK);
    let width = 960 / backends.len().max(1) as i32;
    for (j, backend) in backends.iter().enumerate() {
        let x = 20 + j as i32 * width;
        area.draw(&Rectangle::new(
            [(x, 14), (x + 12, 26)],
            PALETTE[j % PALETTE.len()].filled(),
        ))
        .map_err(draw_error)?;
        area.draw(&Text::new(backend.clone(), (x + 18, 13), style.clone()))
            .map_err(draw_error)?;
    }
    Ok(())
}

/// Time per iteration against the number of background links, one line per backend (log–log).
pub fn sizes(series: &[(String, Vec<(u64, f64)>)]) -> Result<String> {
    against_b(
        series,
        "background links (B)",
        "time per iteration",
        &format_ns,
    )
}

/// Resident memory per unit of B against B, one line per store (log–log).
pub fn memory(series: &[(String, Vec<(u64, f64)>)]) -> Result<String> {
    against_b(
        series,
        "B (background links, or keys with their queue items and members)",
        "resident memory per B",
        &format_bytes,
    )
}

/// A value against B, one line per series (log–log).
fn against_b(
    series: &[(String, Vec<(u64, f64)>)],
    x_desc: &str,
    y_desc: &str,
    y_label: &dyn Fn(f64) -> String,
) -> Result<String> {
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (720, 420)).into_drawing_area();
        let points: Vec<&(u64, f64)> = series.iter().flat_map(|(_, p)| p).collect();
        let (min_b, max_b) = points
            .iter()
            .fold((u64::MAX, 1), |(lo, hi), (b, _)| (lo.min(*b), hi.max(*b)));
        let max_t = points.iter().map(|(_, t)| *t).fold(1.0, f64::max);
        let min_t = points
            .iter()
            .map(|(_, t)| *t)
            .fold(max_t, f64::min)
            .max(0.1);
        let (legend, plot) = root.split_vertically(60);
        let names: Vec<String> = series.iter().map(|(n, _)| n.clone()).collect();
        draw_legend(&legend.split_vertically(30).0, &names[..names.len().min(3)])?;
        draw_legend(&legend.split_vertically(30).1, &names[names.len().min(3)..])?;
        let style = ("sans-serif", 13).into_font().color(&INK);
        let mut chart = ChartBuilder::on(&plot)
            .margin(10)
            .x_label_area_size(40)
            .y_label_area_size(80)
            .build_cartesian_2d(
                (min_b as f64 / 2.0..max_b as f64 * 2.0).log_scale(),
                (min_t / 2.0..max_t * 2.0).log_scale(),
            )
            .map_err(draw_error)?;
        chart
            .configure_mesh()
            .x_desc(x_desc)
            .y_desc(y_desc)
            .axis_style(INK)
            .light_line_style(INK.mix(0.15))
            .bold_line_style(INK.mix(0.3))
            .label_style(style.clone())
            .axis_desc_style(style)
            // Label the decades only: the ticks between them would run into each other.
            .x_label_formatter(&|v| {
                let decade = 10f64.powf(v.log10().round());
                if (v - decade).abs() < decade * 1e-6 {
                    redis_vs_doublets::results::Grouped(decade as u64).to_string()
                } else {
                    String::new()
                }
            })
            .y_label_formatter(&|v| y_label(*v))
            .draw()
            .map_err(draw_error)?;
        for (j, (_, points)) in series.iter().enumerate() {
            let color = PALETTE[j % PALETTE.len()];
            let line: Vec<(f64, f64)> = points.iter().map(|(b, t)| (*b as f64, *t)).collect();
            chart
                .draw_series(LineSeries::new(line.clone(), color.stroke_width(2)))
                .map_err(draw_error)?;
            chart
                .draw_series(line.into_iter().map(|p| Circle::new(p, 3, color.filled())))
                .map_err(draw_error)?;
        }
        root.present().map_err(draw_error)?;
    }
    Ok(svg)
}

/// Axis labels at the decades of a log axis: "100 B", "10 kB", "1 MB" (decimal units, so that a
/// label is its tick's exact value).
fn format_bytes(bytes: f64) -> String {
    let mut value = bytes;
    let mut unit = 0;
    const UNITS: [&str; 4] = ["B", "kB", "MB", "GB"];
    while value >= 1000.0 && unit + 1 < UNITS.len() {
        value /= 1000.0;
        unit += 1;
    }
    format!(
        "{} {}",
        format!("{value:.1}")
            .trim_end_matches('0')
            .trim_end_matches('.'),
        UNITS[unit]
    )
}

/// Axis labels: "100 ns", "10 µs", "1 ms".
fn format_ns(ns: f64) -> String {
    let (value, unit) = if ns >= 1e9 {
        (ns / 1e9, "s")
    } else if ns >= 1e6 {
        (ns / 1e6, "ms")
    } else if ns >= 1e3 {
        (ns / 1e3, "µs")
    } else {
        (ns, "ns")
    };
    format!(
        "{} {unit}",
        format!("{value:.1}")
            .trim_end_matches('0')
            .trim_end_matches('.')
    )
}
