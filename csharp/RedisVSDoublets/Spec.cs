using System.Globalization;
using YamlDotNet.Core;
using YamlDotNet.Serialization;
using YamlDotNet.Serialization.NamingConventions;

namespace RedisVSDoublets;

/// <summary>A spec error: the file, the line where known, and what is wrong.</summary>
public sealed class SpecException(string message) : Exception(message);

public sealed class Text
{
    public string En { get; set; } = "";
    public string Ru { get; set; } = "";
}

public sealed class SamplingDef
{
    public string Mode { get; set; } = "";
    public int Samples { get; set; }
    public double WarmUpSeconds { get; set; }
    public double MeasurementSeconds { get; set; }
}

public sealed class SizeDef
{
    public string Symbol { get; set; } = "";
    public string Key { get; set; } = "";
    public string Env { get; set; } = "";
    public ulong Default { get; set; }
    public ulong Min { get; set; }
    public string? Max { get; set; }
    public Text Description { get; set; } = new();
}

public sealed class FamilyDef
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

public sealed class BackendDef
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
public sealed class CompactDef
{
    public List<string> Command { get; set; } = [];
    public List<string> Done { get; set; } = [];
}

/// <summary>A RESP server the redis family can run on, and how a disposable one starts.</summary>
public sealed class ServerDef
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
    [YamlDotNet.Serialization.YamlIgnore]
    public long PipelineWindow { get; set; } = long.MaxValue;
    public Text Description { get; set; } = new();
    /// <summary>It is reached through a Unix socket (its start takes {socket}), not TCP.</summary>
    public bool Socket => Start.Any(a => a.Contains("{socket}", StringComparison.Ordinal));

    /// <summary>Whether its start takes {dir}, the folder its data files go in: a durable server's.</summary>
    public bool KeepsFiles => Start.Any(a => a.Contains("{dir}", StringComparison.Ordinal));
    /// <summary>It runs on a host of its own and binds that host's address (its start takes {host}).</summary>
    public bool OnItsOwnHost => Start.Any(a => a.Contains("{host}", StringComparison.Ordinal));
}

public sealed class ExpectedDef
{
    public string Ids { get; set; } = "";
    public ulong? Times { get; set; }
}

public sealed class WorkDef
{
    [YamlMember(Alias = "for")] public string? For { get; set; }
    [YamlMember(Alias = "do")] public List<string> Do { get; set; } = [];
}

public sealed class BackgroundDef
{
    public Text Description { get; set; } = new();
    [YamlMember(Alias = "for")] public string? For { get; set; }
    [YamlMember(Alias = "do")] public List<string> Do { get; set; } = [];
    public ExpectedDef Expected { get; set; } = new();
}

public sealed class OperationDef
{
    public string Id { get; set; } = "";
    public string Name { get; set; } = "";
    public Text Description { get; set; } = new();
    [YamlMember(Alias = "for")] public string? For { get; set; }
    [YamlMember(Alias = "do")] public List<string> Do { get; set; } = [];
    public ExpectedDef Expected { get; set; } = new();
    public WorkDef? Undo { get; set; }
}

public sealed class SuiteDef
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
public sealed class OverheadDef
{
    public Dictionary<string, double> Load { get; set; } = [];
    public Dictionary<string, double> Check { get; set; } = [];
    /// <summary>Per item an iteration reports, by store or client.</summary>
    public Dictionary<string, double> Found { get; set; } = [];
}

/// <summary>Cells a client cannot run correctly: those of a suite, a mode, a server (its id), or where several are given, of all of them.</summary>
public sealed class NotRunDef
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
public sealed class ClientDef
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

public sealed class SpecFile
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

public sealed class SplitDef
{
    public int Iterations { get; set; }
    public double Seconds { get; set; }
    /// <summary>The method text (the Rust side's report prints it).</summary>
    public Text Description { get; set; } = new();
}

public sealed class LoadDef
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

public sealed class LoadOperationDef
{
    public string Id { get; set; } = "";
    public string? RedisBenchmark { get; set; }
}

