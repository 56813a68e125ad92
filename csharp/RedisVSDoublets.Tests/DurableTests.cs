namespace RedisVSDoublets.Tests;

/// <summary>
/// Durable stores (doublets on files, through the C ABI), as on the Rust side
/// (rust/tests/durable.rs): every operation of both suites passes every check with the store
/// closed and opened again from its files after each cell; files that lost a write fail the cell;
/// the run's folder is refused on tmpfs, and nothing is left behind.
/// </summary>
public class DurableTests
{
    static readonly ulong[] Sizes = [10, 5];

    /// <summary>A run folder in target/, which lies on the disk the build uses (the system's temporary folder may be tmpfs).</summary>
    static DurableFolder Folder(Spec spec, string? dir = null, string? tmpfs = null, string? stop = null)
    {
        var target = Path.Combine(RedisFixture.Root, "target");
        Directory.CreateDirectory(target);
        return new DurableFolder(RedisFixture.Root, spec, ["doublets-file"], Sizes,
            v => v == spec.File.DurableDirEnv ? dir ?? target : v == spec.File.DurableTmpfsEnv ? tmpfs : v == spec.File.DurableStopEnv ? stop : null);
    }

    /// <summary>Every operation of <paramref name="suite"/> on the store as the bench runs it: each cell must end with a restart and the check after it.</summary>
    static void EveryCell<TRequest, TFound, TModel>(IStore<TRequest, TFound> store, TModel model, string suite, string name)
        where TRequest : IRequest<TRequest, TFound>
        where TFound : IComparable<TFound>
        where TModel : IModel<TRequest, TFound>
    {
        var def = Stores.Spec().Suites.Single(s => s.Id == suite);
        var background = Stores.Load(store, model, def, Sizes, 20, name);
        foreach (var operation in def.Operations)
        {
            var prepared = new Prepared<TRequest, TFound>(operation, Sizes);
            var cell = $"{operation.Id}/{name}";
            var took = Checks.Cell(prepared, store, background, cell, () => prepared.Measure(store, cell));
            Assert.NotNull(took.Restart);
        }
    }

    [Fact]
    public void EveryOperationPassesEveryCheckWithARestartAfterEachCell()
    {
        var spec = Stores.Spec();
        var folder = Folder(spec);
        var path = folder.Path;
        Assert.Contains("not tmpfs", folder.Describe);
        Assert.Contains("fdatasync of 4 KiB", folder.Describe);
        foreach (var layout in new[] { Layout.United, Layout.Split })
        {
            var name = $"Doublets_{layout}_NonVolatile";
            using (var links = new DoubletsLinks(layout, folder, "links-" + name))
                EveryCell(links, new LinksModel(), "links", name);
            using (var usage = new DoubletsUsage(layout, folder, "typical-" + name))
                EveryCell(usage, new UsageModel(), "typical", name);
            Assert.Empty(Directory.GetFileSystemEntries(path));
        }
        folder.Dispose();
        Assert.False(Directory.Exists(path), $"{path} outlived the run");
    }

    /// <summary>A store whose files lose one write before each restart: 16 bytes of <paramref name="file"/> zeroed at <paramref name="offset"/>, as if a link's last write there had never reached the file.</summary>
    sealed class LostWrite(DoubletsLinks inner, string file, long offset) : IStore<LinkRequest, Link>
    {
        public void Run<TSink>(ReadOnlySpan<LinkRequest> batch, ref TSink sink) where TSink : struct, ISink<Link> => inner.Run(batch, ref sink);
        public string Census() => inner.Census();
        public string? Digest() => inner.Digest();

        public bool Restart()
        {
            using (var stream = new FileStream(file, FileMode.Open, FileAccess.Write))
            {
                stream.Seek(offset, SeekOrigin.Begin);
                stream.Write(new byte[16]);
            }
            return inner.Restart();
        }
    }

    [Fact]
    public void FilesThatLostAWriteFailTheCellAfterTheRestart()
    {
        var spec = Stores.Spec();
        using var folder = Folder(spec);
        var update = spec.Suites.Single(s => s.Id == "links").Operations.Single(o => o.Id == "update");
        var prepared = new Prepared<LinkRequest, Link>(update, Sizes);
        // Link 3's source and target: in the united store's one file a link takes 64 bytes, in the split store's data file 16.
        foreach (var (layout, file, offset) in new[] { (Layout.United, "links", 3 * 64), (Layout.Split, "data", 3 * 16) })
        {
            using var inner = new DoubletsLinks(layout, folder, $"lost-{layout}");
            var store = new LostWrite(inner, Path.Combine(folder.Path, $"lost-{layout}", file), offset);
            var background = Stores.Load(store, new LinksModel(), spec.Suites.Single(s => s.Id == "links"), Sizes, 20, "lost");
            var error = Assert.Throws<ValidationException>(() => Checks.Cell(prepared, store, background, "cell", () => prepared.Measure(store, "cell"))).Message;
            Assert.Contains("cell: the background is damaged", error);
            Assert.Contains("(after closing the store and opening it again)", error);
        }
    }

