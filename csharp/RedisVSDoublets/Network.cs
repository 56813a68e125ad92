using System.Runtime.InteropServices;
using System.Text;

namespace RedisVSDoublets;

/// <summary>
/// A host of its own for a server whose spec gives a round trip, made by the Rust side as the Rust
/// bench makes it (rust/src/network.rs; root only): a network namespace joined to this one by a
/// veth pair, the server inside binding <see cref="Server"/>, reached at <see cref="Host"/> through
/// a relay that delays each way by half the round trip. Disposing it removes it; <see
/// cref="RemoveAll"/> does the same for an interrupt.
/// </summary>
internal sealed unsafe class Network : IDisposable
{
    nint handle;

    /// <summary>The words that run a program inside the namespace, before the program's own.</summary>
    public IReadOnlyList<string> Exec { get; }
    /// <summary>The address the server binds, inside the namespace.</summary>
    public string Server { get; }
    /// <summary>The address the harness connects to.</summary>
    public string Host { get; }

    /// <summary>Makes the host for <paramref name="server"/> (its name, for messages), whose <paramref name="port"/> it reaches; refused, saying why, without root.</summary>
    public Network(string server, long roundTripUs, int port)
    {
        var (name, into) = (Encoding.UTF8.GetBytes(server), new byte[4096]);
        Native.Status status;
        nuint written;
        fixed (byte* pn = name)
        fixed (byte* pi = into)
            status = Native.NetworkOpen(pn, (nuint)name.Length, (ulong)roundTripUs, (ushort)port, out handle, pi, (nuint)into.Length, out written);
        var text = Encoding.UTF8.GetString(into, 0, (int)Math.Min(written, (nuint)into.Length));
        if (status != Native.Status.Ok) throw new ArgumentException(text);
        var lines = text.Split('\n');
        (Exec, Server, Host) = (lines[0].Split(' '), lines[1], lines[2]);
    }

    /// <summary>The result file's network line for the server <paramref name="name"/> at <paramref name="url"/>: the network and the round trip measured over it.</summary>
    public string Measure(string name, string url)
    {
        var (n, u, into) = (Encoding.UTF8.GetBytes(name), Encoding.UTF8.GetBytes(url), new byte[4096]);
        Native.Status status;
        nuint written;
        fixed (byte* pn = n)
        fixed (byte* pu = u)
        fixed (byte* pi = into)
            status = Native.NetworkDescribe(handle, pn, (nuint)n.Length, pu, (nuint)u.Length, pi, (nuint)into.Length, out written);
        var text = Encoding.UTF8.GetString(into, 0, (int)Math.Min(written, (nuint)into.Length));
        return status == Native.Status.Ok ? text : throw new InvalidOperationException(text);
    }

    /// <summary>Held so that the registrations live as long as the process.</summary>
    static readonly PosixSignalRegistration[] signals;

    // However the run ends, its namespaces go.
    static Network() => signals = AtEnd.Clean(RemoveAll);

    /// <summary>For an interrupt: removes every namespace this process made.</summary>
    public static void RemoveAll() => Native.NetworkRemoveAll();

    public void Dispose()
    {
        if (handle != 0) Native.NetworkFree(handle);
        handle = 0;
    }
}
