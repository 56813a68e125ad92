using System.Runtime.InteropServices;
using System.Text;

namespace RedisVSDoublets;

/// <summary>
/// The conditions a run measured under: the Rust side's own provenance through the C ABI (the
/// fingerprint, commit, date, CPU, hypervisor, steal time, placement, OS), so that both languages
/// compute and word them once.
/// </summary>
internal static unsafe partial class Provenance
{
    [LibraryImport(Native.Library, EntryPoint = "provenance_begin")] private static partial void NativeBegin();
    [LibraryImport(Native.Library, EntryPoint = "calibration_record")] private static partial Native.Status NativeCalibrate(int moment, byte* name, nuint nameLength, byte* url, nuint urlLength);
    [LibraryImport(Native.Library, EntryPoint = "provenance")] private static partial Native.Status NativeOf(byte* root, nuint rootLength, byte* into, nuint capacity, out nuint written);

    /// <summary>Marks the start of the run, for the steal time the provenance reports.</summary>
    public static void Begin() => NativeBegin();

    /// <summary>Calibrates the machine at a round's start (<paramref name="end"/> false) or end, as the Rust bench does (calibration.rs): the round trip of PINGs to <paramref name="server"/>, if any, and a fixed CPU loop; the provenance then carries it.</summary>
    public static void Calibrate(bool end, RedisServer? server)
    {
        var name = System.Text.Encoding.UTF8.GetBytes(server?.Kind.Name ?? "");
        var url = System.Text.Encoding.UTF8.GetBytes(server?.Url ?? "");
        fixed (byte* n = name)
        fixed (byte* u = url)
            if (NativeCalibrate(end ? 1 : 0, n, (nuint)name.Length, u, (nuint)url.Length) != Native.Status.Ok)
                throw new InvalidOperationException($"the calibration could not PING {server?.Kind.Name} at {server?.Shown}");
    }

    /// <summary>The fingerprint of the checkout at <paramref name="root"/>, then the lines every run shares.</summary>
    public static List<(string Key, string Value)> Of(string root)
    {
        var path = System.Text.Encoding.UTF8.GetBytes(root);
        var buffer = new byte[1 << 16];
        Native.Status status;
        nuint written;
        fixed (byte* r = path)
        fixed (byte* b = buffer)
            status = NativeOf(r, (nuint)path.Length, b, (nuint)buffer.Length, out written);
        var text = System.Text.Encoding.UTF8.GetString(buffer, 0, (int)Math.Min(written, (nuint)buffer.Length));
        if (status != Native.Status.Ok) throw new SpecException(text);
        return [.. text.Split('\n', StringSplitOptions.RemoveEmptyEntries).Select(l => l.Split(": ", 2)).Select(p => (p[0], p[1]))];
    }

    /// <summary>The fingerprint of what a run measures, as the Rust side computes it (provenance::fingerprint).</summary>
    public static string Fingerprint(string root) => Of(root).Single(p => p.Key == "fingerprint").Value;

    /// <summary>The provenance every run shares, whatever its language.</summary>
    public static IEnumerable<(string, string)> Common(string root) => Of(root).Where(p => p.Key != "fingerprint").Select(p => (p.Key, p.Value));
}
