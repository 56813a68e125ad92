namespace RedisVSDoublets.Tests;

/// <summary>
/// Concurrent users as the load measures them, on real stores: both doublets layouts shared by
/// threads (readers in parallel), a Redis server through every client in its own concurrent way;
/// every reply is checked, so a client that answers wrongly, or leaves the store changed, fails the
/// cell and no figure exists.
/// </summary>
public class LoadTests(RedisFixture redis) : IClassFixture<RedisFixture>
{
    const ulong B = 64;
    const int K = 4;
    static readonly Spec Spec = Stores.Spec();
    static readonly ulong[] Sizes = [.. Spec.File.Sizes.Select(_ => B)];
    static readonly Timing Short = new(0.05, 0.2);
    static Suite Typical => Spec.Suites.Single(s => s.Id == "typical");
    static Operation Op(Suite suite, string id) => suite.Operations.Single(o => o.Id == id);

    public static TheoryData<string> ClientIds() => [.. Spec.File.Clients.Select(c => c.Id)];
    public static TheoryData<string> Operations() => ["kv_get", "kv_set", "counter_increment", "set_add", "set_contains"];

    static (long Requests, double PerSecond, Latency Latency) Cell<TStore, TClient>(TStore main, Background<UsageRequest, Entry, UsageModel> background, string op, int unit, Func<int, TClient> client, bool tasks)
        where TStore : IStore<UsageRequest, Entry>
        where TClient : ILoadClient<UsageRequest, Entry>
    {
        var plans = LoadCell.Plans<UsageRequest, Entry, UsageModel>(Op(Typical, op), Sizes, background.Model, K, unit);
        return LoadCell.Measure(main, background, Enumerable.Range(0, K).Select(client).ToList(), tasks, plans, Short, $"typical/{op}");
    }

    /// <summary>The typical suite's background loaded into a database of the test server claimed for
    /// this test, with the client the checks use and the store they check.</summary>
    (StackExchangeClient Checks, RedisStore<UsageRequest, Entry, UsageCodec> Main, Background<UsageRequest, Entry, UsageModel> Background) LoadedRedis()
    {
        var checks = new StackExchangeClient(redis.Claim());
        var main = new RedisStore<UsageRequest, Entry, UsageCodec>(checks, redis.Server);
        return (checks, main, Stores.Load(main, new UsageModel(), Typical, Sizes, 2 * B, "Redis"));
    }

    static void Measured((long Requests, double PerSecond, Latency Latency) figures)
    {
        Assert.True(figures.Requests > 0 && figures.PerSecond > 0, $"{figures}");
        Assert.True(figures.Latency.P50 > 0 && figures.Latency.P50 <= figures.Latency.P99 && figures.Latency.P99 <= figures.Latency.Max, $"{figures.Latency}");
    }

    [Theory, MemberData(nameof(Operations))]
    public void BothDoubletsLayoutsServeConcurrentThreads(string op)
    {
        foreach (var layout in new[] { Layout.United, Layout.Split })
        {
            using var store = new DoubletsUsage(layout);
            var background = Stores.Load(store, new UsageModel(), Typical, Sizes, 2 * B, $"{layout}");
            using var gate = new ReaderWriterLockSlim();
            Measured(Cell(store, background, op, 16, _ => new SharedStore<UsageRequest, Entry>(store, gate), tasks: false));
        }
    }

    [Fact]
    public void ConcurrentReadersOfOneLinksStoreEachFindTheirOwnLinks()
    {
        var links = Spec.Suites.Single(s => s.Id == "links");
        using var store = new DoubletsLinks(Layout.Split);
        var background = Stores.Load(store, new LinksModel(), links, Sizes, 2 * B, "split");
        using var gate = new ReaderWriterLockSlim();
        var plans = LoadCell.Plans<LinkRequest, Link, LinksModel>(Op(links, "each_outgoing"), Sizes, background.Model, K, 16);
        Assert.All(plans.SelectMany(p => p), batch => Assert.True(batch.Reads));
        var users = Enumerable.Range(0, K).Select(_ => new SharedStore<LinkRequest, Link>(store, gate)).ToList();
        Measured(LoadCell.Measure(store, background, users, false, plans, Short, "links/each_outgoing"));
    }