public sealed class MemoryDef
{
    public List<ulong> Sizes { get; set; } = [];
    public Text Description { get; set; } = new();
}

/// <summary>One request as the spec writes it (<c>update i 0 0</c>): a verb and arguments, null for <c>*</c>.</summary>
public sealed record Template(string Verb, IReadOnlyList<Expr?> Args, string Text);

/// <summary>Requests run once, or once per value of a range.</summary>
public sealed record Work(Interval? Range, IReadOnlyList<Template> Requests)
{
    /// <summary>The concrete requests for these sizes, built by <paramref name="build"/>.</summary>
    public List<T> Build<T>(ulong[] sizes, Func<string, ulong?[], T> build, string what)
    {
        var values = Range is null ? [null] : Range.Values(sizes).Select(v => (Int128?)v).ToList();
        var requests = new List<T>(values.Count * Requests.Count);
        foreach (var i in values)
        {
            foreach (var template in Requests)
            {
                var args = new ulong?[template.Args.Count];
                for (var k = 0; k < args.Length; k++)
                {
                    if (template.Args[k] is not { } expr) continue;
                    var value = expr.Eval(sizes, i);
                    if (value < 0 || value > ulong.MaxValue)
                        throw new SpecException($"{what}: \"{template.Text}\" gives {value}, not a whole number from 0 to {ulong.MaxValue}");
                    args[k] = (ulong)value;
                }
                requests.Add(build(template.Verb, args));
            }
        }
        return requests;
    }

    /// <summary>How many requests the work makes for these sizes, without building them.</summary>
    public UInt128 Count(ulong[] sizes) => (Range is null ? 1 : Range.Count(sizes)) * (UInt128)Requests.Count;
}

public sealed record Expected(Interval Ids, ulong Times)
{
    public Tally Tally(ulong[] sizes)
    {
        var tally = new Tally();
        foreach (var id in Ids.Values(sizes))
            for (ulong k = 0; k < Times; k++) tally.Add((ulong)id);
        return tally;
    }
}

public sealed record Operation(string Id, string Name, Work Work, Expected Expected, Work? Undo);

public sealed record Suite(string Id, string Name, IReadOnlyList<string> Backends, Work Background, Expected BackgroundExpected, IReadOnlyList<Operation> Operations);

/// <summary>The benchmark spec (spec/benchmarks.yaml), read with YamlDotNet and checked like the Rust side checks it.</summary>
public sealed class Spec
{
    public const string RelativePath = "spec/benchmarks.yaml";

    public required string Path { get; init; }
    public required SpecFile File { get; init; }
    public required IReadOnlyList<Suite> Suites { get; init; }

    public BackendDef Backend(string name) => File.Backends.Single(b => b.Name == name);
    public FamilyDef Family(string id) => File.Families.Single(f => f.Id == id);

    /// <summary>The repository root: the nearest folder above <paramref name="start"/> holding the spec.</summary>
    public static string FindRoot(string start)
    {
        for (var dir = new DirectoryInfo(start); dir is not null; dir = dir.Parent)
            if (System.IO.File.Exists(System.IO.Path.Combine(dir.FullName, RelativePath))) return dir.FullName;
        throw new SpecException($"no {RelativePath} above {start}: run from a checkout of RedisVSDoublets");
    }

    public static Spec Load(string path, Func<string, string, ulong?[], string?> check)
    {
        var text = System.IO.File.ReadAllText(path);
        return Parse(text, path, check);
    }

    const string DurableFsync = "`durable` (when a write is durable) and `fsync` (when its files are synced, in a few words) go together";

