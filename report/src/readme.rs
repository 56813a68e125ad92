//! Replaces the text between `<!-- NAME:start -->` and `<!-- NAME:end -->` and nothing else.

/// `text` with the section `name` replaced by `content`; everything outside the markers stays
/// byte for byte, so splicing twice gives the same text.
pub fn splice(text: &str, name: &str, content: &str) -> Result<String, String> {
    let (start, end) = (
        format!("<!-- {name}:start -->"),
        format!("<!-- {name}:end -->"),
    );
    let find = |marker: &str| -> Result<usize, String> {
        let mut found = text.match_indices(marker).map(|(at, _)| at);
        let at = found
            .next()
            .ok_or_else(|| format!("the marker {marker} is missing"))?;
        if found.next().is_some() {
            return Err(format!("the marker {marker} appears twice"));
        }
        Ok(at)
    };
    let (from, to) = (find(&start)? + start.len(), find(&end)?);
    if to < from {
        return Err(format!("{end} comes before {start}"));
    }
    Ok(format!(
        "{}\n{}\n{}",
        &text[..from],
        content.trim_matches('\n'),
        &text[to..]
    ))
}

/// The lines of a reader's first screen: what they see before scrolling.
pub const FIRST_SCREEN: usize = 60;

/// Refuses a README whose section `name` does not begin on the first screen.
pub fn on_first_screen(text: &str, name: &str) -> Result<(), String> {
    let marker = format!("<!-- {name}:start -->");
    let line = text
        .lines()
        .position(|l| l.contains(&marker))
        .ok_or_else(|| format!("the marker {marker} is missing"))?
        + 1;
    if line > FIRST_SCREEN - 5 {
        return Err(format!(
            "the {name} begin at line {line}: move {marker} above line {}, so that a reader sees them on the first screen",
            FIRST_SCREEN - 5
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::{on_first_screen, splice};

    #[test]
    fn a_section_below_the_first_screen_is_refused() {
        let low = format!("{}<!-- findings:start -->", "line\n".repeat(70));
        assert!(on_first_screen(&low, "findings")
            .unwrap_err()
            .contains("line 71"));
        assert!(on_first_screen("# Title\n<!-- findings:start -->", "findings").is_ok());
    }

    #[test]
    fn replaces_only_the_section_and_is_idempotent() {
        let text = "intro\n<!-- results:start -->\nold\n<!-- results:end -->\noutro";
        let once = splice(text, "results", "new\n").unwrap();
        assert_eq!(
            once,
            "intro\n<!-- results:start -->\nnew\n<!-- results:end -->\noutro"
        );
        assert_eq!(splice(&once, "results", "new\n").unwrap(), once);
    }

    #[test]
    fn refuses_missing_doubled_or_reversed_markers() {
        assert!(splice("no markers", "results", "x")
            .unwrap_err()
            .contains("<!-- results:start --> is missing"));
        let twice = "<!-- results:start --><!-- results:start --><!-- results:end -->";
        assert!(splice(twice, "results", "x")
            .unwrap_err()
            .contains("appears twice"));
        let reversed = "<!-- results:end --><!-- results:start -->";
        assert!(splice(reversed, "results", "x")
            .unwrap_err()
            .contains("comes before"));
    }
}
