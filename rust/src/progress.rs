//! A round's progress: after each load and cell, where its time went (checks, sampling, the check
//! after it, and which proof that gave), and the time left, from the spec's estimate scaled by how
//! the round so far compares with it. A progress bar where stderr is a terminal, lines otherwise.

use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressStyle};

use crate::{harness::Took, spec::Schedule};

pub struct Progress {
    bar: ProgressBar,
    started: Instant,
    /// The round's plan, less the cells it did not measure.
    plan: Schedule,
    /// The seconds planned for what is done so far.
    done: f64,
}

impl Progress {
    pub fn new(schedule: &Schedule) -> Self {
        let bar = ProgressBar::new(schedule.cells as u64);
        bar.set_style(
            ProgressStyle::with_template("{wide_bar} {pos}/{len} cells, {msg}")
                .expect("a valid template"),
        );
        Self {
            bar,
            started: Instant::now(),
            plan: *schedule,
            done: 0.0,
        }
    }

    /// A line about what the round is doing.
    pub fn note(&self, text: String) {
        self.say(text);
    }

    /// A store's background loaded and checked, against the `planned` seconds.
    pub fn loaded(&mut self, text: &str, planned: f64) {
        self.done += planned;
        self.say(text.to_string());
    }

    /// A cell checked and measured, against the `planned` seconds.
    pub fn cell(&mut self, name: &str, took: &Took, planned: f64) {
        self.done += planned;
        self.bar.inc(1);
        let seconds = |d: Duration| format!("{:.1} s", d.as_secs_f64());
        let split = match &took.split {
            Some(split) => format!(", {} split ({split})", seconds(took.splitting)),
            None => String::new(),
        };
        let restart = match took.restart {
            Some(restart) => format!(", {} restarted and checked whole", seconds(restart)),
            None => String::new(),
        };
        self.say(format!(
            "{name}: {} checked, {} sampled{split}, {} {}{restart}",
            seconds(took.check),
            seconds(took.measure),
            seconds(took.verify),
            took.proof
        ));
    }

    /// A cell the round planned but did not measure: a filter or the test mode left it out.
    pub fn skipped(&mut self, cell: &Schedule) {
        self.plan.cells -= cell.cells;
        self.plan.sampling -= cell.sampling;
        self.plan.beyond -= cell.beyond;
        self.plan.checks -= cell.checks;
        self.bar.set_length(self.plan.cells as u64);
    }

    /// Runs `f` with the bar out of the way, so that what it prints stays readable.
    pub fn suspend<T>(&self, f: impl FnOnce() -> T) -> T {
        self.bar.suspend(f)
    }

    /// `text`, then the time so far and the time left: the plan's remainder at the pace the round
    /// has kept against the plan so far, once that is a twentieth of the plan (and 10 s) long.
    fn say(&self, text: String) {
        let elapsed = self.started.elapsed().as_secs_f64();
        let pace = if self.done >= (self.plan.seconds() / 20.0).max(10.0) {
            elapsed / self.done
        } else {
            1.0
        };
        let left = (self.plan.seconds() - self.done).max(0.0) * pace;
        let minutes = |s: f64| format!("{:.1} min", s / 60.0);
        let time = format!(
            "{} of {} planned, about {} left",
            minutes(elapsed),
            minutes(self.plan.seconds()),
            minutes(left)
        );
        self.bar.set_message(time.clone());
        if self.bar.is_hidden() {
            eprintln!("{text} · {time}");
        } else {
            self.bar.println(text);
        }
    }

    /// Clears the bar and says how the round's time compares with its plan, and with the warm-up
    /// and sampling alone.
    pub fn finish(&self, round: u32) {
        self.bar.finish_and_clear();
        if self.plan.cells == 0 {
            // A filter or Criterion's test mode left every cell out: there is nothing to compare.
            return eprintln!("round {round} measured no cell");
        }
        let took = self.started.elapsed().as_secs_f64();
        eprintln!(
            "round {round} took {:.1} min against the {:.1} min planned for the {} cells it measured ({:.2}×) and their {:.1} min of sampling ({:.2}×)",
            took / 60.0,
            self.plan.seconds() / 60.0,
            self.plan.cells,
            took / self.plan.seconds().max(1.0),
            self.plan.sampling / 60.0,
            took / self.plan.sampling.max(1.0)
        );
    }
}