    /// <summary>Parses spec text; <paramref name="check"/> returns why a suite's stores cannot run a request, or null.</summary>
    public static Spec Parse(string text, string path, Func<string, string, ulong?[], string?> check)
    {
        SpecFile file;
        try
        {
            file = new DeserializerBuilder()
                .WithNamingConvention(UnderscoredNamingConvention.Instance)
                .WithDuplicateKeyChecking()
                .Build()
                .Deserialize<SpecFile>(text);
        }
        catch (YamlException e)
        {
            var inner = e.InnerException is null ? "" : $": {e.InnerException.Message}";
            throw new SpecException($"{path}:{e.Start.Line}:{e.Start.Column}: {e.Message}{inner}");
        }
        var lines = text.Split('\n');
        string At(string needle)
        {
            var line = Array.FindIndex(lines, l => l.Contains(needle, StringComparison.Ordinal));
            return line < 0 ? path : $"{path}:{line + 1}";
        }

        var symbols = file.Sizes.Select(s => s.Symbol).ToArray();
        for (var k = 0; k < file.Sizes.Count; k++)
            if (file.Sizes[k].Max is { } max)
                // A bound may only use the sizes declared before it, which are known when it is checked.
                Wrap(() => Expr.Parse(max, symbols[..k]), At("max: " + max), " (a bound can use the sizes declared above it)");
        foreach (var family in file.Families)
        {
            var sampling = family.Sampling;
            if (sampling.Mode is not ("linear" or "flat" or "auto"))
                throw new SpecException($"{At("mode: " + sampling.Mode)}: unknown variant `{sampling.Mode}`, expected one of linear, flat, auto");
            if (sampling.Samples < 10 || sampling.WarmUpSeconds <= 0 || sampling.MeasurementSeconds <= 0)
                throw new SpecException($"{At("id: " + family.Id)}: sampling needs at least 10 samples and positive times");
            if (family.Durable is not null && (file.DurableDirEnv.Length == 0 || file.DurableTmpfsEnv.Length == 0))
                throw new SpecException($"{At("id: " + family.Id)}: a durable family needs durable_dir_env and durable_tmpfs_env, the variables that place its files");
            if (family.Durable is not null != family.Fsync is not null)
                throw new SpecException($"{At("id: " + family.Id)}: {DurableFsync}");
            if (family.Durable is not null != family.VariantOf is not null)
                throw new SpecException($"{At("id: " + family.Id)}: a durable family, and only one, names in `variant_of` the family whose stores it keeps in files");
            if (family.VariantOf is { } of && !file.Families.Any(f => f.Id == of && f.Durable is null))
                throw new SpecException($"{At("variant_of: " + of)}: variant_of: \"{of}\" is not a family that keeps its stores in RAM");
        }
        if (file.Families.Count > 0 && file.Families.All(f => !f.Default))
            throw new SpecException($"{At("id: " + file.Families[0].Id)}: no family runs by default: mark one `default: true`");
        foreach (var suite in file.Suites)
        {
            foreach (var key in suite.MemoryPerRequest.Keys)
                if (key != "harness" && file.Families.All(f => f.Id != key))
                    throw new SpecException($"{At("memory_per_request")}: memory_per_request: \"{key}\" is neither harness nor a family");
            foreach (var needed in file.Families.Select(f => f.Id).Prepend("harness"))
                if (!suite.MemoryPerRequest.ContainsKey(needed))
                    throw new SpecException($"{At("memory_per_request")}: memory_per_request: {needed} is missing");
            foreach (var family in suite.LeftOut.Keys)
            {
                if (file.Families.All(f => f.Id != family))
                    throw new SpecException($"{At("left_out")}: left_out: \"{family}\" is not a family");
                if (suite.Backends.FirstOrDefault(b => file.Backends.Any(d => d.Name == b && d.Family == family)) is { } listed)
                    throw new SpecException($"{At(listed)}: the suite leaves the family {family} out, but lists its backend {listed}");
            }
            if (suite.OverheadUs is { } overhead)
            {
                var stores = suite.Backends.Select(b => file.Backends.FirstOrDefault(d => d.Name == b)).OfType<BackendDef>()
                    .Select(d => d.Server ?? d.Family).Distinct().ToList();
                var named = stores.Concat(file.Clients.Select(c => c.Id)).ToList();
                foreach (var (what, costs, keys) in new[] { ("load", overhead.Load, stores), ("check", overhead.Check, stores), ("found", overhead.Found, named) })
                {
                    var error = (string text) => new SpecException($"{At("overhead_us")}: overhead_us: {what}: {text}");
                    if (costs.Keys.FirstOrDefault(k => !keys.Contains(k)) is { } key)
                        throw error(what == "found"
                            ? $"\"{key}\" is no store of the suite or client (the stores are {string.Join(", ", stores)})"
                            : $"\"{key}\" is no store of the suite (they are {string.Join(", ", stores)})");
                    if (what != "found" && stores.FirstOrDefault(s => !costs.ContainsKey(s)) is { } store)
                        throw error($"{store} is missing");
                    if (costs.FirstOrDefault(c => !(double.IsFinite(c.Value) && c.Value >= 0)) is { Key: { } bad, Value: var cost })
                        throw error(string.Create(CultureInfo.InvariantCulture, $"{bad}: {cost} is not a number of microseconds"));
                }
            }
        }
        Duplicates("client", file.Clients.Select(c => c.Id), At);
        Duplicates("client suffix", file.Clients.Where(c => c.Suffix is not null).Select(c => c.Suffix!), At);
        foreach (var client in file.Clients.Where(c => c.Suffix is not null))
            if (client.Suffix!.Length == 0 || !client.Suffix.All(char.IsAsciiLetterOrDigit))
                throw new SpecException($"{At("suffix: " + client.Suffix)}: the client suffix \"{client.Suffix}\" must be letters and digits");
        foreach (var (client, notRun) in file.Clients.SelectMany(c => c.NotRun.Select(n => (c, n))))
        {
            if (notRun.Suite is { } suite && file.Suites.All(s => s.Id != suite))
                throw new SpecException($"{At("suite: " + suite)}: not_run: unknown suite \"{suite}\"");
            if (notRun.Mode is { } mode && !Enum.TryParse<Mode>(mode, out _))
                throw new SpecException($"{At("mode: " + mode)}: not_run: the mode \"{mode}\" is not NonTransaction, Transaction or Pipeline");
            if (notRun.Server is { } server && file.Servers.All(s => s.Id != server))
                throw new SpecException($"{At("server: " + server)}: not_run: unknown server \"{server}\"");
            if (notRun.Suite is null && notRun.Mode is null && notRun.Server is null)
                throw new SpecException($"{At("id: " + client.Id)}: not_run: an entry needs a suite, a mode or a server, or it would refuse every cell");
        }
        if (file.Clients.Count > 0 && file.Clients.Count(c => c.Suffix is null) != 1)
            throw new SpecException($"{At("clients:")}: exactly one client must be the default (the one without a suffix)");
        Duplicates("size", file.Sizes.Select(s => s.Symbol), At);
        Duplicates("backend", file.Backends.Select(b => b.Name), At);
        Duplicates("suite", file.Suites.Select(s => s.Id), At);
        Duplicates("operation", file.Suites.SelectMany(s => s.Operations).Select(o => o.Id), At);
        Duplicates("server", file.Servers.Select(s => s.Id), At);
        if (file.Servers.Count > 0 && file.ServerEnv.Length == 0)
            throw new SpecException($"{At("id: " + file.Servers[0].Id)}: servers need server_env, the variable that picks them");
        if (file.Clients.Count > 0 && file.ClientEnv.Length == 0)
            throw new SpecException($"{At("id: " + file.Clients[0].Id)}: clients need client_env, the variable that picks them");
        if (file.PipelineWindowBytes <= 0)
            throw new SpecException($"{At("pipeline_window_bytes:")}: pipeline_window_bytes must be a positive number of bytes");
        if (file.Split is { } split && (split.Iterations <= 0 || !(split.Seconds > 0)))
            throw new SpecException($"{At("split:")}: split: iterations and seconds must be above 0");
        foreach (var server in file.Servers)
        {
            if (!server.Start.Any(a => a.Contains("{port}", StringComparison.Ordinal)))
                throw new SpecException($"{At("id: " + server.Id)}: start: the command must take {{port}}");
            if (server.KeepsFiles != server.Durable is not null)
                throw new SpecException($"{At("id: " + server.Id)}: " + (server.KeepsFiles
                    ? "start: {dir} is the folder of a durable server's files: say when a write is durable in `durable`"
                    : "start: a durable server takes {dir}, the folder its files go in"));
            if (server.OnItsOwnHost != server.RoundTripUs is not null)
                throw new SpecException($"{At("id: " + server.Id)}: " + (server.OnItsOwnHost
                    ? "start: {host} is the address of a server on a host of its own: give the round trip to it in `round_trip_us`"
                    : "start: a server with a round trip runs on a host of its own and binds its address, {host}"));
            if (server.Durable is not null != server.Fsync is not null)
                throw new SpecException($"{At("id: " + server.Id)}: {DurableFsync}");
            if ((server.KeepsFiles || server.OnItsOwnHost) != server.VariantOf is not null)
                throw new SpecException($"{At("id: " + server.Id)}: a durable server or one on a host of its own, and only one, names in `variant_of` the server it is but for its files or its host");
            if (server.VariantOf is { } of && !file.Servers.Any(s => s.Id == of && s.Durable is null && s.RoundTripUs is null))
                throw new SpecException($"{At("variant_of: " + of)}: variant_of: \"{of}\" is not a server on loopback that keeps nothing");
            if (server.KeepsFiles && (file.DurableDirEnv.Length == 0 || file.DurableTmpfsEnv.Length == 0))
                throw new SpecException($"{At("id: " + server.Id)}: a durable server needs durable_dir_env and durable_tmpfs_env, the variables that place its files");
            server.PipelineWindow = file.PipelineWindowBytes ?? long.MaxValue;
        }
        foreach (var backend in file.Backends)
        {
            if (file.Families.All(f => f.Id != backend.Family))
                throw new SpecException($"{At("family: " + backend.Family)}: unknown family \"{backend.Family}\"");
            // Server backends are named <server name>_<mode>: the benches find them by that name.
            var server = backend.Server is { } id ? file.Servers.FirstOrDefault(s => s.Id == id) : null;
            if (backend.Server is { } unknown && server is null)
                throw new SpecException($"{At("server: " + unknown)}: unknown server \"{unknown}\"");
            if (backend.Family == "redis" && server is null)
                throw new SpecException($"{At("name: " + backend.Name)}: a redis-family backend names its server");
            if (backend.Family != "redis" && server is not null)
                throw new SpecException($"{At("server: " + server.Id)}: only redis-family backends run on a server");
            if (server is not null && !backend.Name.StartsWith(server.Name + "_", StringComparison.Ordinal))
                throw new SpecException($"{At("name: " + backend.Name)}: a {server.Name} backend's name starts with {server.Name}_");
            if (backend.Layout is { } layout && layout is not ("united" or "split"))
                throw new SpecException($"{At("layout: " + layout)}: unknown variant `{layout}`, expected `united` or `split`");
            if (backend.Layout is not null && server is not null)
                throw new SpecException($"{At("layout: " + backend.Layout)}: a backend on a server has no layout");
            if (backend.Layout is null && server is null)
                throw new SpecException($"{At("name: " + backend.Name)}: an in-process backend names its layout (united or split)");
        }

        Work MakeWork(string? range, List<string> requests, string suite)
        {
            var parsedRange = range is null ? null : Wrap(() => Interval.Parse(range, symbols), At(range));
            var templates = new List<Template>();
            foreach (var request in requests)
            {
                var words = request.Split(' ', StringSplitOptions.RemoveEmptyEntries);
                if (words.Length == 0) throw new SpecException($"{path}: an empty request");
                var args = words.Skip(1).Select(w => w == "*" ? null : Wrap(() => Expr.Parse(w, symbols), At(request))).ToList();
                if (parsedRange is null && args.Any(a => a?.UsesVariable == true))
                    throw new SpecException($"{At(request)}: \"{request}\": i is used, but the work has no `for` range");
                var probe = args.Select(a => a is null ? (ulong?)null : 1UL).ToArray();
                if (check(suite, words[0], probe) is { } why)
                    throw new SpecException($"{At(request)}: \"{request}\": {why}");
                templates.Add(new Template(words[0], args, request));
            }
            if (templates.Count == 0) throw new SpecException($"{path}: a `do` list is empty");
            return new Work(parsedRange, templates);
        }
        Expected MakeExpected(ExpectedDef e) => e.Times == 0
            ? throw new SpecException($"{At(e.Ids)}: times must be 1 or more")
            : new(Wrap(() => Interval.Parse(e.Ids, symbols), At(e.Ids)), e.Times ?? 1);

        var suites = new List<Suite>();
        foreach (var suite in file.Suites)
        {
            foreach (var backend in suite.Backends)
                if (file.Backends.All(b => b.Name != backend))
                    throw new SpecException($"{At(backend)}: unknown backend \"{backend}\"");
            var background = MakeWork(suite.Background.For, suite.Background.Do, suite.Id);
            var operations = suite.Operations.Select(op => new Operation(
                op.Id,
                op.Name,
                MakeWork(op.For, op.Do, suite.Id),
                MakeExpected(op.Expected),
                op.Undo is null ? null : MakeWork(op.Undo.For, op.Undo.Do, suite.Id))).ToList();
            suites.Add(new Suite(suite.Id, suite.Name.En, suite.Backends, background, MakeExpected(suite.Background.Expected), operations));
        }
        if (file.Load is { } load) CheckLoad(load, suites, symbols.Length, At, lines, path);
        return new Spec { Path = path, File = file, Suites = suites };
    }

