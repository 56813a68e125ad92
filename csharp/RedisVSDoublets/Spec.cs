using System.Runtime.InteropServices;
using System.Text;
using System.Text.Json;
using System.Text.Json.Serialization;

namespace RedisVSDoublets;

/// <summary>A spec error: the file, the line where known, and what is wrong.</summary>
internal sealed class SpecException(string message) : Exception(message);

internal sealed class Text
{
    public string En { get; set; } = "";
    public string Ru { get; set; } = "";
}

internal sealed class SamplingDef
{
    public string Mode { get; set; } = "";
    public int Samples { get; set; }
    public double WarmUpSeconds { get; set; }
    public double MeasurementSeconds { get; set; }
}

internal sealed class SizeDef
{
    public string Symbol { get; set; } = "";
    public string Key { get; set; } = "";
    public string Env { get; set; } = "";
    public ulong Default { get; set; }
    public ulong Min { get; set; }
    public string? Max { get; set; }
    public Text Description { get; set; } = new();
}

internal sealed class FamilyDef
{
    public string Id { get; set; } = "";
    public string EnvValue { get; set; } = "";
    /// <summary>Run when the family variable does not say.</summary>
    public bool Default { get; set; } = true;
    public SamplingDef Sampling { get; set; } = new();
    /// <summary>For a family whose stores keep their data in files: when a write is durable.</summary>
    public Text? Durable { get; set; }
    /// <summary>With Durable: when its files are synced, in a few words (the report's column headers).</summary>
    public Text? Fsync { get; set; }
    /// <summary>For a durable family: the family whose stores it keeps in files instead of RAM.</summary>
    public string? VariantOf { get; set; }
    /// <summary>What restarting a durable store takes beyond the whole check after it (the estimates, made by the Rust side, read it).</summary>
    public double RestartSeconds { get; set; }
}

internal sealed class BackendDef
{
    public string Name { get; set; } = "";
    public string Family { get; set; } = "";
    /// <summary>The server a redis-family backend runs on.</summary>
    public string? Server { get; set; }
    /// <summary>How an in-process (doublets) backend lays out its store: united or split.</summary>
    public string? Layout { get; set; }
    public Text Description { get; set; } = new();
}

/// <summary>A command that rewrites a durable server's files from its data, and the INFO persistence fields (field:value) that all hold once it finished.</summary>
internal sealed class CompactDef
{
    public List<string> Command { get; set; } = [];
    public List<string> Done { get; set; } = [];
}

/// <summary>A RESP server the redis family can run on, and how a disposable one starts.</summary>
internal sealed class ServerDef
{
    public string Id { get; set; } = "";
    /// <summary>As tables and messages name it, and the first part of its backends' names.</summary>
    public string Name { get; set; } = "";
    /// <summary>Run when the server variable does not say.</summary>
    public bool Default { get; set; }
    /// <summary>The field of INFO server that holds its version.</summary>
    public string VersionField { get; set; } = "";
    /// <summary>A command run in the repository before the first start (e.g. restoring a .NET tool).</summary>
    public List<string> Prepare { get; set; } = [];
    /// <summary>The command that starts a disposable server; {port} stands for its port.</summary>
    public List<string> Start { get; set; } = [];
    /// <summary>A disposable server answers DEBUG DIGEST: the check after each cell compares the
    /// digest of the whole server with the one after the load instead of reading the background back.</summary>
    public bool Digest { get; set; }
    /// <summary>The INFO persistence fields that together count every change to its data and never
    /// go back (Redis: the saves and the changes since the last one); empty where it has none.</summary>
    public List<string> Changes { get; set; } = [];
    /// <summary>How its stores are checked after each cell, for the method text.</summary>
    public Text Check { get; set; } = new();
    /// <summary>Why its cells' time is not split into execution, script and the rest; null where
    /// INFO commandstats and INFO cpu report it.</summary>
    public Text? SplitMissing { get; set; }
    /// <summary>For a server that keeps its data in files (its start takes {dir}): when a write is durable.</summary>
    public Text? Durable { get; set; }
    /// <summary>With Durable: when its files are synced, in a few words (the report's column headers).</summary>
    public Text? Fsync { get; set; }
    /// <summary>For a durable server or one on a host of its own: the server it is but for its files or its host.</summary>
    public string? VariantOf { get; set; }
    /// <summary>What restarting it takes beyond the whole check after it (the estimates, made by the Rust side, read it).</summary>
    public double RestartSeconds { get; set; }
    /// <summary>How a durable server's files are made as small as its data after each restart.</summary>
    public CompactDef? Compact { get; set; }
    /// <summary>For a server on a host of its own (its start takes {host}): the round trip the network to it adds, in µs.</summary>
    public long? RoundTripUs { get; set; }
    /// <summary>How to install it, for the error when it cannot start.</summary>
    public string Install { get; set; } = "";
    /// <summary>The most bytes of commands a pipeline writes before it reads their replies: the spec's
    /// pipeline_window_bytes, given to every server (unbounded when it sets none).</summary>
    [JsonIgnore]
    public long PipelineWindow { get; set; } = long.MaxValue;
    public Text Description { get; set; } = new();
    /// <summary>It is reached through a Unix socket (its start takes {socket}), not TCP.</summary>
    public bool Socket => Start.Any(a => a.Contains("{socket}", StringComparison.Ordinal));

