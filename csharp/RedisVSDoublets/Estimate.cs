using System.Runtime.InteropServices;
using System.Text;

namespace RedisVSDoublets;

/// <summary>
/// A round's estimate as the Rust side counts it (Spec::cell_seconds and Spec::load_seconds, from
/// the spec it reads and checks), through the C ABI: what a cell and a load cost is counted in one
/// place for both languages.
/// </summary>
internal sealed unsafe partial class Estimate : IDisposable
{
    [LibraryImport(Native.Library, EntryPoint = "spec_open")]
    private static partial Native.Status Open(byte* root, nuint rootLength, out nint spec, byte* into, nuint capacity, out nuint written);
    [LibraryImport(Native.Library, EntryPoint = "spec_free")] private static partial void Free(nint spec);
    [LibraryImport(Native.Library, EntryPoint = "spec_cell_seconds")]
    private static partial Native.Status CellSeconds(nint spec, byte* suite, nuint suiteLength, byte* operation, nuint operationLength, byte* backend, nuint backendLength, byte* client, nuint clientLength, ulong* sizes, nuint sizesLength, double* schedule);
    [LibraryImport(Native.Library, EntryPoint = "spec_load_seconds")]
    private static partial Native.Status LoadSeconds(nint spec, byte* suite, nuint suiteLength, byte* backend, nuint backendLength, ulong* sizes, nuint sizesLength, out double seconds);

    nint handle;
    readonly ulong[] sizes;

    /// <summary>The estimate of a round at <paramref name="sizes"/> (the spec's sizes in order), from the spec of the checkout at <paramref name="root"/>.</summary>
    public Estimate(string root, ulong[] sizes)
    {
        this.sizes = sizes;
        var (r, into) = (Encoding.UTF8.GetBytes(root), new byte[4096]);
        Native.Status status;
        nuint written;
        fixed (byte* pr = r)
        fixed (byte* pi = into)
            status = Open(pr, (nuint)r.Length, out handle, pi, (nuint)into.Length, out written);
        if (status != Native.Status.Ok)
            throw new SpecException(Encoding.UTF8.GetString(into, 0, (int)Math.Min(written, (nuint)into.Length)));
    }

    /// <summary>What the cell of <paramref name="operation"/> in <paramref name="suite"/> on <paramref name="backend"/> through <paramref name="client"/> (null: the store's own) costs.</summary>
    public Schedule Cell(string suite, string operation, string backend, string? client)
    {
        var (s, o, b, c) = (Encoding.UTF8.GetBytes(suite), Encoding.UTF8.GetBytes(operation), Encoding.UTF8.GetBytes(backend), Encoding.UTF8.GetBytes(client ?? ""));
        var figures = stackalloc double[5];
        Native.Status status;
        fixed (byte* ps = s)
        fixed (byte* po = o)
        fixed (byte* pb = b)
        fixed (byte* pc = c)
        fixed (ulong* pz = sizes)
            status = CellSeconds(handle, ps, (nuint)s.Length, po, (nuint)o.Length, pb, (nuint)b.Length, pc, (nuint)c.Length, pz, (nuint)sizes.Length, figures);
        Check(status, $"{operation}/{backend} of the suite {suite}");
        return new((int)figures[0], figures[1], figures[2], figures[3], figures[4]);
    }

    /// <summary>What one load of <paramref name="suite"/> into the store of <paramref name="backend"/> costs, in seconds.</summary>
    public double Load(string suite, string backend)
    {
        var (s, b) = (Encoding.UTF8.GetBytes(suite), Encoding.UTF8.GetBytes(backend));
        Native.Status status;
        double seconds;
        fixed (byte* ps = s)
        fixed (byte* pb = b)
        fixed (ulong* pz = sizes)
            status = LoadSeconds(handle, ps, (nuint)s.Length, pb, (nuint)b.Length, pz, (nuint)sizes.Length, out seconds);
        Check(status, $"{backend} of the suite {suite}");
        return seconds;
    }

    static void Check(Native.Status status, string what)
    {
        if (status != Native.Status.Ok) throw new InvalidOperationException($"the Rust side cannot estimate {what}: {status}");
    }

    public void Dispose()
    {
        if (handle != 0) Free(handle);
        handle = 0;
    }
}
