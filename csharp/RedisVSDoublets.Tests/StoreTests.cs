using StackExchange.Redis;

namespace RedisVSDoublets.Tests;

/// <summary>
/// Every store against the model: random workloads (fixed seeds, so a failure repeats), every
/// operation's undo, and damage the checks must catch. Real doublets stores, a real Redis server.
/// </summary>
public class StoreTests(RedisFixture redis) : IClassFixture<RedisFixture>
{
    /// <summary>A random valid link request in the model's state, never a duplicate pair.</summary>
    static LinkRequest? NextLink(Random random, LinksModel model)
    {
        var ids = model.Links.Select(l => l.Id).ToList();
        ulong Pick() => ids[random.Next(ids.Count)];
        ulong Probe() => (ulong)random.Next(1, (int)model.NextId + 3);
        bool Fresh(ulong s, ulong t) => model.Search(s, t) is null;
        switch (random.Next(10))
        {
            case 0 or 1:
                return Fresh(model.NextId, model.NextId) ? LinkRequest.CreatePoint() : null;
            case 2 when ids.Count > 0:
                var (a, b) = (Pick(), Pick());
                return a != b && Fresh(a, b) && Fresh(model.NextId, model.NextId) ? LinkRequest.Create(a, b) : null;
            case 3 when ids.Count > 0:
                var (id, s, t) = (Pick(), Pick(), Pick());
                return Fresh(s, t) ? LinkRequest.Update(id, s, t) : null;
            case 4 when ids.Count > 0: return LinkRequest.Update(Pick(), 0, 0);
            case 5 when ids.Count > 0: return LinkRequest.Delete(Pick());
            case 6: return LinkRequest.Each(new Query(Probe(), null, null));
            case 7: return LinkRequest.Each(new Query(null, Probe(), null));
            case 8: return LinkRequest.Each(new Query(null, null, Probe()));
            default: return LinkRequest.Each(default);
        }
    }

    static UsageRequest NextUsage(Random random, UsageModel model)
    {
        ulong Small() => (ulong)random.Next(1, 12);
        ulong Value() => random.Next(5) == 0 ? UsageRequest.Max - (ulong)random.Next(1, 50) : (ulong)random.Next(1, 20);
        var verb = (UsageVerb)random.Next(13);
        return verb switch
        {
            UsageVerb.Get or UsageVerb.Del => new UsageRequest(verb, Small(), 0),
            UsageVerb.Incr => model.Get(Small()) is UsageRequest.Max ? new UsageRequest(UsageVerb.Get, 1, 0) : new UsageRequest(verb, Small(), 0),
            UsageVerb.Set => new UsageRequest(verb, Small(), Value()),
            UsageVerb.LPop or UsageVerb.RPop or UsageVerb.Queue or UsageVerb.Members => new UsageRequest(verb, 0, 0),
            _ => new UsageRequest(verb, Value(), 0),
        };
    }

    /// <summary>Random batches on the model and the store; both must report the same and end the same.</summary>
    static void Replay<TRequest, TFound, TModel>(IStore<TRequest, TFound> store, TModel model, int seed, Func<Random, TModel, TRequest?> next, string name)
        where TRequest : struct, IRequest<TRequest, TFound>
        where TFound : IComparable<TFound>
        where TModel : IModel<TRequest, TFound>
    {
        var random = new Random(seed);
        for (var round = 0; round < 25; round++)
        {
            var batch = new List<TRequest>();
            var want = new ListSink<TFound>();
            for (var k = random.Next(1, 6); k > 0; k--)
            {
                if (next(random, model) is not { } request) continue;
                model.Run([request], ref want);
                batch.Add(request);
            }
            want.Items.Sort();
            var got = Stores.Run(store, [.. batch]);
            Assert.True(want.Items.SequenceEqual(got), $"{name}, seed {seed}, round {round}: {string.Join("; ", batch)}");
        }
        Checks.Verify<TRequest, TFound, IStore<TRequest, TFound>, TModel>(store, model, name, 0);
    }

    [Fact]
    public void LinksStoresMatchTheModel()
    {
        foreach (var (name, make) in Stores.Links(redis))
            for (var seed = 0; seed < 12; seed++)
            {
                var store = make();
                Replay<LinkRequest, Link, LinksModel>(store, new LinksModel(), seed, (r, m) => NextLink(r, m), name);
                (store as IDisposable)?.Dispose();
            }
    }

