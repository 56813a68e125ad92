using System.Globalization;
using System.Runtime.InteropServices;

namespace RedisVSDoublets;

/// <summary>
/// One run of the bench: the spec and the run's choices from the Rust side, the servers started
/// and checked, then every selected cell through the check, measure and verify sequence, its line
/// printed and, with BENCHMARK_RESULTS, written with the run's conditions.
/// </summary>
internal sealed class Bench(Options options)
{
    readonly string root = Spec.FindRoot(Directory.GetCurrentDirectory());
    readonly List<string> lines = [];
    Spec spec = null!;
    ulong[] sizes = [];
    IReadOnlyList<FamilyDef> families = [];
    /// <summary>The clients each server backend is measured through (the client variable's choice).</summary>
    IReadOnlyList<ClientDef> clients = [];
    List<RedisServer> servers = [];
    /// <summary>Where durable stores keep their files, when a durable family runs.</summary>
    DurableFolder? folder;
    /// <summary>What the round's cells and loads cost, from the Rust side.</summary>
    Estimate estimate = null!;
    uint round = 1;
    string fingerprint = "";
    Progress progress = null!;

    public int Run()
    {
        Provenance.Begin();
        // Everything is checked before the first cell, so that a run that cannot finish costs seconds.
        // The Rust side reads and checks the spec and the variables, and builds every suite's requests.
        spec = Spec.Load(root, Environment.GetEnvironmentVariable);
        clients = spec.Clients;
        if (options.List)
        {
            // The cells this run would measure: the chosen families, servers and clients, as the Rust bench lists its own.
            var (chosen, on) = (spec.Families.Select(f => f.Id).ToList(), spec.Servers.Select(s => s.Id).ToList());
            foreach (var suite in spec.Suites)
                foreach (var (cell, _, _) in Cells(suite).Where(c => spec.Runs(c.Backend, chosen, on)))
                    foreach (var op in suite.Operations.Where(op => options.Keeps($"{op.Id}/{cell}")))
                        Console.WriteLine($"{op.Id}/{cell}: benchmark");
            return 0;
        }
        if (options.Load is { } b) return RunLoad(b);
        RefuseDebug();
        (sizes, families) = (spec.Sizes, spec.Families);
        round = Preflight.Round(Environment.GetEnvironmentVariable);
        fingerprint = Provenance.Fingerprint(root);
        Console.Error.WriteLine($"sizes {string.Join(", ", spec.File.Sizes.Zip(sizes, (s, v) => $"{s.Symbol}={v}"))}; families {string.Join(", ", families.Select(f => f.Id))}; suites {string.Join(", ", spec.Suites.Select(s => s.Id))}");
        var results = Preflight.ResultsPath(Environment.GetEnvironmentVariable("BENCHMARK_RESULTS"));
        if (results is not null && options.Test)
            throw new ArgumentException($"BENCHMARK_RESULTS={results}: --test measures nothing, so it writes no result file");
        using var durable = folder = MakeFolder();
        using var stop = StartServers();
        using var estimated = estimate = new Estimate(root, sizes);
        var plan = Plan();
        Console.Error.WriteLine(options.Test
            ? $"{plan.Cells} cells to check once each (--test: nothing is measured)"
            : $"fingerprint {fingerprint}; round {round}: {plan.Cells} cells to measure, about {plan.Describe()}");
        progress = new Progress(plan);
        if (!options.Test) Provenance.Calibrate(end: false, servers.FirstOrDefault());

        foreach (var suite in spec.Suites)
        {
            Suites.Visit(spec, suite, new SuiteCells(this));
        }
        if (!options.Test)
        {
            Provenance.Calibrate(end: true, servers.FirstOrDefault());
            progress.Finish(round);
        }
        if (results is not null) WriteResults(results);
        return 0;
    }

    /// <summary>A Debug build's times are not the optimised code's: it only checks cells (--test). Refused after the run's own refusals, so that a test of those can run the Debug build.</summary>
    void RefuseDebug()
    {
#if DEBUG
        if (!options.Test)
            throw new InvalidOperationException("this is a Debug build, whose times would not be the optimised code's: run with -c Release (or pass --test to check the cells only)");
#endif
    }