    /// <summary>Whether its start takes {dir}, the folder its data files go in: a durable server's.</summary>
    public bool KeepsFiles => Start.Any(a => a.Contains("{dir}", StringComparison.Ordinal));
    /// <summary>It runs on a host of its own and binds that host's address (its start takes {host}).</summary>
    public bool OnItsOwnHost => Start.Any(a => a.Contains("{host}", StringComparison.Ordinal));
}

internal sealed class ExpectedDef
{
    public string Ids { get; set; } = "";
    public ulong? Times { get; set; }
}

internal sealed class WorkDef
{
    public string? For { get; set; }
    public List<string> Do { get; set; } = [];
}

internal sealed class BackgroundDef
{
    public Text Description { get; set; } = new();
    public string? For { get; set; }
    public List<string> Do { get; set; } = [];
    public ExpectedDef Expected { get; set; } = new();
}

internal sealed class OperationDef
{
    public string Id { get; set; } = "";
    public string Name { get; set; } = "";
    public Text Description { get; set; } = new();
    public string? For { get; set; }
    public List<string> Do { get; set; } = [];
    public ExpectedDef Expected { get; set; } = new();
    public WorkDef? Undo { get; set; }
}

internal sealed class SuiteDef
{
    public string Id { get; set; } = "";
    public Text Name { get; set; } = new();
    public List<string> Backends { get; set; } = [];
    public BackgroundDef Background { get; set; } = new();
    public List<OperationDef> Operations { get; set; } = [];
    /// <summary>Bytes a run holds per background request: the harness always, each family's store while loaded.</summary>
    public Dictionary<string, ulong> MemoryPerRequest { get; set; } = [];
    /// <summary>Microseconds per background request a round spends on each store beside sampling, for the estimates (the Rust side checks them).</summary>
    public OverheadDef? OverheadUs { get; set; }
    /// <summary>The families that do not run this suite, each with the reason the README gives.</summary>
    public Dictionary<string, Text> LeftOut { get; set; } = [];
}

/// <summary>Microseconds per background request, by store (a server, else the family): its load with its checks, and one whole check after a cell.</summary>
internal sealed class OverheadDef
{
    public Dictionary<string, double> Load { get; set; } = [];
    public Dictionary<string, double> Check { get; set; } = [];
    /// <summary>Per item an iteration reports, by store or client.</summary>
    public Dictionary<string, double> Found { get; set; } = [];
    /// <summary>Per request of an iteration's work and undo, by mode, then by store or client.</summary>
    public Dictionary<string, Dictionary<string, double>> Request { get; set; } = [];
    /// <summary>This harness's own costs where they differ (it checks a Doublets store through the C ABI), looked up first.</summary>
    public OverheadDef? Csharp { get; set; }
}

/// <summary>Cells a client cannot run correctly: those of a suite, a mode, a server (its id), or where several are given, of all of them.</summary>
internal sealed class NotRunDef
{
    public string? Suite { get; set; }
    public string? Mode { get; set; }
    public string? Server { get; set; }
    public Text Why { get; set; } = new();

