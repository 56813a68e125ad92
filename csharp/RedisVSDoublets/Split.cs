using System.Runtime.InteropServices;

namespace RedisVSDoublets;

/// <summary>
/// Where a server cell's time goes: the Rust side's split (split.rs) through the C ABI, so that
/// both languages undo the server's nesting of commands (a script's or EXEC's time includes the
/// commands it ran) and write the result line one way. Each iteration gives the server's
/// <c>INFO cpu commandstats</c> just before and just after its work.
/// </summary>
internal sealed unsafe partial class Split : IDisposable
{
    [LibraryImport(Native.Library, EntryPoint = "split_new")] private static partial nint NativeNew();
    [LibraryImport(Native.Library, EntryPoint = "split_add")]
    private static partial Native.Status NativeAdd(nint split, byte* before, nuint beforeLength, byte* after, nuint afterLength, nuint requests, double wallNs, double clientCpuNs, byte* into, nuint capacity, out nuint written);
    [LibraryImport(Native.Library, EntryPoint = "split_line")] private static partial Native.Status NativeLine(nint split, byte* cell, nuint cellLength, byte* into, nuint capacity, out nuint written);
    [LibraryImport(Native.Library, EntryPoint = "split_reading")] private static partial Native.Status NativeReading(byte* info, nuint infoLength, byte* into, nuint capacity, out nuint written);
    [LibraryImport(Native.Library, EntryPoint = "split_free")] private static partial void NativeFree(nint split);
    [LibraryImport(Native.Library, EntryPoint = "process_cpu_ns")] private static partial double NativeProcessCpuNs();

    nint handle = NativeNew();

    /// <summary>The iterations added so far.</summary>
    public int Iterations { get; private set; }

    /// <summary>The process's CPU time so far, in nanoseconds: the client's side, its own threads included.</summary>
    public static double ProcessCpuNs() => NativeProcessCpuNs();

    /// <summary>Adds one iteration of <paramref name="requests"/> requests; a reading the Rust side cannot undo throws.</summary>
    public void Add(string before, string after, int requests, double wallNs, double clientCpuNs)
    {
        var (b, a, into) = (System.Text.Encoding.UTF8.GetBytes(before), System.Text.Encoding.UTF8.GetBytes(after), new byte[Capacity]);
        Native.Status status;
        nuint written;
        fixed (byte* pb = b)
        fixed (byte* pa = a)
        fixed (byte* pi = into)
            status = NativeAdd(handle, pb, (nuint)b.Length, pa, (nuint)a.Length, (nuint)requests, wallNs, clientCpuNs, pi, Capacity, out written);
        Answer(status, into, written);
        Iterations++;
    }

    /// <summary>What a server's reply to <c>INFO cpu commandstats</c> lacks for a split, or null where it is a reading the Rust side can use.</summary>
    public static string? Unusable(string info)
    {
        var (i, into) = (System.Text.Encoding.UTF8.GetBytes(info), new byte[Capacity]);
        Native.Status status;
        nuint written;
        fixed (byte* pi = i)
        fixed (byte* po = into)
            status = NativeReading(pi, (nuint)i.Length, po, Capacity, out written);
        return status == Native.Status.Ok ? null : System.Text.Encoding.UTF8.GetString(into, 0, (int)Math.Min(written, (nuint)into.Length));
    }

    /// <summary>The result file's split line of <paramref name="cell"/> (OPERATION/BACKEND): the mean iteration.</summary>
    public string Line(string cell)
    {
        var (c, into) = (System.Text.Encoding.UTF8.GetBytes(cell), new byte[Capacity]);
        Native.Status status;
        nuint written;
        fixed (byte* pc = c)
        fixed (byte* pi = into)
            status = NativeLine(handle, pc, (nuint)c.Length, pi, Capacity, out written);
        return Answer(status, into, written);
    }

    const int Capacity = 4096;

    /// <summary>The text the Rust side wrote, or its error as a failed check.</summary>
    static string Answer(Native.Status status, byte[] into, nuint written)
    {
        var text = System.Text.Encoding.UTF8.GetString(into, 0, (int)Math.Min(written, (nuint)into.Length));
        return status == Native.Status.Ok ? text : throw new ValidationException(text);
    }

    public void Dispose()
    {
        NativeFree(handle);
        handle = 0;
    }
}