    /// <summary>
    /// The load section, checked against the suites as the Rust side checks it (with its words):
    /// each operation is one suite's and does its work and its undo once per i of 1..=N, so that a
    /// client can run them one i at a time, in batches that never split an i's requests.
    /// </summary>
    static void CheckLoad(LoadDef load, List<Suite> suites, int sizeCount, Func<string, string> at, string[] lines, string path)
    {
        var line = Array.FindIndex(lines, l => l.StartsWith("load:", StringComparison.Ordinal));
        var section = line < 0 ? path : $"{path}:{line + 1}";
        var numbers = load.Clients.Concat(load.Depths).Concat(load.ClientDepths);
        if (load.Clients.Count == 0 || load.Depths.Count == 0 || load.ClientDepths.Count == 0 || numbers.Any(n => n <= 0) || load.Batch <= 0)
            throw new SpecException($"{section}: load: clients, depths, client_depths and batch are whole numbers above 0");
        if (!load.Clients.Contains(load.LatencyClients))
            throw new SpecException($"{section}: load: latency_clients must be one of clients");
        if (load.Seconds <= 0 || load.WarmUpSeconds < 0)
            throw new SpecException($"{section}: load: seconds must be above 0, warm_up_seconds at least 0");
        var ten = Enumerable.Repeat(10UL, sizeCount).ToArray();
        foreach (var op in load.Operations)
        {
            var where = at("id: " + op.Id);
            var operation = suites.SelectMany(s => s.Operations).FirstOrDefault(o => o.Id == op.Id)
                ?? throw new SpecException($"{where}: no suite has an operation \"{op.Id}\"");
            static bool PerI(Work work, ulong[] ten) =>
                work.Range is { } range && range.Values(ten).SequenceEqual(Enumerable.Range(1, 10).Select(i => (Int128)i));
            if (!PerI(operation.Work, ten) || (operation.Undo is { } undo && !PerI(undo, ten)))
                throw new SpecException($"{where}: {op.Id}: the load runs an operation one i at a time, so its work and undo must run `for: 1 to N`");
            var step = operation.Work.Requests.Count + (operation.Undo?.Requests.Count ?? 0);
            if (load.Depths.Concat(load.ClientDepths).Where(d => d > 1).Append(load.Batch).FirstOrDefault(d => d % step != 0) is var bad and > 0)
                throw new SpecException($"{where}: {op.Id}: a pipeline or batch of {bad} would split its {step} requests per i (work and undo)");
        }
    }

