using StackExchange.Redis;

namespace RedisVSDoublets.Tests;

/// <summary>A disposable redis-server for a test class; each store gets a freshly emptied database.</summary>
public sealed class RedisFixture : IDisposable
{
    public static string Root { get; } = Spec.FindRoot(AppContext.BaseDirectory);
    internal RedisServer Server { get; } = RedisServer.Start(Stores.Kind("redis"), Root);

    /// <summary>The fixture's server is disposable, so it holds only what the tests wrote: no key patterns are needed to clean it.</summary>
    public IDatabase Claim() => Server.Claim([], allowFlush: false);

    /// <summary>A store on a freshly emptied database of the fixture's server.</summary>
    internal RedisStore<TRequest, TFound, TCodec> Store<TRequest, TFound, TCodec>()
        where TRequest : IRequest<TRequest, TFound>
        where TFound : IComparable<TFound>
        where TCodec : struct, IRedisCodec<TRequest, TFound> => new(new StackExchangeClient(Claim()), Server);

    public void Dispose() => Server.Dispose();
}

internal static class Stores
{
    /// <summary>The checkout's spec at its default choices, whatever this process's variables say, as the Rust side hands it over: a fresh one each time, since tests change their servers' start commands.</summary>
    public static Spec Spec() => RedisVSDoublets.Spec.Load(RedisFixture.Root, _ => null);

    /// <summary>The spec's server <paramref name="id"/>.</summary>
    public static ServerDef Kind(string id) => Spec().File.Servers.Single(s => s.Id == id);

    /// <summary>Every links store: both doublets layouts and Redis in each mode, each on its own fresh data.</summary>
    public static IEnumerable<(string Name, Func<IStore<LinkRequest, Link>> Make)> Links(RedisFixture redis)
    {
        yield return ("united", () => new DoubletsLinks(Layout.United));
        yield return ("split", () => new DoubletsLinks(Layout.Split));
        foreach (var mode in Modes.All)
            yield return (redis.Server.Backend(mode), () => new RedisStore<LinkRequest, Link, LinksCodec>(new StackExchangeClient(redis.Claim()), redis.Server) { Mode = mode });
    }

    public static IEnumerable<(string Name, Func<IStore<UsageRequest, Entry>> Make)> Usage(RedisFixture redis)
    {
        yield return ("united", () => new DoubletsUsage(Layout.United));
        yield return ("split", () => new DoubletsUsage(Layout.Split));
        foreach (var mode in Modes.All)
            yield return (redis.Server.Backend(mode), () => new RedisStore<UsageRequest, Entry, UsageCodec>(new StackExchangeClient(redis.Claim()), redis.Server) { Mode = mode });
    }

    /// <summary>Loads a suite's background at <paramref name="sizes"/> into the store and the model, checked.</summary>
    public static Background<TRequest, TFound, TModel> Load<TRequest, TFound, TModel>(IStore<TRequest, TFound> store, TModel model, Suite suite, ulong[] sizes, ulong reaches, string name)
        where TRequest : IRequest<TRequest, TFound>
        where TFound : IComparable<TFound>
        where TModel : IModel<TRequest, TFound>
    {
        var background = suite.Background.Build(sizes, TRequest.Build).ToArray();
        var ignore = new TallySink<TRequest, TFound>();
        model.Run(background, ref ignore);
        return Background<TRequest, TFound, TModel>.Load(store, model, background, suite.BackgroundExpected.Tally(sizes), reaches, name).Item1;
    }

    /// <summary>
    /// Every operation of a suite through the bench's own cell sequence, with one measured iteration
    /// and two that split its time where the store reports it: a script's share appears exactly
    /// where the work calls the links library, and MULTI/EXEC's only in the Transaction mode.
    /// </summary>
    public static void EveryOperation<TRequest, TFound, TModel>(IStore<TRequest, TFound> store, Background<TRequest, TFound, TModel> background, Suite suite, ulong[] sizes, string name)
        where TRequest : IRequest<TRequest, TFound>
        where TFound : IComparable<TFound>
        where TModel : IModel<TRequest, TFound>
    {
        background.Split = new SplitDef { Iterations = 2, Seconds = 0.05 };
        var reports = store.Reading() is not null;
        foreach (var operation in suite.Operations)
        {
            var prepared = new Prepared<TRequest, TFound>(operation, sizes);
            var cell = $"{operation.Id}/{name}";
            var took = Checks.Cell(prepared, store, background, cell, () => prepared.Measure(store, cell));
            Assert.Equal(reports, took.Split is not null);
            if (took.Split is not { } split) continue;
            Assert.StartsWith($"split {cell} ... wall ", split);
            double Figure(string label) => double.Parse(System.Text.RegularExpressions.Regex.Match(split, $"{label} ([\\d,]+) ns").Groups[1].Value.Replace(",", ""), System.Globalization.CultureInfo.InvariantCulture);
            Assert.True(Figure("server cpu") > 0, split);
            Assert.True(Figure("native") + Figure("script") + Figure("transaction") < Figure("wall"), split);
            Assert.Equal(suite.Id == "links" && prepared.Writes, Figure("script") > 0);
            if (!name.Contains("_Transaction", StringComparison.Ordinal)) Assert.Equal(0, Figure("transaction"));
        }
    }

    public static List<TFound> Run<TRequest, TFound>(IStore<TRequest, TFound> store, params TRequest[] batch)
        where TRequest : IRequest<TRequest, TFound>
        where TFound : IComparable<TFound> =>
        Checks.Run<TRequest, TFound, IStore<TRequest, TFound>>(store, batch);
}