    [Fact]
    public void AFolderOnTmpfsIsRefusedBeforeAnyWork()
    {
        var spec = Stores.Spec();
        if (!File.ReadAllText("/proc/mounts").Contains(" /dev/shm tmpfs ", StringComparison.Ordinal)) return;
        var error = Assert.Throws<ArgumentException>(() => Folder(spec, "/dev/shm")).Message;
        Assert.Contains("BENCHMARK_DURABLE_DIR=/dev/shm is on tmpfs", error);
        Assert.Contains("BENCHMARK_DURABLE_ALLOW_TMPFS=1", error);
        using var allowed = Folder(spec, "/dev/shm", "1");
        Assert.Contains("tmpfs, allowed", allowed.Describe);
        Assert.Contains("not a folder", Assert.Throws<ArgumentException>(() => Folder(spec, "/no/such/folder")).Message);
    }

    /// <summary>BENCHMARK_DURABLE_STOP=kill: a store opened again without a sync, as a killed bench leaves its files, still holds every write it acknowledged; a value it does not know is refused, as the Rust bench refuses it.</summary>
    [Fact]
    public void AStoreOpenedAgainAsAKilledBenchLeavesItKeepsEveryWrite()
    {
        var spec = Stores.Spec();
        using var folder = Folder(spec, stop: "kill");
        Assert.Contains("a store is opened again without a sync", folder.Describe);
        using (var links = new DoubletsLinks(Layout.United, folder, "killed"))
            EveryCell(links, new LinksModel(), "links", "Doublets_United_NonVolatile");
        var error = Assert.Throws<ArgumentException>(() => Folder(spec, stop: "-9")).Message;
        Assert.Contains("BENCHMARK_DURABLE_STOP=\"-9\": say how a durable store stops", error);
    }

    /// <summary>
    /// Durable Redis (its append-only file fsynced once a second, and before each answer), as the
    /// Rust bench runs it: every links operation in every mode passes every check with the server
    /// stopped (SIGTERM) and started again on its file after each cell; killed (SIGKILL) instead,
    /// the server fsyncing before each answer still holds every write, through each client; and
    /// Garnet on its append-only file, committed before each answer.
    /// </summary>
    [Fact]
    public void DurableServersPassEveryCheckWithARestartAfterEachCell()
    {
        var spec = Stores.Spec();
        foreach (var (id, stop, client) in new[] { ("redis-aof", "close", "StackExchange.Redis"), ("redis-aof-always", "kill", "StackExchange.Redis"), ("redis-aof-always", "kill", "FreeRedis"), ("redis-aof-always", "kill", "CSRedisCore"), ("garnet-aof", "close", "StackExchange.Redis") })
        {
            using var folder = Folder(spec, stop: stop);
            using var server = RedisServer.Start(Stores.Kind(id), RedisFixture.Root, folder);
            // Garnet restarts in seconds, not tenths: one mode (the other modes differ only in framing).
            var modes = client == "StackExchange.Redis" && id != "garnet-aof" ? Modes.All : [Mode.Pipeline];
            foreach (var mode in modes)
            {
                var checks = new StackExchangeClient(server.Claim([], allowFlush: false));
                using var measured = Clients.Open(client, server);
                var store = new RedisStore<LinkRequest, Link, LinksCodec>(measured, server, checks) { Mode = mode };
                EveryCell(store, new LinksModel(), "links", $"{server.Backend(mode)} through {client}");
                server.Claim([], allowFlush: true);
            }
        }
    }

    /// <summary>A store whose server loses one key before each restart, as if its last write had never reached the file.</summary>
    sealed class LostKey(RedisStore<LinkRequest, Link, LinksCodec> inner, StackExchange.Redis.IDatabase db) : IStore<LinkRequest, Link>
    {
        public void Run<TSink>(ReadOnlySpan<LinkRequest> batch, ref TSink sink) where TSink : struct, ISink<Link> => inner.Run(batch, ref sink);
        public string Census() => inner.Census();
        public string? Digest() => inner.Digest();

        public bool Restart()
        {
            db.KeyDelete((string)db.Execute("RANDOMKEY")!);
            return inner.Restart();
        }
    }

    [Fact]
    public void AServerThatLostAWriteFailsTheCellAfterTheRestart()
    {
        var spec = Stores.Spec();
        using var folder = Folder(spec);
        using var server = RedisServer.Start(Stores.Kind("redis-aof-always"), RedisFixture.Root, folder);
        var db = server.Claim([], allowFlush: false);
        var store = new LostKey(new RedisStore<LinkRequest, Link, LinksCodec>(new StackExchangeClient(db), server), db);
        var update = spec.Suites.Single(s => s.Id == "links").Operations.Single(o => o.Id == "update");
        var prepared = new Prepared<LinkRequest, Link>(update, Sizes);
        var background = Stores.Load(store, new LinksModel(), spec.Suites.Single(s => s.Id == "links"), Sizes, 20, "lost");
        var error = Assert.Throws<ValidationException>(() => Checks.Cell(prepared, store, background, "cell", () => prepared.Measure(store, "cell"))).Message;
        Assert.Contains("(after closing the store and opening it again)", error);
    }
}
