using System.Globalization;
using System.Text.Json;

namespace RedisVSDoublets;

/// <summary>
/// `--load B`: throughput and latency of K concurrent users for every store of each suite (the
/// spec's <c>load</c> section), as the Rust side's `--bin load` measures them: both doublets stores
/// shared by K threads, and every server through each client in its own concurrent way
/// (<see cref="Clients.Concurrent"/>) at the spec's client depths (1: one request per round trip).
/// With BENCHMARK_RESULTS=FILE the figures are written there, as the Rust side's JSON with
/// <c>language: csharp</c>, for the report.
/// </summary>
internal sealed class LoadBench(Spec spec, LoadDef load, ulong[] sizes, IReadOnlyList<FamilyDef> families, IReadOnlyList<RedisServer> servers, IReadOnlyList<ClientDef> clients, Options options)
{
    readonly Timing timing = Timing.Of(load);
    readonly List<Figure> figures = [];
    int done, cells;

    /// <summary>Whether the cell <c>suite/operation/backend</c> is kept by the filter.</summary>
    bool Keeps(string suite, string op, string backend) => options.Keeps($"{suite}/{op}/{backend}");

    IEnumerable<LoadOperationDef> Operations(Suite suite) => load.Operations.Where(op => suite.Operations.Any(o => o.Id == op.Id));

    static Mode ModeOf(int depth) => depth == 1 ? Mode.NonTransaction : Mode.Pipeline;

    /// <summary>The cells of a suite by store: (backend, the spec's backend it runs through a client, the client for a server or null, the requests per timed batch).</summary>
    IEnumerable<(string Backend, string Spec, ClientDef? Client, int Unit)> Stores(Suite suite, bool doublets)
    {
        if (doublets && families.Any(f => f.Id == "doublets"))
            // The doublets family's in-memory stores, as the Rust load runs them (not their durable variants).
            foreach (var backend in suite.Backends.Where(b => spec.Backend(b).Family == "doublets"))
                yield return (backend, backend, null, load.Batch);
        foreach (var server in servers)
            foreach (var client in clients)
                foreach (var depth in load.ClientDepths)
                    if (client.Refuses(suite.Id, server.Kind.Id, ModeOf(depth)) is null)
                        yield return (client.Backend(server.Backend(ModeOf(depth))), server.Backend(ModeOf(depth)), client, depth);
    }

    /// <summary>The seconds of loading each chosen store once and of the check after each of its
    /// cells, from the spec's per-store costs as the Rust side counts them for the bench.</summary>
    (double Loads, double Checks) Overheads(Estimate estimate)
    {
        double loads = 0, checks = 0;
        foreach (var suite in spec.Suites)
        {
            var loaded = new HashSet<string>();
            foreach (var (backend, specBackend, _, _) in Stores(suite, doublets: true))
                foreach (var op in Operations(suite).Where(op => Keeps(suite.Id, op.Id, backend)))
                {
                    // A doublets store per backend; a server once for all its cells.
                    if (loaded.Add(spec.Backend(specBackend).Server ?? specBackend))
                        loads += estimate.Load(suite.Id, specBackend);
                    checks += load.Clients.Count * estimate.Cell(suite.Id, op.Id, specBackend, null).Checks;
                }
        }
        return (loads, checks);
    }

    /// <summary>Before any work: at the largest K, every load operation gives each user at least one batch of every size a store uses, and the model accepts every request.</summary>
    public static void CheckShares<TRequest, TFound, TModel>(Spec spec, LoadDef load, Suite suite, ulong[] sizes)
        where TRequest : IRequest<TRequest, TFound>
        where TFound : IComparable<TFound>
        where TModel : IModel<TRequest, TFound>, new()
    {
        var model = Loaded<TRequest, TFound, TModel>(suite, sizes);
        foreach (var op in load.Operations.Select(o => suite.Operations.FirstOrDefault(s => s.Id == o.Id)).OfType<Operation>())
            foreach (var unit in load.ClientDepths.Append(load.Batch).Distinct())
                LoadCell.Plans<TRequest, TFound, TModel>(op, sizes, model, load.Clients.Max(), unit);
    }

    static TModel Loaded<TRequest, TFound, TModel>(Suite suite, ulong[] sizes)
        where TRequest : IRequest<TRequest, TFound>
        where TFound : IComparable<TFound>
        where TModel : IModel<TRequest, TFound>, new()
    {
        var model = new TModel();
        var ignore = new TallySink<TRequest, TFound>();
        model.Run(Checks.Plan<TRequest, TFound>(suite, sizes).Background, ref ignore);
        return model;
    }

