//! Commands by name, and replies read as numbers or lists, for the stores and the library.

use anyhow::{bail, Context};
use redis::{Cmd, Connection, ToRedisArgs, Value};

/// A command with its arguments (a tuple gives several), built as a user of the client builds it:
/// measured iterations build their commands, and nothing else is done to them before sending.
pub fn command(name: &str, args: impl ToRedisArgs) -> Cmd {
    let mut command = redis::cmd(name);
    command.arg(args);
    command
}

/// Reads a reply as a whole number.
pub fn number(reply: &Value) -> anyhow::Result<u64> {
    match reply {
        Value::Int(n) => u64::try_from(*n).with_context(|| format!("a negative number {n}")),
        Value::BulkString(bytes) => text_number(bytes),
        Value::SimpleString(text) => text_number(text.as_bytes()),
        Value::ServerError(e) => bail!("Redis answered {e:?}"),
        other => bail!("expected a number, got {other:?}"),
    }
}

/// Reads the decimal text of a number.
pub fn text_number(bytes: &[u8]) -> anyhow::Result<u64> {
    std::str::from_utf8(bytes)
        .ok()
        .and_then(|s| s.parse().ok())
        .with_context(|| {
            format!(
                "expected a number, got {:?}",
                String::from_utf8_lossy(bytes)
            )
        })
}

/// The elements of an array, set or (flattened) map reply.
pub fn items(reply: Value) -> anyhow::Result<Vec<Value>> {
    match reply {
        Value::Array(items) | Value::Set(items) => Ok(items),
        Value::Map(pairs) => Ok(pairs.into_iter().flat_map(|(k, v)| [k, v]).collect()),
        Value::ServerError(e) => bail!("Redis answered {e:?}"),
        other => bail!("expected an array, got {other:?}"),
    }
}

/// Which of `commands` the server does not know (COMMAND INFO answers nil for them).
pub(super) fn missing_commands(
    con: &mut Connection,
    commands: &[&'static str],
) -> anyhow::Result<Vec<&'static str>> {
    let known: Vec<redis::Value> = redis::cmd("COMMAND")
        .arg("INFO")
        .arg(commands)
        .query(con)
        .context("the server does not answer COMMAND INFO")?;
    Ok(commands
        .iter()
        .zip(&known)
        .filter(|(_, info)| **info == redis::Value::Nil)
        .map(|(name, _)| *name)
        .collect())
}
