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

#[cfg(test)]
mod tests {
    use super::splice;

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