    /// <summary>`--load B`: the spec's load section at background B (N = B, so that an operation's work and undo cover every i of the background).</summary>
    int RunLoad(string b)
    {
        var load = spec.File.Load ?? throw new SpecException($"{spec.Path}: the spec has no load section");
        string? Get(string name) => spec.File.Sizes.Any(s => s.Env == name) ? b : Environment.GetEnvironmentVariable(name);
        // As the Rust load run refuses it: a load run measures every suite.
        if (Environment.GetEnvironmentVariable(spec.File.SuiteEnv) is { } some && !string.IsNullOrWhiteSpace(some))
            throw new SpecException($"{spec.File.SuiteEnv}=\"{some}\" picks the bench's suites; load and memory runs measure every suite: unset it");
        RefuseDebug();
        spec = Spec.Load(root, Get);
        (sizes, families) = (spec.Sizes, spec.Families);
        fingerprint = Provenance.Fingerprint(root);
        // Which of the plan's runs this is (publish.load_runs), for the report to tell them apart.
        round = Preflight.Round(Environment.GetEnvironmentVariable);
        var results = Preflight.ResultsPath(Environment.GetEnvironmentVariable("BENCHMARK_RESULTS"));
        if (results is not null && options.Filter is not null)
            throw new ArgumentException($"BENCHMARK_RESULTS={results}: a filtered run is not a result file (the report needs every cell)");
        if (results is not null && clients.Count < spec.File.Clients.Count)
            throw new ArgumentException($"BENCHMARK_RESULTS={results}: a load run of some clients ({spec.File.ClientEnv}) is not a result file (the report needs every cell)");
        foreach (var suite in spec.Suites)
        {
            Suites.Visit(spec, suite, new LoadShares(spec, load, sizes));
        }
        using var stop = StartServers();
        var clock = LoadCell.ClockCost();
        Console.Error.WriteLine($"reading the clock costs {clock:F1} ns");
        using var estimated = new Estimate(root, sizes);
        var figures = new LoadBench(spec, load, sizes, families, servers, clients, options).Run(estimated);
        if (results is null) return 0;
        // Written whole at the end: a failed or interrupted run leaves no partial file.
        File.WriteAllText(results, LoadBench.Json(sizes[0], ProvenanceOfRun(), clock, figures));
        Console.Error.WriteLine($"wrote the figures to {results}");
        return 0;
    }

    /// <summary>The run's servers (when it runs the redis family), started and checked before any work; disposing the result stops them.</summary>
    Disposer StartServers()
    {
        var allowFlush = Environment.GetEnvironmentVariable("BENCHMARK_ALLOW_FLUSH") == "1";
        servers = families.Any(f => f.Id == "redis") ? RedisServer.FromEnvironment(spec, root, Environment.GetEnvironmentVariable, folder) : [];
        var stop = new Disposer(servers);
        try
        {
            foreach (var server in servers)
            {
                server.Preflight(allowFlush);
                Console.Error.WriteLine($"{server.Describe()} at {server.Shown} ({server.DescribeScripting()})");
                if (server.NetworkLine is { } network) Console.Error.WriteLine($"over a network: {network}");
                if (server.SplitRefused is { } words)
                    Console.Error.WriteLine($"{server.Describe()}: where its time goes is not reported, since it refused INFO cpu commandstats: {words}");
            }
        }
        catch
        {
            stop.Dispose();
            throw;
        }
        return stop;
    }

    /// <summary>The run's folder for durable stores, made before any work when a durable family or a durable disposable server runs (else null).</summary>
    DurableFolder? MakeFolder()
    {
        var servers = families.Any(f => f.Id == "redis") && string.IsNullOrWhiteSpace(Environment.GetEnvironmentVariable("REDIS_URL"))
            ? spec.Servers : [];
        if (!families.Any(f => f.Durable is not null) && !servers.Any(s => s.KeepsFiles)) return null;
        var made = new DurableFolder(root, spec, families.Select(f => f.Id), sizes, Environment.GetEnvironmentVariable);
        Console.Error.WriteLine($"durable stores keep their files in {made.Describe}");
        return made;
    }

    /// <summary>The run's folder for the store of <paramref name="backend"/> where its family is durable, else null (a store on the heap).</summary>
    DurableFolder? FolderFor(string backend) =>
        spec.Family(spec.Backend(backend).Family).Durable is null ? null
            : folder ?? throw new InvalidOperationException("a durable family runs, so the run made a folder for its files");


    /// <summary>
    /// What the round costs, as the Rust side's Spec::schedule sums it: the cells it will measure
    /// (those the filter keeps), one load per suite and store (a server's clients and modes share
    /// one), each counted by the Rust side.
    /// </summary>
    Schedule Plan()
    {
        var plan = new Schedule();
        foreach (var suite in spec.Suites)
        {
            var cells = (from cell in Cells(suite)
                         where Runs(cell.Backend)
                         from op in suite.Operations
                         where options.Keeps($"{op.Id}/{cell.Name}")
                         select (cell, op)).ToList();
            foreach (var (cell, op) in cells) plan = plan.Plus(CellSeconds(suite, op, cell.Backend, cell.Client));
            plan = plan with { Loads = plan.Loads + cells.DistinctBy(c => StoreOf(c.cell.Backend)).Sum(c => LoadSeconds(suite, c.cell.Backend)) };
        }
        return plan;
    }