    [Theory, MemberData(nameof(ClientIds))]
    public void EveryClientServesConcurrentUsersInItsOwnWay(string clientId)
    {
        var (checks, main, background) = LoadedRedis();
        using var concurrent = new Clients.Concurrent(clientId, redis.Server);
        Assert.Equal(clientId == "StackExchange.Redis", concurrent.Tasks);
        foreach (var depth in Spec.File.Load!.ClientDepths.Append(16))
        {
            var mode = depth == 1 ? Mode.NonTransaction : Mode.Pipeline;
            Measured(Cell(main, background, "kv_set", depth, c => new RedisStore<UsageRequest, Entry, UsageCodec>(concurrent.For(c), redis.Server, checks) { Mode = mode }, concurrent.Tasks));
        }
    }

    /// <summary>A client that adds one to every number a GET returns, or writes SETs one higher than asked.</summary>
    sealed class Lying(IRedisClient inner, string lie) : IRedisClient
    {
        public string Name => $"lying {inner.Name}";

        public Reply Call(in Command command) => command.Name switch
        {
            "GET" when lie == "GET" => inner.Call(command) is { IsNull: false } reply ? new Reply((long)reply.Number() + 1) : default,
            "SET" when lie == "SET" => inner.Call(command with { Args = [command.Args[0], Convert.ToUInt64(command.Args[1]) + 1] }),
            _ => inner.Call(command),
        };

        public void Batch(ReadOnlySpan<Command> commands, bool atomic, Span<Reply> replies)
        {
            for (var k = 0; k < commands.Length; k++) replies[k] = Call(commands[k]);
        }

        public void Dispose() => inner.Dispose();
    }

    [Theory, MemberData(nameof(ClientIds))]
    public void AWrongReplyFailsTheCellNamingTheUser(string clientId)
    {
        var (checks, main, background) = LoadedRedis();
        using var concurrent = new Clients.Concurrent(clientId, redis.Server);
        var e = Assert.Throws<ValidationException>(() => Cell(main, background, "kv_get", 1,
            c => new RedisStore<UsageRequest, Entry, UsageCodec>(new Lying(concurrent.For(c), "GET"), redis.Server, checks) { Mode = Mode.NonTransaction }, concurrent.Tasks));
        Assert.Matches(@"typical/kv_get: client \d of 4: a wrong reply to .*expected Entry \{ Key = (\d+), Value = \1 \}", e.Message);
    }

    [Fact]
    public void AStoreLeftChangedFailsAfterTheLoad()
    {
        var (checks, main, background) = LoadedRedis();
        // Each SET writes one more than asked, so its undo (SET k k) leaves k at k + 1: every reply
        // is as the model says, and only the background check after the load can tell.
        var e = Assert.Throws<ValidationException>(() => Cell(main, background, "kv_set", 1,
            _ => new RedisStore<UsageRequest, Entry, UsageCodec>(new Lying(checks, "SET"), redis.Server, checks) { Mode = Mode.NonTransaction }, tasks: false));
        Assert.Contains("typical/kv_set: the background is damaged", e.Message);
        Assert.EndsWith("(after the load)", e.Message);
    }

    [Fact]
    public void EachUserTakesItsOwnShareOfTheBackground()
    {
        var model = new UsageModel();
        var ignore = new TallySink<UsageRequest, Entry>();
        model.Run(Checks.Plan<UsageRequest, Entry>(Typical, Sizes).Background, ref ignore);
        var plans = LoadCell.Plans<UsageRequest, Entry, UsageModel>(Op(Typical, "kv_set"), Sizes, model, 3, 16);
        var keys = plans.Select(plan => plan.SelectMany(b => b.Requests).Select(r => r.Key).ToHashSet()).ToList();
        for (var c = 0; c < 3; c++)
        {
            Assert.All(keys[c], key => Assert.Equal((ulong)c, key % 3));
            // Whole batches of whole steps (SET k k+B, then SET k k): 21 or 22 keys cut to 16.
            Assert.Equal(16, keys[c].Count);
            Assert.All(plans[c], batch => Assert.Equal(16, batch.Requests.Length));
            Assert.True(plans[c][0].StartsStep);
        }
        var refused = Assert.Throws<SpecException>(() => LoadCell.Plans<UsageRequest, Entry, UsageModel>(Op(Typical, "kv_set"), Sizes, model, 32, 16));
        Assert.Contains("load kv_set: B = 64 gives client", refused.Message);
    }
}
