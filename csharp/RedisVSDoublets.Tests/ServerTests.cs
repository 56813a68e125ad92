namespace RedisVSDoublets.Tests;

/// <summary>
/// Servers by capability, as the Rust side's tests/servers.rs: a server with scripts only runs the
/// links library as a script, a server with neither functions nor scripts is refused before any
/// work, and Garnet (the .NET tool this repository pins) passes every check Redis passes, started
/// by the tests or reached as a server a person runs. Every server here is real and disposable.
/// </summary>
public class ServerTests
{
    static readonly ulong[] Sizes = [50, 10];

    /// <summary>A disposable Redis with <paramref name="commands"/> taken away by rename-command.</summary>
    static RedisServer RedisWithout(params string[] commands)
    {
        var kind = Stores.Kind("redis");
        kind.Start = [.. kind.Start, .. commands.SelectMany(c => new[] { "--rename-command", c, "" })];
        return RedisServer.Start(kind, RedisFixture.Root);
    }

    /// <summary>Both suites loaded and every operation run through the bench's cell sequence, in every mode.</summary>
    static void EveryCheckPasses(RedisServer server)
    {
        var spec = Stores.Spec();
        var links = new RedisStore<LinkRequest, Link, LinksCodec>(new StackExchangeClient(server.Claim([], false)), server.Calls);
        var linksBackground = Stores.Load(links, new LinksModel(), spec.Suites[0], Sizes, 60, server.Kind.Name);
        foreach (var mode in Modes.All)
        {
            links.Mode = mode;
            Stores.EveryOperation(links, linksBackground, spec.Suites[0], Sizes, server.Backend(mode));
        }
        // A disposable server's database is emptied when the next suite claims it.
        var usage = new RedisStore<UsageRequest, Entry, UsageCodec>(new StackExchangeClient(server.Claim([], false)), server.Calls);
        var usageBackground = Stores.Load(usage, new UsageModel(), spec.Suites[1], Sizes, 60, server.Kind.Name);
        foreach (var mode in Modes.All)
        {
            usage.Mode = mode;
            Stores.EveryOperation(usage, usageBackground, spec.Suites[1], Sizes, server.Backend(mode));
        }
    }

    [Fact]
    public void AServerWithScriptsOnlyRunsTheLibraryAsAScript()
    {
        using var server = RedisWithout("FUNCTION", "FCALL", "FCALL_RO");
        Assert.Equal(Scripting.Scripts, server.Scripting);
        EveryCheckPasses(server);
    }

    [Fact]
    public void AServerWithoutScriptingIsRefusedBeforeAnyWork()
    {
        var e = Assert.Throws<InvalidOperationException>(() =>
            RedisWithout("FUNCTION", "FCALL", "FCALL_RO", "EVAL", "EVALSHA", "EVAL_RO", "EVALSHA_RO", "SCRIPT"));
        Assert.Contains("has neither functions (FUNCTION, FCALL) nor scripts (it lacks SCRIPT, EVALSHA)", e.Message);
    }

    [Fact]
    public void GarnetWithoutLuaIsRefusedBeforeAnyWork()
    {
        var kind = Stores.Kind("garnet");
        kind.Start = [.. kind.Start.Where(a => a != "--lua")];
        var e = Assert.Throws<InvalidOperationException>(() => RedisServer.Start(kind, RedisFixture.Root));
        Assert.Contains("Garnet 2.2.8", e.Message);
        Assert.Contains("Lua scripting support disabled", e.Message);
        Assert.Contains("Garnet: --lua", e.Message);
    }

    [Fact]
    public void GarnetPassesEveryCheckRedisPasses()
    {
        using var server = RedisServer.Start(Stores.Kind("garnet"), RedisFixture.Root);
        Assert.Equal(("Garnet 2.2.8", Scripting.Scripts), (server.Describe(), server.Scripting));
        EveryCheckPasses(server);
        // The same Garnet reached as a server a person runs: identified from INFO server.
        server.Connection.GetDatabase().Execute("FLUSHDB");
        using var theirs = RedisServer.At(server.Url, Stores.Spec().File.Servers);
        Assert.Equal(("garnet", "Garnet_Pipeline"), (theirs.Kind.Id, theirs.Backend(Mode.Pipeline)));
    }

    [Fact]
    public void RedisIsIdentifiedByItsVersionField()
    {
        using var server = RedisServer.Start(Stores.Kind("redis"), RedisFixture.Root);
        using var theirs = RedisServer.At(server.Url, Stores.Spec().File.Servers);
        Assert.Equal(("redis", Scripting.Functions), (theirs.Kind.Id, theirs.Scripting));
        Assert.StartsWith("Redis 7.", theirs.Describe());
    }
}