    static T Wrap<T>(Func<T> parse, string at, string hint = "")
    {
        try { return parse(); }
        catch (FormatException e) { throw new SpecException($"{at}: {e.Message}{hint}"); }
    }

    static void Duplicates(string what, IEnumerable<string> names, Func<string, string> at)
    {
        var seen = new HashSet<string>();
        foreach (var name in names)
            if (!seen.Add(name)) throw new SpecException($"{at("id: " + name)}: the {what} \"{name}\" is declared twice");
    }

    /// <summary>The sizes from the environment, checked against each size's bounds.</summary>
    public ulong[] SizesFrom(Func<string, string?> get)
    {
        var values = new List<ulong>();
        foreach (var size in File.Sizes)
        {
            var raw = get(size.Env);
            ulong value = size.Default;
            if (raw is not null && !ulong.TryParse(raw.Trim().Replace("_", ""), NumberStyles.None, CultureInfo.InvariantCulture, out value))
                throw new SpecException($"{size.Env}=\"{raw}\" is not a whole number from {size.Min} to {ulong.MaxValue} ({size.Description.En})");
            if (value < size.Min) throw new SpecException($"{size.Env}={value} is below its minimum {size.Min}");
            if (size.Max is { } max)
            {
                var limit = Expr.Parse(max, File.Sizes.Select(s => s.Symbol).Take(values.Count).ToArray()).Eval([.. values], null);
                if (value > limit)
                    throw new SpecException($"{size.Env}={value} is more than {max} = {limit} ({size.Description.En} {max} at most)");
            }
            values.Add(value);
        }
        return [.. values];
    }