    [Fact]
    public void UsageStoresMatchTheModel()
    {
        foreach (var (name, make) in Stores.Usage(redis))
            for (var seed = 0; seed < 12; seed++)
            {
                var store = make();
                Replay<UsageRequest, Entry, UsageModel>(store, new UsageModel(), seed, (r, m) => NextUsage(r, m), name);
                (store as IDisposable)?.Dispose();
            }
    }

    static readonly ulong[] Sizes = [50, 10];

    static void EveryOperationIsUndone<TRequest, TFound, TModel>(IStore<TRequest, TFound> store, TModel model, Suite suite, string name)
        where TRequest : IRequest<TRequest, TFound>
        where TFound : IComparable<TFound>
        where TModel : IModel<TRequest, TFound> =>
        Stores.EveryOperation(store, Stores.Load(store, model, suite, Sizes, 60, name), suite, Sizes, name);

    [Fact]
    public void EveryOperationIsUndoneOnEveryStore()
    {
        var spec = Stores.Spec();
        foreach (var (name, make) in Stores.Links(redis))
            EveryOperationIsUndone<LinkRequest, Link, LinksModel>(make(), new LinksModel(), spec.Suites[0], name);
        foreach (var (name, make) in Stores.Usage(redis))
            EveryOperationIsUndone<UsageRequest, Entry, UsageModel>(make(), new UsageModel(), spec.Suites[1], name);
    }

    /// <summary>A store that silently loses every fifth point it creates, while reporting it created.</summary>
    sealed class Forgetful(IStore<LinkRequest, Link> inner) : IStore<LinkRequest, Link>
    {
        int created;

        public void Run<TSink>(ReadOnlySpan<LinkRequest> batch, ref TSink sink) where TSink : struct, ISink<Link>
        {
            foreach (var request in batch)
            {
                var reported = Stores.Run(inner, request);
                if (request.Verb == LinkVerb.CreatePoint && ++created % 5 == 0)
                    Stores.Run(inner, LinkRequest.Update(reported[0].Id, 0, 0));
                foreach (var link in reported) sink.Add(link);
            }
        }

        public string Census() => inner.Census();
    }

    [Fact]
    public void ALossyStoreFailsTheRun()
    {
        var background = Enumerable.Repeat(LinkRequest.CreatePoint(), 20).ToArray();
        var model = new LinksModel();
        var ignore = new ListSink<Link>();
        model.Run(background, ref ignore);
        using var united = new DoubletsLinks(Layout.United);
        var e = Assert.Throws<ValidationException>(() =>
            Checks.Load<LinkRequest, Link, IStore<LinkRequest, Link>, LinksModel>(new Forgetful(united), model, background, new Tally { Count = 20, Sum = 210 }, "forgetful"));
        Assert.Contains("forgetful: the background is damaged", e.Message);
    }

    [Fact]
    public void AWrongAnswerFailsTheCheckedIteration()
    {
        var spec = Stores.Spec();
        var identity = spec.Suites[0].Operations.Single(o => o.Id == "each_identity");
        var prepared = new Prepared<LinkRequest, Link>(identity, [10, 5]);
        var model = new LinksModel();
        var ignore = new ListSink<Link>();
        var background = Enumerable.Repeat(LinkRequest.CreatePoint(), 10).ToArray();
        model.Run(background, ref ignore);
        using var store = new DoubletsLinks(Layout.Split);
        Stores.Run(store, background);
        Stores.Run(store, LinkRequest.Delete(3));
        var e = Assert.Throws<ValidationException>(() => prepared.Check(store, model, "each_identity/split"));
        Assert.Equal("each_identity/split: expected 5 ids summing to 15, found 4 ids summing to 12 (missing Link { Id = 3, Source = 3, Target = 3 })", e.Message);
    }

    /// <summary>A server a person runs: the tests reach it through REDIS_URL, as a user's run would.</summary>
    RedisServer SomeoneElses() => RedisServer.At(redis.Server.Url, Stores.Spec().File.Servers);

    static List<string> Keys(RedisServer server) =>
        [.. server.Connection.GetServer(server.Connection.GetEndPoints()[0]).Keys().Select(k => (string)k!).Order()];

    static List<string> Libraries(IDatabase db) =>
        [.. ((RedisResult[])db.Execute("FUNCTION", "LIST")!).Select(l => (string)l.ToDictionary()["library_name"]!)];

