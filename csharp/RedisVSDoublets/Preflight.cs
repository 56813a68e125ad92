using System.Globalization;

namespace RedisVSDoublets;

/// <summary>
/// Checks of this harness's own variables made before the first cell, so that a run that cannot
/// finish costs seconds: the round and the results path. The sizes, the memory they need and
/// every request the Rust side checks when it hands the spec over (<see cref="Spec.Load"/>).
/// </summary>
internal static class Preflight
{
    /// <summary>Which round of a run this is (BENCHMARK_ROUND, from 1; default 1). Even rounds
    /// measure the backends in reverse order, so that drift over a run favours none of them.</summary>
    public static uint Round(Func<string, string?> get) => get("BENCHMARK_ROUND") switch
    {
        null => 1,
        var text when uint.TryParse(text, System.Globalization.NumberStyles.None, System.Globalization.CultureInfo.InvariantCulture, out var round) && round >= 1 => round,
        var text => throw new ArgumentException($"BENCHMARK_ROUND={text} is not a whole number from 1"),
    };

    /// <summary>The file BENCHMARK_RESULTS names, checked without writing: a file in a folder that exists.</summary>
    public static string? ResultsPath(string? value)
    {
        if (string.IsNullOrEmpty(value)) return null;
        if (Directory.Exists(value))
            throw new IOException($"BENCHMARK_RESULTS={value} is a folder: name the file to write, e.g. {value.TrimEnd('/')}/csharp.txt");
        var dir = Path.GetDirectoryName(Path.GetFullPath(value))!;
        if (!Directory.Exists(dir)) throw new IOException($"BENCHMARK_RESULTS={value}: the folder {dir} does not exist");
        return value;
    }
}