    public bool Covers(string suite, string server, Mode mode) =>
        (Suite ?? suite) == suite && (Mode ?? mode.ToString()) == mode.ToString() && (Server ?? server) == server;
}

/// <summary>
/// A Redis client library every server backend runs through. The default client's cells keep the
/// backend's name; the others' add their suffix (Redis_Pipeline_FreeRedis).
/// </summary>
internal sealed class ClientDef
{
    /// <summary>The NuGet package, whose version the results record.</summary>
    public string Id { get; set; } = "";
    public string? Suffix { get; set; }
    public Text Description { get; set; } = new();
    /// <summary>The cells this client cannot run correctly, and why: shown as not run.</summary>
    public List<NotRunDef> NotRun { get; set; } = [];

    /// <summary>Why this client does not run <paramref name="suite"/> on <paramref name="server"/> (its id) in <paramref name="mode"/>, or null when it does.</summary>
    public Text? Refuses(string suite, string server, Mode mode) => NotRun.FirstOrDefault(n => n.Covers(suite, server, mode))?.Why;

    /// <summary>The name of a cell of <paramref name="backend"/> run through this client.</summary>
    public string Backend(string backend) => Suffix is null ? backend : $"{backend}_{Suffix}";
}

internal sealed class SpecFile
{
    public List<SizeDef> Sizes { get; set; } = [];
    public List<FamilyDef> Families { get; set; } = [];
    public string FamilyEnv { get; set; } = "";
    /// <summary>The variable naming where the durable families make their temporary folder.</summary>
    public string DurableDirEnv { get; set; } = "";
    /// <summary>The variable that allows that folder to be on tmpfs.</summary>
    public string DurableTmpfsEnv { get; set; } = "";
    /// <summary>The variable saying how durable stores stop before each restart (close or kill); the Rust side reads it.</summary>
    public string DurableStopEnv { get; set; } = "";
    public string ServerEnv { get; set; } = "";
    /// <summary>The variable that picks the clients the server backends are measured through.</summary>
    public string ClientEnv { get; set; } = "";
    /// <summary>The variable that picks the suites a bench runs (the Rust side narrows the suites it hands over).</summary>
    public string SuiteEnv { get; set; } = "";
    public List<ServerDef> Servers { get; set; } = [];
    /// <summary>How many bytes of commands a Pipeline backend writes before reading their replies.</summary>
    public long? PipelineWindowBytes { get; set; }
    /// <summary>How many more iterations a server cell runs, and for how long at most, with the
    /// server's per-command time and CPU read around each one's work.</summary>
    public SplitDef? Split { get; set; }
    /// <summary>The paths, relative to the repository, whose files a result's fingerprint covers.</summary>
    public List<string> Fingerprint { get; set; } = [];
    public List<ClientDef> Clients { get; set; } = [];
    public List<BackendDef> Backends { get; set; } = [];
    public List<SuiteDef> Suites { get; set; } = [];
    /// <summary>The memory measurement (run by the Rust side): the B it is published at, and its method text.</summary>
    public MemoryDef? Memory { get; set; }
    /// <summary>The load measurement (concurrent clients), run by both languages.</summary>
    public LoadDef? Load { get; set; }
    /// <summary>What the READMEs publish: read by the Rust side's re-measure plan alone.</summary>
    public object? Publish { get; set; }
}

internal sealed class SplitDef
{
    public int Iterations { get; set; }
    public double Seconds { get; set; }
    /// <summary>The method text (the Rust side's report prints it).</summary>
    public Text Description { get; set; } = new();
}

internal sealed class LoadDef
{
    public List<ulong> Sizes { get; set; } = [];
    public List<int> Clients { get; set; } = [];
    public List<int> Depths { get; set; } = [];
    public List<int> ClientDepths { get; set; } = [];
    public int Batch { get; set; }
    public int LatencyClients { get; set; }
    public double WarmUpSeconds { get; set; }
    public double Seconds { get; set; }
    public List<LoadOperationDef> Operations { get; set; } = [];
    public Text Description { get; set; } = new();
}