    [Fact]
    public void ANonEmptyDatabaseIsRefusedWhateverItHoldsUnlessAllowed()
    {
        using var foreign = SomeoneElses();
        var db = foreign.Connection.GetDatabase();
        db.Execute("FLUSHDB");
        foreach (var key in new[] { "someone:else", "redisvsdoublets:owner" })
        {
            db.StringSet(key, "data");
            var refused = new[]
            {
                Assert.Throws<InvalidOperationException>(() => foreign.Preflight(allowFlush: false)),
                Assert.Throws<InvalidOperationException>(() => foreign.Claim(LinksCodec.Keys, allowFlush: false)),
            };
            foreach (var e in refused)
            {
                Assert.Contains("holds 1 keys, and a run needs it empty", e.Message);
                Assert.Contains("BENCHMARK_ALLOW_FLUSH=1", e.Message);
            }
            Assert.Equal([key], Keys(foreign));
            db.KeyDelete(key);
        }
        db.StringSet("someone:else", "data");
        foreign.Claim(LinksCodec.Keys, allowFlush: true);
        Assert.DoesNotContain("someone:else", Keys(foreign));
    }

    [Fact]
    public void ARunLeavesTheDatabaseAndTheUsersFunctionsAsItFoundThem()
    {
        var db = redis.Server.Connection.GetDatabase();
        db.Execute("FLUSHDB");
        db.Execute("FUNCTION", "FLUSH");
        // A user's own library named like the project's old one, with a function of the same name.
        db.Execute("FUNCTION", "LOAD", "#!lua name=links\nredis.register_function('links_create_point', function() return 7 end)");
        var spec = Stores.Spec();
        for (var run = 0; run < 2; run++)
        {
            using (var foreign = SomeoneElses())
            {
                var store = new RedisStore<LinkRequest, Link, LinksCodec>(new StackExchangeClient(foreign.Claim(LinksCodec.Keys, allowFlush: false)), foreign);
                EveryOperationIsUndone<LinkRequest, Link, LinksModel>(store, new LinksModel(), spec.Suites[0], "redis");
                Assert.Contains(Library.Links.Name, Libraries(db));
            }
            Assert.Empty(Keys(redis.Server));
            Assert.Equal(["links"], Libraries(db));
            Assert.Equal(7, (long)db.Execute("FCALL", "links_create_point", 0));
        }
        db.Execute("FUNCTION", "FLUSH");
    }

    /// <summary>
    /// A server a person runs may deny its user the readings that split a cell's time (here an ACL
    /// that allows INFO server and persistence alone): every cell passes its checks unsplit, and
    /// the server's words say why. As in Rust.
    /// </summary>
    [Fact]
    public void AServerThatRefusesTheReadingsRunsEveryCellUnsplitAndSaysWhy()
    {
        using var disposable = RedisServer.Start(Stores.Kind("redis"), RedisFixture.Root);
        disposable.Connection.GetDatabase().Execute("ACL", "SETUSER", "default", "-info", "+info|server", "+info|persistence");
        using var foreign = RedisServer.At(disposable.Url, Stores.Spec().File.Servers);
        Assert.StartsWith("NOPERM", foreign.SplitRefused);
        Assert.Contains("'info'", foreign.SplitRefused);
        Assert.False(foreign.Splits);
        var store = new RedisStore<LinkRequest, Link, LinksCodec>(new StackExchangeClient(foreign.Claim(LinksCodec.Keys, allowFlush: false)), foreign);
        Assert.Null(store.Reading());
        EveryOperationIsUndone<LinkRequest, Link, LinksModel>(store, new LinksModel(), Stores.Spec().Suites[0], "redis");
    }

    /// <summary>
    /// A server a person runs may give the bench a user of its ACL (redis://user:password@host):
    /// every client connects as that user, as redis-rs does on the Rust side, and its password is
    /// not shown.
    /// </summary>
    [Fact]
    public void AnAclUserOfTheUrlIsTheUserEveryClientConnectsAs()
    {
        using var disposable = RedisServer.Start(Stores.Kind("redis"), RedisFixture.Root);
        disposable.Connection.GetDatabase().Execute("ACL", "SETUSER", "bench", "on", ">s3cret", "~*", "&*", "+@all");
        using var foreign = RedisServer.At(disposable.Url.Replace("redis://", "redis://bench:s3cret@", StringComparison.Ordinal), Stores.Spec().File.Servers);
        Assert.Equal("bench", (string?)foreign.Connection.GetDatabase().Execute("ACL", "WHOAMI"));
        Assert.Equal("bench", foreign.Endpoint.User);
        foreach (var id in new[] { "StackExchange.Redis", "FreeRedis", "CSRedisCore" })
        {
            using var client = Clients.Open(id, foreign);
            Assert.Equal("bench"u8.ToArray(), client.Call(new Command("ACL", ["WHOAMI"])).Bytes().ToArray());
        }
        Assert.DoesNotContain("s3cret", foreign.Shown);
    }

