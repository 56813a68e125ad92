//! The fingerprint of what a run measured: which code a result names, so that the report can tell
//! a result of this checkout's code from one of older code.

use std::path::{Path, PathBuf};

use anyhow::Context;

/// The fingerprint of what a run measured: the SHA-1 of every file under the spec's `fingerprint`
/// paths (relative to `root`; build outputs left out, see [`built`]), each file's path,
/// length and bytes in path order, except that the spec counts by what it measures
/// ([`measured`]), not by its prose. The C# harness gets it from here, through the C ABI.
pub fn fingerprint(root: &Path, paths: &[String]) -> anyhow::Result<String> {
    if paths.is_empty() {
        anyhow::bail!(
            "the spec lists no fingerprint paths, so no result could be told from a stale one"
        );
    }
    let mut files = Vec::new();
    for path in paths {
        let full = root.join(path);
        if !full.exists() {
            anyhow::bail!(
                "spec fingerprint: {path} does not exist in {}",
                root.display()
            );
        }
        collect(&full, &mut files)?;
    }
    let mut named: Vec<(String, PathBuf)> = files
        .into_iter()
        .map(|f| {
            let relative = f.strip_prefix(root).unwrap_or(&f);
            let name: Vec<String> = relative
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            (name.join("/"), f)
        })
        .collect();
    named.sort();
    named.dedup();
    let mut sha = sha1_smol::Sha1::new();
    for (name, path) in named {
        let mut bytes =
            std::fs::read(&path).with_context(|| format!("{}: cannot read", path.display()))?;
        if name == crate::spec::SPEC_PATH {
            bytes = measured(&bytes).with_context(|| format!("{}", path.display()))?;
        }
        sha.update(format!("{name}\0{}\0", bytes.len()).as_bytes());
        sha.update(&bytes);
    }
    Ok(sha.digest().to_string())
}

/// What the spec measures, in a canonical form: its YAML parsed (so comments and layout go), every
/// text a reader reads left out (a `description`, an `install` hint, every value given in both
/// languages, `{en, ru}`, the `publish` plan and the suites' `overhead_us` estimates), and the
/// rest written as JSON with sorted keys. So a wording fix
/// keeps the published results valid, and a changed size, request, sampling or server flag makes
/// them stale.
pub fn measured(spec: &[u8]) -> anyhow::Result<Vec<u8>> {
    fn strip(value: &mut serde_json::Value) {
        match value {
            serde_json::Value::Object(map) => {
                map.retain(|key, value| {
                    // A plan of what to publish, or of how long it takes, does not change what a
                    // result measured.
                    let prose = key == "description"
                        || key == "install"
                        || key == "publish"
                        || key == "overhead_us"
                        || value.as_object().is_some_and(|m| {
                            m.len() == 2 && m.contains_key("en") && m.contains_key("ru")
                        });
                    !prose
                });
                map.values_mut().for_each(strip);
            }
            serde_json::Value::Array(items) => items.iter_mut().for_each(strip),
            _ => {}
        }
    }
    let text = std::str::from_utf8(spec).context("the spec is not UTF-8")?;
    let mut value: serde_json::Value = serde_saphyr::from_str(text)?;
    strip(&mut value);
    Ok(serde_json::to_vec(&value)?)
}

fn collect(path: &Path, files: &mut Vec<PathBuf>) -> anyhow::Result<()> {
    if path.is_file() {
        files.push(path.to_path_buf());
        return Ok(());
    }
    for entry in
        std::fs::read_dir(path).with_context(|| format!("{}: cannot list", path.display()))?
    {
        let entry = entry?.path();
        if !(entry.is_dir() && built(&entry)) {
            collect(&entry, files)?;
        }
    }
    Ok(())
}

/// Whether a directory holds build outputs: `target` anywhere, and `bin` and `obj` beside a .NET
/// project file (a Cargo `src/bin` holds sources, and is measured code).
fn built(dir: &Path) -> bool {
    let name = dir.file_name().unwrap_or_default();
    if name == "target" {
        return true;
    }
    let beside_project = || {
        std::fs::read_dir(dir.parent().unwrap_or(dir)).is_ok_and(|entries| {
            entries
                .flatten()
                .any(|e| e.path().extension().is_some_and(|x| x == "csproj"))
        })
    };
    (name == "bin" || name == "obj") && beside_project()
}

/// The fingerprint of this checkout's measured code, as the spec declares it.
pub fn checkout(spec: &crate::spec::Spec) -> anyhow::Result<String> {
    fingerprint(&crate::repository(), &spec.fingerprint)
}