    /// <summary>One cell's cost, as the Rust side counts it (<see cref="RedisVSDoublets.Estimate"/>).</summary>
    Schedule CellSeconds(Suite suite, Operation op, string backend, string? client) => estimate.Cell(suite.Id, op.Id, backend, client);

    /// <summary>One load's cost, as the Rust side counts it.</summary>
    double LoadSeconds(Suite suite, string backend) => estimate.Load(suite.Id, backend);

    /// <summary>The store a backend runs on: its server, else its family (one load serves a server's clients and modes).</summary>
    string StoreOf(string backend) => spec.Backend(backend).Server ?? spec.Backend(backend).Family;

    /// <summary>
    /// The suite's cells by backend: a Doublets backend once, a server backend once per client
    /// (named as <see cref="ClientDef.Backend"/> says), with the backend each stands for and the
    /// client it runs through.
    /// </summary>
    IEnumerable<(string Name, string Backend, string? Client)> Cells(Suite suite) =>
        from backend in suite.Backends
        from client in spec.Backend(backend).Server is null ? [null] : clients.Cast<ClientDef?>()
        where client?.Refuses(suite.Id, spec.Backend(backend).Server!, ModeOf(backend)) is null
        select (client?.Backend(backend) ?? backend, backend, client?.Id);

    /// <summary>A server backend's mode: the part of its name after the server's (Redis_Pipeline).</summary>
    static Mode ModeOf(string backend) => Enum.Parse<Mode>(backend[(backend.IndexOf('_') + 1)..]);

    bool Runs(string backend) => spec.Runs(backend, families.Select(f => f.Id), servers.Select(s => s.Kind.Id));

    /// <summary>Whether any operation of <paramref name="suite"/> runs as the cell backend <paramref name="name"/>.</summary>
    bool Selected(Suite suite, string name, string backend) =>
        suite.Backends.Contains(backend) && Runs(backend) && suite.Operations.Any(op => options.Keeps($"{op.Id}/{name}"));

    /// <summary>A suite's cells: on its doublets stores, if doublets runs it, and on each server.</summary>
    sealed class SuiteCells(Bench bench) : ISuiteWork
    {
        void ISuiteWork.Servers<TRequest, TFound, TModel, TCodec>(Suite suite) =>
            bench.RunSuite<TRequest, TFound, TModel, TCodec>(suite, new TModel(), doublets: null);

        void ISuiteWork.Doublets<TRequest, TFound, TModel, TCodec>(Suite suite, Func<Layout, DurableFolder?, string, IStore<TRequest, TFound>> doublets) =>
            bench.RunSuite<TRequest, TFound, TModel, TCodec>(suite, new TModel(), (layout, name) => doublets(layout, bench.FolderFor(name), name));
    }

    /// <summary>Before any load work: every client of every load operation gets its share (the
    /// spec refuses a load operation of a suite doublets does not run).</summary>
    sealed class LoadShares(Spec spec, LoadDef load, ulong[] sizes) : ISuiteWork
    {
        void ISuiteWork.Servers<TRequest, TFound, TModel, TCodec>(Suite suite) { }

        void ISuiteWork.Doublets<TRequest, TFound, TModel, TCodec>(Suite suite, Func<Layout, DurableFolder?, string, IStore<TRequest, TFound>> doublets) =>
            LoadBench.CheckShares<TRequest, TFound, TModel>(spec, load, suite, sizes);
    }