    [Fact]
    public void ALibraryAlreadyLoadedIsUsedAndLeftInPlace()
    {
        var db = redis.Server.Connection.GetDatabase();
        db.Execute("FLUSHDB");
        db.Execute("FUNCTION", "FLUSH");
        db.Execute("FUNCTION", "LOAD", Library.Links.Code);
        using (var foreign = SomeoneElses()) foreign.Claim(LinksCodec.Keys, allowFlush: false);
        Assert.Equal([Library.Links.Name], Libraries(db));
        db.Execute("FUNCTION", "FLUSH");
    }

    [Fact]
    public void TheLibraryIsNamedAfterItsContentAsInRust()
    {
        var source = File.ReadAllBytes(Path.Combine(RedisFixture.Root, "redis/links.lua"));
        Assert.Equal("rvd_" + Convert.ToHexStringLower(System.Security.Cryptography.SHA1.HashData(source))[..12], Library.Links.Name);
        Assert.DoesNotContain("__LIBRARY__", Library.Links.Code);
        Assert.StartsWith($"#!lua name={Library.Links.Name}\n", Library.Links.Code);
        Assert.True(Library.Links.Code.EndsWith(Library.Links.Script, StringComparison.Ordinal) && !Library.Links.Script.StartsWith("#!lua", StringComparison.Ordinal));
        Assert.Equal([$"{Library.Links.Name}_update", 0], Library.Links.Functions.Update);
        Assert.Equal([Library.Links.Sha, 0, "update"], Library.Links.Scripts.Update);
    }

    [Fact]
    public void PasswordsNeverReachMessages()
    {
        Assert.Equal("redis://user:***@127.0.0.1:6379/0", RedisServer.Redact("redis://user:s3cret@127.0.0.1:6379/0"));
        Assert.Equal("redis://:***@host/0", RedisServer.Redact("redis://:s3cret@host/0"));
        Assert.Equal("redis://127.0.0.1:6379/0", RedisServer.Redact("redis://127.0.0.1:6379/0"));
        // A client's error may quote its connection string, password and all.
        Assert.Equal("cannot connect to 127.0.0.1:6379,password=***", RedisServer.Scrub("cannot connect to 127.0.0.1:6379,password=s3cret", "redis://user:s3cret@127.0.0.1:6379/0"));
        Assert.Equal("as it was", RedisServer.Scrub("as it was", "redis://127.0.0.1:6379/0"));
        var e = Assert.Throws<InvalidOperationException>(() => RedisServer.At("redis://:s3cret@127.0.0.1:1/0", Stores.Spec().File.Servers));
        Assert.DoesNotContain("s3cret", e.Message);
        Assert.Contains("***", e.Message);
    }

    [Fact]
    public void AStaleKeyBeyondEveryProbeIsCaughtByTheCount()
    {
        var store = redis.Store<LinkRequest, Link, LinksCodec>();
        var background = Stores.Load(store, new LinksModel(), Stores.Spec().Suites[0], Sizes, 60, "redis");
        redis.Server.Connection.GetDatabase().SetAdd("pair:500:500", 500);
        var e = Assert.Throws<ValidationException>(() => background.Verify(store, "redis"));
        Assert.Contains("the store holds 153 keys, but held 152 keys after loading the background", e.Message);
    }

    [Fact]
    public void ABadUndoIsBlamedOnItsOwnCellBeforeAnythingIsMeasured()
    {
        var spec = Stores.Spec();
        var delete = spec.Suites[0].Operations.Single(o => o.Id == "delete");
        var prepared = new Prepared<LinkRequest, Link>(delete, [10, 10]);
        var model = new LinksModel();
        var ignore = new ListSink<Link>();
        var requests = Enumerable.Repeat(LinkRequest.CreatePoint(), 10).ToArray();
        model.Run(requests, ref ignore);
        using var split = new DoubletsLinks(Layout.Split);
        var store = new Forgetful(split);
        Stores.Run<LinkRequest, Link>(split, requests);
        var background = new Background<LinkRequest, Link, LinksModel>(model, 20, store.Census(), null, null);
        var measured = false;
        var e = Assert.Throws<ValidationException>(() => Checks.Cell(prepared, store, background, "delete/forgetful", () => measured = true));
        Assert.Contains("delete/forgetful: the background is damaged", e.Message);
        Assert.Contains("after the checked iteration and its undo", e.Message);
        Assert.False(measured);
    }
}