internal sealed class LoadOperationDef
{
    public string Id { get; set; } = "";
    public string? RedisBenchmark { get; set; }
}

internal sealed class MemoryDef
{
    public List<ulong> Sizes { get; set; } = [];
    public Text Description { get; set; } = new();
}

/// <summary>One request as the spec writes it (<c>update i 0 0</c>): a verb and arguments, null for <c>*</c>.</summary>
internal sealed record Template(string Verb, IReadOnlyList<Expr?> Args, string Text);

/// <summary>Requests run once, or once per value of a range.</summary>
internal sealed record Work(Interval? Range, IReadOnlyList<Template> Requests)
{
    /// <summary>The concrete requests for these sizes, built by <paramref name="build"/>.</summary>
    public List<T> Build<T>(ulong[] sizes, Func<string, ulong?[], T> build)
    {
        var values = Range is null ? [null] : Range.Values(sizes).Select(v => (Int128?)v).ToList();
        var requests = new List<T>(values.Count * Requests.Count);
        foreach (var i in values)
        {
            foreach (var template in Requests)
            {
                var args = new ulong?[template.Args.Count];
                for (var k = 0; k < args.Length; k++)
                    if (template.Args[k] is { } expr) args[k] = checked((ulong)expr.Eval(sizes, i));
                requests.Add(build(template.Verb, args));
            }
        }
        return requests;
    }

    /// <summary>How many requests the work makes for these sizes, without building them.</summary>
    public UInt128 Count(ulong[] sizes) => (Range is null ? 1 : Range.Count(sizes)) * (UInt128)Requests.Count;
}

internal sealed record Expected(Interval Ids, ulong Times)
{
    public Tally Tally(ulong[] sizes)
    {
        var tally = new Tally();
        foreach (var id in Ids.Values(sizes))
            for (ulong k = 0; k < Times; k++) tally.Add((ulong)id);
        return tally;
    }
}

internal sealed record Operation(string Id, string Name, Work Work, Expected Expected, Work? Undo);

internal sealed record Suite(string Id, Text Name, IReadOnlyList<string> Backends, Work Background, Expected BackgroundExpected, IReadOnlyList<Operation> Operations);

/// <summary>
/// The benchmark spec (spec/benchmarks.yaml) and the run's choices, read and checked by the Rust
/// side alone (through the C ABI, as its bench checks them, with the file, line and column of any
/// refusal): this harness has no spec reader of its own, and evaluates the work's expressions only.
/// </summary>
internal sealed unsafe partial class Spec
{
    public const string RelativePath = "spec/benchmarks.yaml";

    public required string Path { get; init; }
    public required SpecFile File { get; init; }
    public required IReadOnlyList<Suite> Suites { get; init; }
    /// <summary>The sizes the run's variables give, in the spec's order, checked against their bounds and this machine's memory.</summary>
    public required ulong[] Sizes { get; init; }
    /// <summary>The families the family variable chooses, else those run by default.</summary>
    public required IReadOnlyList<FamilyDef> Families { get; init; }
    /// <summary>The disposable servers the server variable chooses, else those marked default.</summary>
    public required IReadOnlyList<ServerDef> Servers { get; init; }
    /// <summary>The clients each server backend is measured through: those the client variable chooses, else every one.</summary>
    public required IReadOnlyList<ClientDef> Clients { get; init; }

    public BackendDef Backend(string name) => File.Backends.Single(b => b.Name == name);
    public FamilyDef Family(string id) => File.Families.Single(f => f.Id == id);

    /// <summary>The repository root: the nearest folder above <paramref name="start"/> holding the spec.</summary>
    public static string FindRoot(string start)
    {
        for (var dir = new DirectoryInfo(start); dir is not null; dir = dir.Parent)
            if (System.IO.File.Exists(System.IO.Path.Combine(dir.FullName, RelativePath))) return dir.FullName;
        throw new SpecException($"no {RelativePath} above {start}: run from a checkout of RedisVSDoublets");
    }