    /// <summary>
    /// A suite on its doublets stores, in the spec's order (unless <paramref name="doublets"/> is
    /// null: the suite runs on servers only), and on each server through each client in each mode.
    /// <paramref name="doublets"/> makes the store of a layout for a backend: on the heap, or on
    /// files where its family is durable.
    /// </summary>
    void RunSuite<TRequest, TFound, TModel, TCodec>(Suite suite, TModel model, Func<Layout, string, IStore<TRequest, TFound>>? doublets)
        where TRequest : IRequest<TRequest, TFound>
        where TFound : IComparable<TFound>
        where TModel : IModel<TRequest, TFound>
        where TCodec : struct, IRedisCodec<TRequest, TFound>
    {
        var (background, prepared) = Checks.Plan<TRequest, TFound>(suite, sizes);
        var ignore = new TallySink<TRequest, TFound>();
        model.Run(background, ref ignore);
        var expected = suite.BackgroundExpected.Tally(sizes);
        var reaches = prepared.Max(p => p.Reaches);
        var done = new List<string>();

        void Measure(IStore<TRequest, TFound> store, Background<TRequest, TFound, TModel> loaded, string name, string backend, string? client = null)
        {
            var sampling = spec.Family(spec.Backend(backend).Family).Sampling;
            foreach (var p in prepared)
            {
                var cell = $"{p.Operation.Id}/{name}";
                if (!options.Keeps(cell)) continue;
                progress.Note($"{suite.Name.En}: {cell}…");
                if (options.Test)
                {
                    Checks.Cell(p, store, loaded, cell, () => p.Measure(store, cell));
                    Console.Error.WriteLine($"Testing {cell}: Success");
                    continue;
                }
                var (median, sd) = (0.0, 0.0);
                var took = Checks.Cell(p, store, loaded, cell, () =>
                {
                    // The previous cell's garbage is collected here, not while this one is sampled.
                    GC.Collect();
                    GC.WaitForPendingFinalizers();
                    GC.Collect();
                    (median, sd) = Sampler.Measure(sampling, iterations =>
                    {
                        long ticks = 0;
                        for (long k = 0; k < iterations; k++) ticks += p.Measure(store, cell);
                        return ticks;
                    });
                });
                progress.Cell(cell, took, CellSeconds(suite, p.Operation, backend, client).Seconds);
                var line = Sampler.BencherLine(cell, median, sd);
                lines.Add(line);
                Console.WriteLine(line);
                if (took.Split is { } split)
                {
                    lines.Add(split);
                    Console.WriteLine(split);
                }
            }
            done.Add(backend);
        }

        // backend: any of the store's backends, which the spec's load estimate names it by.
        Background<TRequest, TFound, TModel> Load(IStore<TRequest, TFound> store, string name, string backend)
        {
            var started = System.Diagnostics.Stopwatch.StartNew();
            var (loaded, took) = Background<TRequest, TFound, TModel>.Load(store, model, background, expected, reaches, name);
            loaded.Split = spec.File.Split;
            var after = (loaded.Changes, loaded.Digest) switch
            {
                (not null, not null) => "its count of changes after a read-only cell, else its digest",
                (null, not null) => "its digest",
                _ => "read back whole",
            };
            progress.Loaded(string.Create(CultureInfo.InvariantCulture,
                $"{suite.Name.En}: loaded {background.Length} requests into {name} in {took.TotalSeconds:F1} s, checked in {(started.Elapsed - took).TotalSeconds:F1} s (it holds {loaded.Census}; after each cell: {after})"),
                LoadSeconds(suite, backend));
            return loaded;
        }

        // Even rounds measure the backends in reverse order, so that drift favours none of them.
        var reversed = round % 2 == 0;
        void Doublets()
        {
            var stores = suite.Backends.Where(b => spec.Backend(b).Layout is not null).ToList();
            foreach (var backend in reversed ? Enumerable.Reverse(stores) : stores)
            {
                if (doublets is null || !Selected(suite, backend, backend)) continue;
                var store = doublets(spec.Backend(backend).Layout == "united" ? Layout.United : Layout.Split, backend);
                try
                {
                    Measure(store, Load(store, backend, backend), backend, backend);
                }
                finally { (store as IDisposable)?.Dispose(); }
            }
        }

        void Server(RedisServer server)
        {
            var cells = (from client in clients
                         from mode in Modes.All
                         let backend = server.Backend(mode)
                         let name = client.Backend(backend)
                         where Selected(suite, name, backend)
                         select (client, mode, name, backend)).ToList();
            foreach (var (client, mode, name, _) in cells.Where(c => c.client.Refuses(suite.Id, server.Kind.Id, c.mode) is not null))
                progress.Note($"{suite.Name.En}: {name} is not run: {client.Refuses(suite.Id, server.Kind.Id, mode)!.En}");
            cells.RemoveAll(c => c.client.Refuses(suite.Id, server.Kind.Id, c.mode) is not null);
            if (reversed) cells.Reverse();
            if (cells.Count == 0) return;
            // One load serves every client and mode: every iteration is undone and the checks
            // prove it. The suite's keys are removed afterwards, whatever happened.
            var allowFlush = Environment.GetEnvironmentVariable("BENCHMARK_ALLOW_FLUSH") == "1";
            try
            {
                var checks = new StackExchangeClient(server.Claim(TCodec.Keys, allowFlush));
                var loaded = Load(new RedisStore<TRequest, TFound, TCodec>(checks, server), server.Kind.Name, cells[0].backend);
                foreach (var group in cells.GroupBy(c => c.client))
                {
                    using var client = Clients.Open(group.Key.Id, server);
                    var redis = new RedisStore<TRequest, TFound, TCodec>(client, server, checks);
                    foreach (var (_, mode, name, backend) in group)
                    {
                        redis.Mode = mode;
                        Measure(redis, loaded, name, backend, group.Key.Id);
                    }
                }
            }
            finally { server.Release(); }
        }

        if (!reversed) Doublets();
        foreach (var server in reversed ? Enumerable.Reverse(servers) : servers) Server(server);
        if (reversed) Doublets();
        foreach (var backend in suite.Backends)
            if (Selected(suite, backend, backend) && !done.Contains(backend))
                throw new SpecException($"{spec.Path}: suite {suite.Id} lists backend {backend}, which no store implements");
    }