    public List<Figure> Run(Estimate estimated)
    {
        cells = spec.Suites
            .Sum(suite => Stores(suite, doublets: true).Sum(store => Operations(suite).Count(op => Keeps(suite.Id, op.Id, store.Backend))) * load.Clients.Count);
        var measuring = cells * (load.WarmUpSeconds + load.Seconds);
        var (loads, checks) = Overheads(estimated);
        var estimate = (measuring + loads + checks) / 60;
        Console.Error.WriteLine(string.Create(CultureInfo.InvariantCulture,
            $"B = {sizes[0]}: {cells} cells of {string.Join(", ", load.Clients)} clients: about {estimate:F1} min ({measuring / 60:F1} measuring, {loads / 60:F1} loading, {checks / 60:F1} checking)"));
        var started = System.Diagnostics.Stopwatch.StartNew();
        foreach (var suite in spec.Suites)
        {
            Suites.Visit(spec, suite, new SuiteCells(this));
        }
        var took = started.Elapsed.TotalMinutes;
        Console.Error.WriteLine($"measured {done} cells in {took:F1} min against the estimate's {estimate:F1} min ({took / Math.Max(estimate, 1e-9):F2}×)");
        return figures;
    }

    /// <summary>A suite's load cells, beside doublets' shared store (the spec refuses a load
    /// operation of a suite doublets does not run).</summary>
    sealed class SuiteCells(LoadBench bench) : ISuiteWork
    {
        void ISuiteWork.Servers<TRequest, TFound, TModel, TCodec>(Suite suite) { }

        void ISuiteWork.Doublets<TRequest, TFound, TModel, TCodec>(Suite suite, Func<Layout, DurableFolder?, string, IStore<TRequest, TFound>> doublets) =>
            bench.RunSuite<TRequest, TFound, TModel, TCodec>(suite, layout => doublets(layout, null, ""));
    }

    void RunSuite<TRequest, TFound, TModel, TCodec>(Suite suite, Func<Layout, IStore<TRequest, TFound>> doublets)
        where TRequest : IRequest<TRequest, TFound>
        where TFound : IComparable<TFound>
        where TModel : IModel<TRequest, TFound>, new()
        where TCodec : struct, IRedisCodec<TRequest, TFound>
    {
        var (background, prepared) = Checks.Plan<TRequest, TFound>(suite, sizes);
        var expected = suite.BackgroundExpected.Tally(sizes);
        var reaches = prepared.Where(p => load.Operations.Any(o => o.Id == p.Operation.Id)).Select(p => p.Reaches).DefaultIfEmpty(0UL).Max();
        bool Chosen(string backend) => Operations(suite).Any(op => Keeps(suite.Id, op.Id, backend));

        Background<TRequest, TFound, TModel> Load(IStore<TRequest, TFound> store, string name)
        {
            var model = Loaded<TRequest, TFound, TModel>(suite, sizes);
            var (loaded, took) = Background<TRequest, TFound, TModel>.Load(store, model, background, expected, reaches, name);
            Console.Error.WriteLine($"{suite.Name.En}: {name} loaded and checked in {took.TotalSeconds:F1} s");
            return loaded;
        }

        foreach (var (backend, _, client, _) in Stores(suite, doublets: true))
        {
            if (client is not null || !Chosen(backend)) continue;
            var store = doublets(spec.Backend(backend).Layout == "united" ? Layout.United : Layout.Split);
            try
            {
                var loaded = Load(store, backend);
                using var gate = new ReaderWriterLockSlim();
                Cells(suite, backend, load.Batch, store, loaded, _ => new SharedStore<TRequest, TFound>(store, gate), tasks: false);
            }
            finally { (store as IDisposable)?.Dispose(); }
        }

        var allowFlush = Environment.GetEnvironmentVariable("BENCHMARK_ALLOW_FLUSH") == "1";
        foreach (var server in servers)
        {
            var chosen = Stores(suite, doublets: false).Where(s => s.Client is not null && s.Backend.StartsWith($"{server.Kind.Name}_", StringComparison.Ordinal) && Chosen(s.Backend)).ToList();
            if (chosen.Count == 0) continue;
            try
            {
                var checks = new StackExchangeClient(server.Claim(TCodec.Keys, allowFlush));
                var main = new RedisStore<TRequest, TFound, TCodec>(checks, server);
                var loaded = Load(main, server.Describe());
                foreach (var group in chosen.GroupBy(s => s.Client!))
                {
                    using var concurrent = new Clients.Concurrent(group.Key.Id, server);
                    foreach (var (backend, _, _, depth) in group)
                        Cells(suite, backend, depth, main, loaded,
                            c => new RedisStore<TRequest, TFound, TCodec>(concurrent.For(c), server, checks) { Mode = ModeOf(depth) },
                            concurrent.Tasks);
                }
                loaded.Verify(main, server.Describe());
            }
            finally { server.Release(); }
        }
    }