    /// <summary>
    /// The spec of the checkout at <paramref name="root"/> with the choices of the variables
    /// <paramref name="get"/> reads, every suite's requests built for the chosen sizes, against
    /// <paramref name="available"/> bytes of memory (0: what this machine has available now).
    /// </summary>
    public static Spec Load(string root, Func<string, string?> get, ulong available = 0) =>
        Read(System.IO.Path.Combine(root, RelativePath), "", get, available);

    /// <summary>As <see cref="Load"/>, from spec text that errors name as <paramref name="path"/>.</summary>
    public static Spec Parse(string text, string path, Func<string, string?> get, ulong available) =>
        Read(path, text, get, available);

    [LibraryImport(Native.Library, EntryPoint = "spec_handoff")]
    private static partial Native.Status Handoff(byte* path, nuint pathLength, byte* text, nuint textLength,
        delegate* unmanaged<nint, byte*, nuint, byte*, nuint, nint> variable, nint context, ulong available,
        byte* into, nuint capacity, out nuint written);

    /// <summary>The Rust side's reading of a variable: its value's length in UTF-8 (written when it fits), or -1 where it is unset.</summary>
    [UnmanagedCallersOnly]
    static nint Variable(nint context, byte* name, nuint nameLength, byte* into, nuint capacity)
    {
        var get = (Func<string, string?>)GCHandle.FromIntPtr(context).Target!;
        if (get(Encoding.UTF8.GetString(name, (int)nameLength)) is not { } value) return -1;
        var bytes = Encoding.UTF8.GetBytes(value);
        if ((nuint)bytes.Length <= capacity) bytes.CopyTo(new Span<byte>(into, bytes.Length));
        return bytes.Length;
    }

    static readonly JsonSerializerOptions Json = new()
    {
        PropertyNamingPolicy = JsonNamingPolicy.SnakeCaseLower,
        Converters = { new Expr.FromTerms() },
    };

    sealed record Handed(string Path, SpecFile Document, ulong[] Sizes, List<string> Families, List<string> Servers, List<string> Clients, List<Suite> Suites);

    static Spec Read(string path, string text, Func<string, string?> get, ulong available)
    {
        var (p, t) = (Encoding.UTF8.GetBytes(path), Encoding.UTF8.GetBytes(text));
        var context = GCHandle.Alloc(get);
        try
        {
            // The spec as JSON is some 100 KiB; a longer answer is asked for again at its length.
            for (var into = new byte[1 << 18]; ; into = new byte[(int)into.Length * 2])
            {
                Native.Status status;
                nuint written;
                fixed (byte* pp = p)
                fixed (byte* pt = t)
                fixed (byte* pi = into)
                    status = Handoff(pp, (nuint)p.Length, pt, (nuint)t.Length, &Variable, GCHandle.ToIntPtr(context), available, pi, (nuint)into.Length, out written);
                if (status == Native.Status.BadArgument && written > (nuint)into.Length) continue;
                var answer = Encoding.UTF8.GetString(into, 0, (int)Math.Min(written, (nuint)into.Length));
                if (status != Native.Status.Ok) throw new SpecException(answer);
                return FromHandoff(JsonSerializer.Deserialize<Handed>(answer, Json)!);
            }
        }
        finally { context.Free(); }
    }

    static Spec FromHandoff(Handed handed)
    {
        var file = handed.Document;
        foreach (var server in file.Servers) server.PipelineWindow = file.PipelineWindowBytes ?? long.MaxValue;
        return new Spec
        {
            Path = handed.Path,
            File = file,
            Suites = handed.Suites,
            Sizes = handed.Sizes,
            Families = [.. handed.Families.Select(id => file.Families.Single(f => f.Id == id))],
            Servers = [.. handed.Servers.Select(id => file.Servers.Single(s => s.Id == id))],
            Clients = [.. handed.Clients.Select(id => file.Clients.Single(c => c.Id == id))],
        };
    }

    /// <summary>Whether a run of <paramref name="families"/> on the servers <paramref name="servers"/> (ids) measures <paramref name="backend"/>.</summary>
    public bool Runs(string backend, IEnumerable<string> families, IEnumerable<string> servers)
    {
        var def = Backend(backend);
        return families.Contains(def.Family) && (def.Server is null || servers.Contains(def.Server));
    }
}
