//! The links library (`redis/links.lua`) as a server holds it: named after its content, so that
//! a run never replaces a user's; run as functions where the server has them, else as a script.

use std::sync::LazyLock;

use anyhow::{bail, Context};
use redis::{Cmd, Connection, ToRedisArgs};

use crate::resp::reply::{items, missing_commands};

/// The function library both languages load, as `redis/links.lua` holds it.
const LIBRARY_SOURCE: &str = include_str!("../../../redis/links.lua");

/// The token `redis/links.lua` writes where the library's name goes.
const LIBRARY_TOKEN: &str = "__LIBRARY__";

/// The links library as a server holds it.
pub struct Library {
    /// `rvd_` and the first 12 hex digits of the source's SHA-1: a user's library cannot carry
    /// it by accident, and checkouts with different sources never replace each other's.
    pub name: String,
    /// The source with the name filled in, as `FUNCTION LOAD` takes it.
    pub code: String,
    /// The same without its `#!lua` line, as `SCRIPT LOAD` takes it, and its SHA-1.
    pub script: String,
    pub sha: String,
}

pub static LIBRARY: LazyLock<Library> = LazyLock::new(|| {
    let name = format!(
        "rvd_{}",
        &sha1_smol::Sha1::from(LIBRARY_SOURCE).digest().to_string()[..12]
    );
    let code = LIBRARY_SOURCE.replace(LIBRARY_TOKEN, &name);
    let script = code
        .split_once('\n')
        .map_or("", |(_, rest)| rest)
        .to_string();
    Library {
        sha: sha1_smol::Sha1::from(&script).digest().to_string(),
        script,
        code,
        name,
    }
});

/// How a server runs the library: as functions, or (servers without them, like Garnet) as a script.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scripting {
    Functions,
    Scripts,
}

impl Scripting {
    /// The library's functions as this path calls them.
    pub fn calls(self) -> &'static Calls {
        static FUNCTIONS: LazyLock<Calls> = LazyLock::new(|| Calls::new(Scripting::Functions));
        static SCRIPTS: LazyLock<Calls> = LazyLock::new(|| Calls::new(Scripting::Scripts));
        match self {
            Scripting::Functions => &FUNCTIONS,
            Scripting::Scripts => &SCRIPTS,
        }
    }

    /// For the method text and the provenance.
    pub fn describe(self) -> &'static str {
        match self {
            Scripting::Functions => "functions: FUNCTION LOAD, FCALL",
            Scripting::Scripts => "scripts: SCRIPT LOAD, EVALSHA",
        }
    }
}

/// One of the library's functions as a command, its arguments to follow: `FCALL <name> 0` or
/// `EVALSHA <sha> 0 <function>`. Made once: commands are built inside measured loops.
pub struct Call {
    command: &'static str,
    head: Vec<String>,
}

impl Call {
    pub fn with(&self, args: impl ToRedisArgs) -> Cmd {
        let mut command = redis::cmd(self.command);
        command.arg(&self.head).arg(args);
        command
    }
}

/// The library's functions, called one way.
pub struct Calls {
    pub create_point: Call,
    pub create: Call,
    pub update: Call,
    pub delete: Call,
    pub create_points: Call,
}

impl Calls {
    fn new(scripting: Scripting) -> Self {
        let call = |function: &str| match scripting {
            Scripting::Functions => Call {
                command: "FCALL",
                head: vec![format!("{}_{function}", LIBRARY.name), "0".into()],
            },
            Scripting::Scripts => Call {
                command: "EVALSHA",
                head: vec![LIBRARY.sha.clone(), "0".into(), function.into()],
            },
        };
        Calls {
            create_point: call("create_point"),
            create: call("create"),
            update: call("update"),
            delete: call("delete"),
            create_points: call("create_points"),
        }
    }
}

/// Loads the library as a script into the cache of the server `described` (which a restart
/// empties: it is not data), checking that the server hashes it as this run does.
pub fn load_script<C: redis::ConnectionLike>(con: &mut C, described: &str) -> anyhow::Result<()> {
    let sha: String = redis::cmd("SCRIPT")
        .arg("LOAD")
        .arg(&LIBRARY.script)
        .query(con)
        .context("loading redis/links.lua as a script")?;
    if sha != LIBRARY.sha {
        bail!(
            "{described} answered SCRIPT LOAD with {sha}, not the script's SHA-1 {}",
            LIBRARY.sha
        );
    }
    Ok(())
}

/// How the server can run the library: functions where it has them, else scripts, else refused.
/// Asked without writing: COMMAND INFO, and SCRIPT EXISTS (a server may list EVALSHA yet have
/// scripting switched off, as Garnet without --lua does).
pub(super) fn scripting(con: &mut Connection) -> anyhow::Result<Scripting> {
    if missing_commands(con, &["FUNCTION", "FCALL"])?.is_empty() {
        return Ok(Scripting::Functions);
    }
    let missing = missing_commands(con, &["SCRIPT", "EVALSHA"])?;
    let answer = if missing.is_empty() {
        match redis::cmd("SCRIPT")
            .arg("EXISTS")
            .arg(&LIBRARY.sha)
            .query::<Vec<i64>>(con)
        {
            Ok(_) => return Ok(Scripting::Scripts),
            Err(e) => format!("SCRIPT EXISTS answers {e}"),
        }
    } else {
        format!("it lacks {}", missing.join(", "))
    };
    bail!(
        "it has neither functions (FUNCTION, FCALL) nor scripts ({answer}), and the links suite \
         runs redis/links.lua: use Redis 7 or later, or a server with Lua scripts (Garnet: --lua)"
    )
}

/// Whether this library is loaded already. FUNCTION LIST matches names by pattern: only the
/// exact name counts.
pub(super) fn function_loaded(con: &mut Connection) -> anyhow::Result<bool> {
    let present: Vec<redis::Value> = redis::cmd("FUNCTION")
        .arg("LIST")
        .arg("LIBRARYNAME")
        .arg(&LIBRARY.name)
        .query(con)?;
    let name = redis::Value::BulkString(LIBRARY.name.clone().into_bytes());
    Ok(present.into_iter().any(|library| {
        items(library).is_ok_and(|fields| {
            fields.windows(2).any(|pair| {
                pair[0] == redis::Value::BulkString(b"library_name".to_vec()) && pair[1] == name
            })
        })
    }))
}
