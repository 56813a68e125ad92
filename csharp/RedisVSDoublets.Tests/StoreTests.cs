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
        where TModel : IModel<TRequest, TFound>
    {
        var background = suite.Background.Build(Sizes, TRequest.Build, "background").ToArray();
        var ignore = new TallySink<TRequest, TFound>();
        model.Run(background, ref ignore);
        Checks.Load<TRequest, TFound, IStore<TRequest, TFound>, TModel>(store, model, background, suite.BackgroundExpected.Tally(Sizes), name);
        foreach (var operation in suite.Operations)
        {
            var prepared = new Prepared<TRequest, TFound>(operation, Sizes);
            var cell = $"{operation.Id}/{name}";
            prepared.Check(store, model, cell);
            prepared.Measure(store, cell);
            Checks.Verify<TRequest, TFound, IStore<TRequest, TFound>, TModel>(store, model, cell, 60);
        }
    }

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

    [Fact]
    public void AForeignDatabaseIsRefusedUnlessAllowed()
    {
        using var foreign = RedisServer.FromEnvironment(redis.Server.Url);
        var db = foreign.Connection.GetDatabase();
        db.Execute("FLUSHDB");
        db.StringSet("someone:else", "data");
        var e = Assert.Throws<InvalidOperationException>(() => foreign.Claim("#!lua name=links\n", allowFlush: false));
        Assert.Contains("holds 1 keys this benchmark did not write", e.Message);
        Assert.True(db.KeyExists("someone:else"));
    }
}