    void WriteResults(string path)
    {
        var text = string.Concat(ProvenanceOfRun().Select(p => $"# {p.Item1}: {p.Item2}\n")) + string.Concat(lines.Select(l => l + "\n"));
        // Written whole at the end: a failed or interrupted run leaves no partial file.
        File.WriteAllText(path, text);
        Console.Error.WriteLine($"wrote {lines.Count} checked cells to {path}");
    }

    /// <summary>What a result file records of the run: language, toolchain, clients, sizes, servers, fingerprint and the machine.</summary>
    List<(string, string)> ProvenanceOfRun()
    {
        var provenance = new List<(string, string)>
        {
            ("language", "csharp"),
            ("toolchain", $".NET SDK {Command("dotnet", "--version") ?? "unknown"}"),
            ("runtime", RuntimeInformation.FrameworkDescription),
            ("client", string.Join("; ", ClientNames())),
            ("doublets", "doublets 0.18.0 (Rust core via P/Invoke)"),
        };
        provenance.AddRange(spec.File.Sizes.Zip(sizes, (s, v) => (s.Key, v.ToString(CultureInfo.InvariantCulture))));
        provenance.Add(("families", string.Join(",", families.Select(f => f.Id))));
        provenance.Add(("suites", string.Join(",", spec.Suites.Select(s => s.Id))));
        if (folder is not null) provenance.Add(("durable", folder.Describe));
        provenance.Add(("round", round.ToString(CultureInfo.InvariantCulture)));
        provenance.Add(("fingerprint", fingerprint));
        if (servers.Count > 0)
        {
            provenance.Add(("servers", string.Join(",", servers.Select(s => s.Kind.Id))));
            provenance.Add(("clients", string.Join(",", clients.Select(c => c.Id))));
            provenance.Add(("redis", string.Join("; ", servers.Select(s => $"{s.Describe()} ({s.DescribeScripting()})"))));
            if (servers.Where(s => s.SplitRefused is not null).Select(s => $"{s.Kind.Name}: {s.SplitRefused}").ToList() is { Count: > 0 } unsplit)
                provenance.Add(("unsplit", string.Join("; ", unsplit)));
            if (servers.Where(s => s.NetworkLine is not null).Select(s => s.NetworkLine!).ToList() is { Count: > 0 } networks)
                provenance.Add(("network", string.Join("; ", networks)));
        }
        provenance.AddRange(Provenance.Common(root));
        return provenance;
    }

    /// <summary>Each client's package and version, the default first.</summary>
    /// <summary>The clients the run used: the default one, which loads and checks every server, and
    /// those it measured (the rest are not part of it).</summary>
    IEnumerable<string> ClientNames() => spec.File.Clients
        .Where(c => c.Suffix is null || clients.Any(used => used.Id == c.Id))
        .Select(c => Clients.Describe(c.Id));

    public static string? Command(string file, params string[] args) => CommandIn(null, file, args);

    /// <summary>What the command prints, run in <paramref name="directory"/>; null if it fails or is not installed.</summary>
    public static string? CommandIn(string? directory, string file, params string[] args)
    {
        try
        {
            using var process = System.Diagnostics.Process.Start(new System.Diagnostics.ProcessStartInfo(file, args)
            { RedirectStandardOutput = true, RedirectStandardError = true, UseShellExecute = false, WorkingDirectory = directory ?? "" })!;
            var output = process.StandardOutput.ReadToEnd().Trim();
            process.WaitForExit();
            return process.ExitCode == 0 ? output : null;
        }
        catch (System.ComponentModel.Win32Exception) { return null; }
    }
}

/// <summary>Disposes the run's servers however the run ends.</summary>
sealed class Disposer(IEnumerable<IDisposable> items) : IDisposable
{
    public void Dispose()
    {
        foreach (var item in items) item.Dispose();
    }
}
