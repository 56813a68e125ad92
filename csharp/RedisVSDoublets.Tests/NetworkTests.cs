using System.Diagnostics;
using System.Runtime.InteropServices;

namespace RedisVSDoublets.Tests;

/// <summary>
/// A server on a host of its own (a network namespace, a veth pair and a delaying relay, made by
/// the Rust side), as rust/tests/network.rs tries it: every links operation passes every check in
/// every mode over the network, no round trip is shorter than the spec's, and nothing of the
/// network outlives the server; without root it is refused before any work.
/// </summary>
public partial class NetworkTests
{
    [LibraryImport("libc", EntryPoint = "geteuid")]
    private static partial uint GetEuid();

    static string Namespaces() => Bench.CommandIn(null, "ip", "netns", "list") ?? "";

    [Fact]
    public void AServerOnAHostOfItsOwnPassesEveryCheckAndLeavesNothing()
    {
        var kind = Stores.Kind("redis-rack");
        if (GetEuid() != 0)
        {
            var refused = Assert.Throws<ArgumentException>(() => RedisServer.Start(kind, RedisFixture.Root));
            Assert.Contains("which needs root", refused.Message);
            return;
        }
        string name;
        using (var server = RedisServer.Start(kind, RedisFixture.Root))
        {
            Assert.Contains("10.213.", server.Url);
            Assert.Contains("round trip", server.NetworkLine);
            name = System.Text.RegularExpressions.Regex.Match(server.NetworkLine!, @"namespace (rvd-\S+)").Groups[1].Value;
            Assert.Contains(name, Namespaces());
            // The relay delays each way by half the round trip: no round trip is shorter.
            var db = server.Connection.GetDatabase();
            for (var i = 0; i < 20; i++)
            {
                var watch = Stopwatch.StartNew();
                db.Ping();
                Assert.True(watch.Elapsed.TotalMicroseconds >= kind.RoundTripUs, $"{watch.Elapsed.TotalMicroseconds} µs");
            }
            var suite = Stores.Spec().Suites.Single(s => s.Id == "links");
            ulong[] sizes = [10, 5];
            foreach (var mode in Modes.All)
            {
                var backend = server.Backend(mode);
                var store = new RedisStore<LinkRequest, Link, LinksCodec>(new StackExchangeClient(server.Claim([], allowFlush: false)), server) { Mode = mode };
                var background = Stores.Load(store, new LinksModel(), suite, sizes, 20, backend);
                Stores.EveryOperation(store, background, suite, sizes, backend);
            }
        }
        Assert.DoesNotContain(name, Namespaces());
    }
}
