namespace RedisVSDoublets.Tests;

/// <summary>
/// The check after each cell, by digest where a store has one, as on the Rust side
/// (rust/tests/checks.rs): one link or key changed behind the bench's back during the measured
/// iterations fails the cell on every store with a digest, and the digest catches a change no
/// probe reads. After a read-only cell, a count of changes that has not moved stands for the
/// digest; a change beside the cell moves it.
/// </summary>
public class ChecksTests(RedisFixture redis) : IClassFixture<RedisFixture>
{
    static readonly ulong[] Sizes = [10, 5];

    /// <summary>The suite's <paramref name="operation"/> as one cell whose measured iterations also run
    /// <paramref name="sabotage"/> on the store, outside anything the harness knows of: the cell's error.</summary>
    static string Sabotaged<TRequest, TFound, TModel>(IStore<TRequest, TFound> store, TModel model, string suite, string operation, params TRequest[] sabotage)
        where TRequest : IRequest<TRequest, TFound>
        where TFound : IComparable<TFound>
        where TModel : IModel<TRequest, TFound>
    {
        var spec = Stores.Spec().Suites.Single(s => s.Id == suite);
        var prepared = new Prepared<TRequest, TFound>(spec.Operations.Single(o => o.Id == operation), Sizes);
        var background = Stores.Load(store, model, spec, Sizes, 20, "sabotaged");
        Assert.NotNull(background.Digest);
        return Assert.Throws<ValidationException>(() => Checks.Cell(prepared, store, background, "cell", () =>
        {
            prepared.Measure(store, "cell");
            Stores.Run(store, sabotage);
        })).Message;
    }

    static void AssertCaught(string error)
    {
        Assert.Contains("cell: the background is damaged", error);
        Assert.Contains("its digest is", error);
        Assert.Contains("(after the measured iterations)", error);
    }

    [Fact]
    public void ALinkChangedBehindTheBenchFailsTheCellOnEveryStoreWithADigest()
    {
        Assert.True(redis.Server.HasDigest);
        foreach (var (name, make) in Stores.Links(redis))
        {
            // Link 3 of the background set to (0, 0): no operation of the suite does that.
            var error = Sabotaged(make(), new LinksModel(), "links", name == "united" ? "update" : "each_all", LinkRequest.Update(3, 0, 0));
            AssertCaught(error);
        }
    }

    [Fact]
    public void AKeyChangedBehindTheBenchFailsTheCellInTypicalUsage()
    {
        foreach (var (_, make) in Stores.Usage(redis))
        {
            // Key 2 of the background holds 2; 7 is a value no operation writes there.
            var error = Sabotaged(make(), new UsageModel(), "typical", "kv_get", new UsageRequest(UsageVerb.Set, 2, 7));
            AssertCaught(error);
        }
    }

    [Fact]
    public void RedisCountsItsChangesSoAReadOnlyCellNeedsNoDigestUnlessSomethingWrote()
    {
        var suite = Stores.Spec().Suites.Single(s => s.Id == "links");
        var store = redis.Store<LinkRequest, Link, LinksCodec>();
        var background = Stores.Load(store, new LinksModel(), suite, Sizes, 20, "redis");
        Assert.NotNull(background.Changes);
        Proof Cell(string operation)
        {
            var prepared = new Prepared<LinkRequest, Link>(suite.Operations.Single(o => o.Id == operation), Sizes);
            return Checks.Cell(prepared, store, background, operation, () => prepared.Measure(store, operation)).Proof;
        }
        Assert.Equal(Proof.Unchanged, Cell("each_all"));
        Assert.Equal(Proof.Digest, Cell("update"));
        // The digest after a writing cell is a proof to count from.
        Assert.Equal(Proof.Unchanged, Cell("each_outgoing"));
        // A link set and set back by another client leaves the store as loaded but moves the
        // count: the digest then decides, and finds the background.
        var db = redis.Server.Connection.GetDatabase();
        db.HashSet("links", "3", db.HashGet("links", "3"));
        Assert.Equal(Proof.Digest, Cell("each_identity"));
    }

    [Fact]
    public void TheDigestCatchesWhatNoProbeReads()
    {
        // A key of the background set to expire in an hour: it still answers every probe as
        // before, and the key count stays, but the store no longer holds the background for good.
        var store = redis.Store<LinkRequest, Link, LinksCodec>();
        var background = Stores.Load(store, new LinksModel(), Stores.Spec().Suites.Single(s => s.Id == "links"), Sizes, 20, "redis");
        redis.Server.Connection.GetDatabase().KeyExpire("out:3", TimeSpan.FromHours(1));
        var e = Assert.Throws<ValidationException>(() => background.Verify(store, "redis"));
        Assert.Contains("redis: the store's digest is", e.Message);
        Assert.Contains("beyond what the probes read", e.Message);
    }

    [Fact]
    public void AStoreWithoutADigestIsReadBackWhole()
    {
        var store = new LinksModel();
        var background = Stores.Load(store, new LinksModel(), Stores.Spec().Suites.Single(s => s.Id == "links"), Sizes, 20, "model");
        Assert.Null(background.Digest);
        Stores.Run<LinkRequest, Link>(store, LinkRequest.Update(3, 0, 0));
        var e = Assert.Throws<ValidationException>(() => background.Verify(store, "model"));
        Assert.Contains("model: the background is damaged", e.Message);
        Assert.DoesNotContain("digest", e.Message);
    }
}
