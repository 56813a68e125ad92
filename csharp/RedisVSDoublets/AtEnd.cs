using System.Runtime.InteropServices;

namespace RedisVSDoublets;

/// <summary>
/// What a run leaves on the machine (its durable folders, its networks) goes however it ends: at
/// exit, and on SIGINT, SIGTERM or SIGQUIT, which end a .NET process without raising ProcessExit.
/// </summary>
static class AtEnd
{
    /// <summary>The signals that end a run.</summary>
    public static readonly PosixSignal[] Signals = [PosixSignal.SIGINT, PosixSignal.SIGTERM, PosixSignal.SIGQUIT];

    /// <summary>
    /// Runs <paramref name="clean"/> at exit and on each of <see cref="Signals"/>, leaving the signal
    /// to end the process (or to the servers' handlers, which end it once they have cleaned up);
    /// the registrations returned must be held for as long as the process runs.
    /// </summary>
    public static PosixSignalRegistration[] Clean(Action clean)
    {
        AppDomain.CurrentDomain.ProcessExit += (_, _) => clean();
        return [.. Signals.Select(s => PosixSignalRegistration.Create(s, _ => clean()))];
    }
}
