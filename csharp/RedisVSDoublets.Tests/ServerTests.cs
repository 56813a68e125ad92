namespace RedisVSDoublets.Tests;

/// <summary>
/// Servers by capability, as the Rust side's tests/servers.rs: a server with scripts only runs the
/// links library as a script, a server with neither functions nor scripts is refused before any
/// work, and Garnet (the .NET tool this repository pins) passes every check Redis passes, started
/// by the tests or reached as a server a person runs, and answers a pipeline of tens of megabytes
/// through every client in the spec's windows. Every server here is real and disposable.
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
        var links = new RedisStore<LinkRequest, Link, LinksCodec>(new StackExchangeClient(server.Claim([], false)), server);
        var linksBackground = Stores.Load(links, new LinksModel(), spec.Suites[0], Sizes, 60, server.Kind.Name);
        Assert.Equal(server.Kind.SplitMissing is null, links.Reading() is not null);
        foreach (var mode in Modes.All)
        {
            links.Mode = mode;
            Stores.EveryOperation(links, linksBackground, spec.Suites[0], Sizes, server.Backend(mode));
        }
        // A disposable server's database is emptied when the next suite claims it.
        var usage = new RedisStore<UsageRequest, Entry, UsageCodec>(new StackExchangeClient(server.Claim([], false)), server);
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

    /// <summary>
    /// One measured iteration of payload_20kib at N = 1,000 (1,000 SET+GET pairs of 20 KiB: 20 MB of
    /// commands, 20 MB of replies), pipelined through the client: whether it finished within 20 s
    /// (it takes well under one).
    /// </summary>
    static bool TwentyMegabytesFinish(RedisServer server, string clientId)
    {
        var operation = Stores.Spec().Suites.Single(s => s.Id == "payload").Operations.Single(o => o.Id == "payload_20kib");
        var prepared = new Prepared<PayloadRequest, Stored>(operation, [1000, 1000]);
        var client = Clients.Open(clientId, server);
        var store = new RedisStore<PayloadRequest, Stored, PayloadCodec>(client, server) { Mode = Mode.Pipeline };
        var run = Task.Run(() => prepared.Measure(store, $"payload_20kib through {clientId}"));
        return run.Wait(TimeSpan.FromSeconds(20));
    }

    /// <summary>
    /// FreeRedis and CSRedisCore write a whole pipeline before they read a reply, and Garnet stops
    /// reading while its replies wait: without windows a pipeline of 20 MB never finishes there.
    /// </summary>
    [Fact]
    public void GarnetAnswersAPipelineOfTwentyMegabytesThroughEveryClientInTheSpecsWindows()
    {
        using (var server = RedisServer.Start(Stores.Kind("garnet"), RedisFixture.Root))
        {
            Assert.Equal(1 << 20, server.Kind.PipelineWindow);
            foreach (var client in Stores.Spec().File.Clients)
                Assert.True(TwentyMegabytesFinish(server, client.Id), $"the windowed pipeline through {client.Id} hung");
        }
        var whole = Stores.Kind("garnet");
        whole.PipelineWindow = long.MaxValue;
        using (var server = RedisServer.Start(whole, RedisFixture.Root))
            Assert.False(TwentyMegabytesFinish(server, "FreeRedis"), "Garnet answered 20 MB written before any reply was read: the windows may not be needed");
    }

    /// <summary>
    /// Redis through a Unix socket, in a folder only this user enters, removed with the server:
    /// every check passes through StackExchange.Redis, and the spec keeps the clients that reach
    /// no Unix socket from it, with their reason. As rust/tests/servers.rs does for redis-rs.
    /// </summary>
    [Fact]
    public void RedisOverAUnixSocketPassesEveryCheckThroughTheClientsThatReachOne()
    {
        string folder;
        using (var server = RedisServer.Start(Stores.Kind("redis-unix"), RedisFixture.Root))
        {
            Assert.StartsWith("redis+unix:///", server.Url);
            folder = Path.GetDirectoryName(new Uri(server.Url).AbsolutePath)!;
            if (!OperatingSystem.IsWindows())
                Assert.Equal(UnixFileMode.UserRead | UnixFileMode.UserWrite | UnixFileMode.UserExecute, File.GetUnixFileMode(folder));
            EveryCheckPasses(server);
            // A person's server is told by its transport too: the same Redis through its socket
            // is RedisUnix, through its port Redis.
            var port = (string)server.Connection.GetDatabase().Execute("CONFIG", "GET", "port")[1]!;
            foreach (var (url, id) in new[] { (server.Url, "redis-unix"), ($"redis://127.0.0.1:{port}/0", "redis") })
            {
                using var theirs = RedisServer.At(url, Stores.Spec().File.Servers);
                Assert.Equal(id, theirs.Kind.Id);
            }
        }
        Assert.False(Directory.Exists(folder), folder);
        var clients = Stores.Spec().File.Clients;
        Assert.Equal(["StackExchange.Redis"], clients.Where(c => c.Refuses("links", "redis-unix", Mode.Pipeline) is null).Select(c => c.Id));
        Assert.Contains("no Unix socket endpoint", clients.Single(c => c.Id == "FreeRedis").Refuses("typical", "redis-unix", Mode.NonTransaction)!.En);
        Assert.All(clients, c => Assert.Null(c.Refuses("links", "redis", Mode.Pipeline)));
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
