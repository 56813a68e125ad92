// dotnet run -c Release --project experiments/dotnet-clients [-- N]
// The three .NET Redis clients a user would pick (StackExchange.Redis, FreeRedis, CSRedisCore),
// each in every mode it has (one request per round trip, MULTI/EXEC, pipelined), on payloads of
// 1 B, 2 KiB and 20 KiB: per round, N SETs of values that differ per key, then N GETs that must
// return every value byte for byte, then the keys are deleted. Groundwork for issue 14, which makes
// the clients a dimension of the C# harness: it shows how each client pipelines and that each
// gives large payloads back intact. Prints the median of 5 rounds per cell (after one unmeasured
// round); a cell whose GETs return a damaged or missing value prints that, naming the key and
// the first differing byte, instead of a time, and the run exits 1 (FreeRedis 1.5.5's MULTI/EXEC
// does: it gives back values that are not valid UTF-8 re-encoded, 0x85 as EF BF BD). Starts disposable servers of the kinds BENCHMARK_SERVERS names (default: Redis) and
// touches no other.
using System.Diagnostics;
using System.Globalization;
using Clients;
using RedisVSDoublets;

CultureInfo.CurrentCulture = CultureInfo.InvariantCulture;
var n = args.Length > 0 && int.TryParse(args[0], out var given) && given is > 0 and <= 256 ? given
    : args.Length > 0 ? throw new ArgumentException($"N={args[0]}: a whole number from 1 to 256 (a 1-byte value can differ across 256 keys at most)") : 100;
int[] payloads = [1, 2048, 20480];
const int Rounds = 5;
var root = Spec.FindRoot(Directory.GetCurrentDirectory());
var spec = Spec.Load(root, Environment.GetEnvironmentVariable);
// The check is checked first: a copy of a value with one byte changed must be refused.
var sample = Payload.Values(1, 2048)[0];
var damaged = (byte[])sample.Clone();
damaged[1000] ^= 1;
if (Payload.Difference("k", sample, damaged) is null) throw new InvalidOperationException("the payload check accepted a damaged value");

var failed = new List<string>();
Console.WriteLine($"N = {n} keys per round, median of {Rounds} rounds; µs per request");
Console.WriteLine($"{"server",-14} {"client",-28} {"mode",-15} {"payload",8} {"SET",9} {"GET",9}");
foreach (var server in RedisServer.FromEnvironment(spec, root, name => name == "REDIS_URL" ? null : Environment.GetEnvironmentVariable(name), folder: null))
using (server)
{
    try
    {
        server.Claim([Payload.Pattern], allowFlush: false);
        var endpoint = new Uri(server.Url);
        using var clients = new Disposables<IClient>([
            new global::Clients.StackExchangeClient(server.Connection.GetDatabase()),
            new global::Clients.FreeRedisClient(endpoint.Host, endpoint.Port),
            new global::Clients.CSRedisCoreClient(endpoint.Host, endpoint.Port),
        ]);
        foreach (var client in clients.Items)
        foreach (var mode in Modes.All)
        {
            foreach (var size in payloads)
            {
                var keys = Enumerable.Range(0, n).Select(Payload.Key).ToArray();
                var values = Payload.Values(n, size);
                var (set, get) = (new List<double>(), new List<double>());
                string? wrong = null;
                for (var round = 0; round <= Rounds && wrong is null; round++)
                {
                    var start = Stopwatch.GetTimestamp();
                    client.Set(mode, keys, values);
                    var written = Stopwatch.GetTimestamp();
                    var found = client.Get(mode, keys);
                    var read = Stopwatch.GetTimestamp();
                    wrong = Enumerable.Range(0, n).Select(k => Payload.Difference(keys[k], values[k], found[k])).FirstOrDefault(d => d is not null);
                    client.Delete(keys);
                    if (round == 0) continue;
                    set.Add(Stopwatch.GetElapsedTime(start, written).TotalMicroseconds / n);
                    get.Add(Stopwatch.GetElapsedTime(written, read).TotalMicroseconds / n);
                }
                var cell = $"{server.Describe(),-14} {client.Name,-28} {mode,-15} {size,8}";
                if (wrong is not null)
                {
                    // A damaged value fails its cell, and no time is printed for it.
                    failed.Add($"{server.Describe()} {client.Name} {mode}, {size} B: {wrong}");
                    Console.WriteLine($"{cell} FAILED: {wrong}");
                    continue;
                }
                Console.WriteLine($"{cell} {Median(set),9:F2} {Median(get),9:F2}");
            }
        }
        var left = (long)server.Connection.GetDatabase().Execute("DBSIZE");
        if (left != 0) throw new InvalidOperationException($"{server.Describe()} holds {left} keys after the clients deleted theirs");
    }
    finally { server.Release(); }
}
if (failed.Count > 0)
{
    Console.WriteLine($"{failed.Count} cells returned values other than those written:");
    failed.ForEach(f => Console.WriteLine($"  {f}"));
    return 1;
}
Console.WriteLine("every value came back byte for byte");
return 0;

static double Median(List<double> values) => values.Order().ElementAt(values.Count / 2);