    /// <summary>The servers to run: those the server variable names (comma-separated ids), or the defaults.</summary>
    public IReadOnlyList<ServerDef> ServersFrom(string? value) =>
        Pick(File.ServerEnv, value, File.Servers, s => s.Id, File.Servers.Where(s => s.Default).ToList());

    /// <summary>The clients each server backend is measured through: those the client variable names (comma-separated ids), or every one.</summary>
    public IReadOnlyList<ClientDef> ClientsFrom(string? value) =>
        Pick(File.ClientEnv, value, File.Clients, c => c.Id, File.Clients);

    /// <summary>The items a variable names (comma-separated ids, each once), or <paramref name="defaults"/> where it is unset or empty.</summary>
    static IReadOnlyList<T> Pick<T>(string variable, string? value, IReadOnlyList<T> all, Func<T, string> id, IReadOnlyList<T> defaults)
    {
        if (string.IsNullOrWhiteSpace(value)) return defaults;
        var chosen = new List<T>();
        foreach (var name in value.Split(',').Select(v => v.Trim()))
        {
            var item = all.FirstOrDefault(t => id(t) == name)
                ?? throw new SpecException($"{variable}=\"{value}\": \"{name}\" is not one of {string.Join(", ", all.Select(id))}");
            if (chosen.Any(t => id(t) == name)) throw new SpecException($"{variable}=\"{value}\" names {name} twice");
            chosen.Add(item);
        }
        return chosen;
    }

    /// <summary>Whether a run of <paramref name="families"/> on the servers <paramref name="servers"/> (ids) measures <paramref name="backend"/>.</summary>
    public bool Runs(string backend, IEnumerable<string> families, IEnumerable<string> servers)
    {
        var def = Backend(backend);
        return families.Contains(def.Family) && (def.Server is null || servers.Contains(def.Server));
    }

    /// <summary>The families to run: those the family variable names (comma-separated), else those run by default.</summary>
    public IReadOnlyList<FamilyDef> FamiliesFrom(string? value) =>
        Pick(File.FamilyEnv, value, File.Families, f => f.EnvValue, File.Families.Where(f => f.Default).ToList());
}