    /// <summary>Every chosen cell of one store: each load operation at each K, with <paramref name="unit"/> requests per timed batch.</summary>
    void Cells<TRequest, TFound, TModel, TStore, TClient>(Suite suite, string backend, int unit, TStore main, Background<TRequest, TFound, TModel> background, Func<int, TClient> client, bool tasks)
        where TRequest : IRequest<TRequest, TFound>
        where TFound : IComparable<TFound>
        where TModel : IModel<TRequest, TFound>
        where TStore : IStore<TRequest, TFound>
        where TClient : ILoadClient<TRequest, TFound>
    {
        foreach (var op in Operations(suite))
        {
            if (!Keeps(suite.Id, op.Id, backend)) continue;
            var operation = suite.Operations.First(o => o.Id == op.Id);
            foreach (var k in load.Clients)
            {
                var plans = LoadCell.Plans<TRequest, TFound, TModel>(operation, sizes, background.Model, k, unit);
                var users = Enumerable.Range(0, k).Select(client).ToList();
                var cell = $"{suite.Id}/{op.Id}/{backend} K={k}";
                // The previous cell's garbage is collected here, not while this one runs.
                GC.Collect();
                GC.WaitForPendingFinalizers();
                var (requests, perSecond, latency) = LoadCell.Measure(main, background, users, tasks, plans, timing, cell);
                done++;
                Console.Error.WriteLine($"[{done}/{cells}] {cell}: {PerSecond(perSecond)} req/s, p50 {Duration(latency.P50)} p99 {Duration(latency.P99)} max {Duration(latency.Max)} (per {unit})");
                figures.Add(new(suite.Id, op.Id, backend, k, unit, requests, perSecond, latency));
            }
        }
    }

    /// <summary>Requests per second as the Rust side prints them: "1.23M", "456k", "789".</summary>
    public static string PerSecond(double x) => x switch
    {
        >= 1e6 => string.Create(CultureInfo.InvariantCulture, $"{x / 1e6:F2}M"),
        >= 1e4 => string.Create(CultureInfo.InvariantCulture, $"{x / 1e3:F0}k"),
        >= 1e3 => string.Create(CultureInfo.InvariantCulture, $"{x / 1e3:F1}k"),
        _ => string.Create(CultureInfo.InvariantCulture, $"{x:F0}"),
    };

    /// <summary>A latency in nanoseconds as the Rust side prints it: "850 ns", "12.3 µs", "1.20 ms".</summary>
    public static string Duration(long ns) => ns switch
    {
        >= 1_000_000 => string.Create(CultureInfo.InvariantCulture, $"{ns / 1e6:F2} ms"),
        >= 10_000 => string.Create(CultureInfo.InvariantCulture, $"{ns / 1e3:F0} µs"),
        >= 1_000 => string.Create(CultureInfo.InvariantCulture, $"{ns / 1e3:F1} µs"),
        _ => $"{ns} ns",
    };

    /// <summary>The run as its result file holds it, the Rust side's LoadRun: no redis-benchmark rows (those stand beside the Rust figures).</summary>
    public static string Json(ulong background, IEnumerable<(string, string)> provenance, double clockNs, List<Figure> figures) =>
        JsonSerializer.Serialize(new
        {
            background,
            provenance = new SortedDictionary<string, string>(provenance.ToDictionary(p => p.Item1, p => p.Item2), StringComparer.Ordinal),
            clock_ns = clockNs,
            figures,
            redis_benchmark = Array.Empty<object>(),
        }, new JsonSerializerOptions { PropertyNamingPolicy = JsonNamingPolicy.SnakeCaseLower, WriteIndented = true, Encoder = System.Text.Encodings.Web.JavaScriptEncoder.UnsafeRelaxedJsonEscaping }) + "\n";
}
