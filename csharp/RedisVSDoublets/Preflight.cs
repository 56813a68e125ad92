using System.Globalization;

namespace RedisVSDoublets;

/// <summary>
/// Checks made before the first cell, as the Rust side makes them and with the same words, so that
/// a run that cannot finish costs seconds: the memory the sizes need, and the results path.
/// </summary>
public static class Preflight
{
    /// <summary>
    /// The sizes and families a run asks for (<paramref name="get"/> reads a variable), checked with
    /// everything that needs no server: bounds, the memory they need against <paramref name="available"/>,
    /// and every suite's requests built for them.
    /// </summary>
    public static (ulong[] Sizes, IReadOnlyList<FamilyDef> Families) Inputs(Spec spec, Func<string, string?> get, ulong available)
    {
        var sizes = spec.SizesFrom(get);
        var families = spec.FamiliesFrom(get(spec.File.FamilyEnv));
        CheckMemory(spec, sizes, families, available);
        foreach (var suite in spec.Suites)
        {
            switch (suite.Id)
            {
                case "links": Checks.Plan<LinkRequest, Link>(suite, sizes); break;
                case "typical": Checks.Plan<UsageRequest, Entry>(suite, sizes); break;
                case "payload": Checks.Plan<PayloadRequest, Stored>(suite, sizes); break;
                default: throw new SpecException($"{spec.Path}: no store implements the suite \"{suite.Id}\"");
            }
        }
        return (sizes, families);
    }

    /// <summary>Which round of a run this is (BENCHMARK_ROUND, from 1; default 1). Even rounds
    /// measure the backends in reverse order, so that drift over a run favours none of them.</summary>
    public static uint Round(Func<string, string?> get) => get("BENCHMARK_ROUND") switch
    {
        null => 1,
        var text when uint.TryParse(text, System.Globalization.NumberStyles.None, System.Globalization.CultureInfo.InvariantCulture, out var round) && round >= 1 => round,
        var text => throw new ArgumentException($"BENCHMARK_ROUND={text} is not a whole number from 1"),
    };

    /// <summary>The spec's estimate: per background request of a suite, the harness always plus the selected families' stores; the most any suite needs.</summary>
    public static UInt128 MemoryNeeded(Spec spec, ulong[] sizes, IEnumerable<FamilyDef> families)
    {
        var ids = families.Select(f => f.Id).Prepend("harness").ToList();
        return spec.File.Suites.Zip(spec.Suites, (def, suite) =>
            suite.Background.Count(sizes) * ids.Aggregate(UInt128.Zero, (sum, key) => sum + def.MemoryPerRequest[key])).Max();
    }

    /// <summary>Refuses sizes whose estimated memory exceeds what this machine has available.</summary>
    public static void CheckMemory(Spec spec, ulong[] sizes, IEnumerable<FamilyDef> families, ulong available)
    {
        var needed = MemoryNeeded(spec, sizes, families);
        if (needed <= available) return;
        var size = spec.File.Sizes[0];
        throw new SpecException(
            $"{size.Env}={sizes[0]} needs about {Bytes(needed)} of memory, but this machine has {Bytes(available)} available: " +
            $"lower {size.Env} (the estimate is memory_per_request in {spec.Path})");
    }

    /// <summary>MemAvailable from /proc/meminfo: what the kernel can give without swapping.</summary>
    public static ulong AvailableMemory()
    {
        var line = File.ReadLines("/proc/meminfo").FirstOrDefault(l => l.StartsWith("MemAvailable:", StringComparison.Ordinal))
            ?? throw new InvalidOperationException("cannot read this machine's memory: /proc/meminfo has no MemAvailable");
        return ulong.Parse(line.Split(' ', StringSplitOptions.RemoveEmptyEntries)[1], CultureInfo.InvariantCulture) * 1024;
    }

    /// <summary>"1.5 GiB": bytes in binary units, for messages.</summary>
    public static string Bytes(UInt128 n)
    {
        string[] units = ["B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"];
        var value = (double)n;
        var unit = 0;
        while (value >= 1024 && unit + 1 < units.Length) { value /= 1024; unit++; }
        return unit == 0 ? $"{n} B" : string.Create(CultureInfo.InvariantCulture, $"{value:F1} {units[unit]}");
    }

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
