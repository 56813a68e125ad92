using StackExchange.Redis;

namespace RedisVSDoublets.Tests;

/// <summary>A disposable redis-server for a test class; each store gets a freshly emptied database.</summary>
public sealed class RedisFixture : IDisposable
{
    public RedisServer Server { get; } = RedisServer.FromEnvironment(null);
    public static string Root { get; } = Spec.FindRoot(AppContext.BaseDirectory);
    static readonly string Library = File.ReadAllText(Path.Combine(Root, "redis/links.lua"));

    public IDatabase Claim() => Server.Claim(Library, allowFlush: false);

    public void Dispose() => Server.Dispose();
}

public static class Stores
{
    public static Spec Spec() => RedisVSDoublets.Spec.Load(Path.Combine(RedisFixture.Root, RedisVSDoublets.Spec.RelativePath), Bench.CheckRequest);

    /// <summary>Every links store: both doublets layouts and Redis in each mode, each on its own fresh data.</summary>
    public static IEnumerable<(string Name, Func<IStore<LinkRequest, Link>> Make)> Links(RedisFixture redis)
    {
        yield return ("united", () => new DoubletsLinks(Layout.United));
        yield return ("split", () => new DoubletsLinks(Layout.Split));
        foreach (var mode in Modes.All)
            yield return (mode.Backend(), () => new RedisStore<LinkRequest, Link, LinksCodec>(redis.Claim()) { Mode = mode });
    }

    public static IEnumerable<(string Name, Func<IStore<UsageRequest, Entry>> Make)> Usage(RedisFixture redis)
    {
        yield return ("united", () => new DoubletsUsage(Layout.United));
        yield return ("split", () => new DoubletsUsage(Layout.Split));
        foreach (var mode in Modes.All)
            yield return (mode.Backend(), () => new RedisStore<UsageRequest, Entry, UsageCodec>(redis.Claim()) { Mode = mode });
    }

    public static List<TFound> Run<TRequest, TFound>(IStore<TRequest, TFound> store, params TRequest[] batch)
        where TRequest : IRequest<TRequest, TFound>
        where TFound : IComparable<TFound> =>
        Checks.Run<TRequest, TFound, IStore<TRequest, TFound>>(store, batch);
}
