// dotnet run -c Release --project experiments/harness-overhead [-- B N]
// What the C# harness adds to a cell, as rust/examples/overhead.rs measures it for Rust: for every
// operation of both suites on both doublets layouts and on Redis in its three modes (a disposable
// server), the harness's measured iteration (Prepared.Measure) is timed beside a bare loop making
// the same calls (the C ABI through P/Invoke; StackExchange.Redis commands, sent and their replies
// read), timed the same way: one clock reading around each iteration's work, its undo untimed,
// the two alternating iteration by iteration (each first in every other pair). Prints the medians
// of 9 rounds' times and of their ratios; exits 1 if a Doublets ratio exceeds 1.15 or a Redis
// ratio 1.1.
using System.Diagnostics;
using System.Globalization;
using System.Runtime.InteropServices;
using RedisVSDoublets;
using StackExchange.Redis;

CultureInfo.CurrentCulture = CultureInfo.InvariantCulture;
var sizes = new[] { args.Length > 0 ? ulong.Parse(args[0]) : 1000UL, args.Length > 1 ? ulong.Parse(args[1]) : 100UL };
var filter = Environment.GetEnvironmentVariable("OVERHEAD_FILTER") ?? "";
var root = Spec.FindRoot(Directory.GetCurrentDirectory());
var spec = Spec.Load(root, Environment.GetEnvironmentVariable);
var over = new List<string>();
Console.WriteLine($"B={sizes[0]}, N={sizes[1]}: medians of {Overhead.Rounds} rounds, harness and bare loop alternating every iteration");
Console.WriteLine($"{"cell",-52} {"harness",12} {"bare loop",12} {"ratio",7}");

void Suite<TRequest, TFound, TModel, TStore>(string suiteId, string[] backends, TStore store, TModel model, Action<int> select, Func<TRequest[], ulong> bare)
    where TRequest : IRequest<TRequest, TFound>
    where TFound : IComparable<TFound>
    where TModel : IModel<TRequest, TFound>
    where TStore : IStore<TRequest, TFound>
{
    var suite = spec.Suites.Single(s => s.Id == suiteId);
    var (background, prepared) = Checks.Plan<TRequest, TFound>(suite, sizes);
    var ignore = new TallySink<TRequest, TFound>();
    model.Run(background, ref ignore);
    var (loaded, _) = Background<TRequest, TFound, TModel>.Load(store, model, background, suite.BackgroundExpected.Tally(sizes), 0, string.Join(", ", backends));
    for (var k = 0; k < backends.Length; k++)
    {
        select(k);
        var limit = backends[k].StartsWith("Doublets", StringComparison.Ordinal) ? 1.15 : 1.1;
        foreach (var p in prepared)
        {
            var cell = $"{suiteId}/{p.Operation.Id}/{backends[k]}";
            if (!cell.Contains(filter, StringComparison.Ordinal)) continue;
            // The measured iteration is only ever timed after its checked one, as in the harness.
            Checks.Cell(p, store, loaded, cell, () => { });
            var (harness, bareLoop, ratio) = Overhead.Compare(() => p.Measure(store, cell), () =>
            {
                var start = Stopwatch.GetTimestamp();
                GC.KeepAlive(bare(p.Work));
                var took = Stopwatch.GetTimestamp() - start;
                bare(p.Undo);
                return took;
            });
            if (ratio > limit) over.Add($"{cell} {ratio:F2}×");
            Console.WriteLine($"{cell,-52} {harness,9:F1} ns {bareLoop,9:F1} ns {ratio,6:F2}×");
        }
    }
    loaded.Verify(store, string.Join(", ", backends));
}

foreach (var (name, layout) in new[] { ("Doublets_United_Volatile", Layout.United), ("Doublets_Split_Volatile", Layout.Split) })
{
    using (var links = new DoubletsLinks(layout))
        Suite<LinkRequest, Link, LinksModel, DoubletsLinks>("links", [name], links, new LinksModel(), _ => { }, batch => Overhead.BareLinks(links.Core, batch));
    using var usage = new DoubletsUsage(layout);
    Suite<UsageRequest, Entry, UsageModel, DoubletsUsage>("typical", [name], usage, new UsageModel(), _ => { }, batch =>
    {
        var sum = new Overhead.SumSink();
        foreach (var r in batch) usage.RunOne(r, ref sum);
        return sum.Sum;
    });
}

// Disposable servers of the kinds BENCHMARK_SERVERS names (default: Redis).
foreach (var server in RedisServer.FromEnvironment(spec, root, name => name == "REDIS_URL" ? null : Environment.GetEnvironmentVariable(name), folder: null))
using (server)
{
    var modes = Modes.All.Select(server.Backend).ToArray();
    try
    {
        var db = server.Claim(LinksCodec.Keys, allowFlush: false);
        var redis = new RedisStore<LinkRequest, Link, LinksCodec>(new StackExchangeClient(db), server);
        Suite<LinkRequest, Link, LinksModel, RedisStore<LinkRequest, Link, LinksCodec>>("links", modes, redis, new LinksModel(), k => redis.Mode = Modes.All[k],
            batch => Overhead.BareRedis<LinkRequest, Link, LinksCodec>(db, server.Calls, server.Kind.PipelineWindow, redis.Mode, batch));
    }
    finally { server.Release(); }
    try
    {
        var db = server.Claim(UsageCodec.Keys, allowFlush: false);
        var redis = new RedisStore<UsageRequest, Entry, UsageCodec>(new StackExchangeClient(db), server);
        Suite<UsageRequest, Entry, UsageModel, RedisStore<UsageRequest, Entry, UsageCodec>>("typical", modes, redis, new UsageModel(), k => redis.Mode = Modes.All[k],
            batch => Overhead.BareRedis<UsageRequest, Entry, UsageCodec>(db, server.Calls, server.Kind.PipelineWindow, redis.Mode, batch));
    }
    finally { server.Release(); }
}

if (over.Count > 0)
{
    Console.WriteLine($"the harness adds more than its limit to a bare loop: {string.Join(", ", over)}");
    return 1;
}
Console.WriteLine("every cell within its limit (Doublets 1.15×, Redis 1.1×) of its bare loop");
return 0;

static unsafe class Overhead
{
    public const int Rounds = 9;
    static readonly TimeSpan Round = TimeSpan.FromMilliseconds(200);
    const int MinPairs = 50;

    /// <summary>Nanoseconds per iteration, the harness's and the bare loop's, and the median of the
    /// rounds' ratios. The two alternate iteration by iteration, so that whatever else the machine
    /// does falls on both alike, each going first in every other pair, so that neither always
    /// inherits the caches the other left; the ratio is taken round by round, where the two sides
    /// ran side by side.</summary>
    public static (double Harness, double Bare, double Ratio) Compare(Func<long> harness, Func<long> bare)
    {
        var (harnessRounds, bareRounds, ratios) = (new List<double>(), new List<double>(), new List<double>());
        var nsPerTick = 1e9 / Stopwatch.Frequency;
        for (var round = 0; round < Rounds; round++)
        {
            long a = 0, b = 0, count = 0;
            var watch = Stopwatch.StartNew();
            // At least MinPairs pairs: a round trip varies more than an in-process call.
            while (watch.Elapsed < Round || count < MinPairs)
            {
                if (count % 2 == 0)
                {
                    a += harness();
                    b += bare();
                }
                else
                {
                    b += bare();
                    a += harness();
                }
                count++;
            }
            harnessRounds.Add(a * nsPerTick / count);
            bareRounds.Add(b * nsPerTick / count);
            ratios.Add((double)a / b);
        }
        return (Median(harnessRounds), Median(bareRounds), Median(ratios));
    }

    static double Median(List<double> values) => values.Order().ElementAt(values.Count / 2);

    /// <summary>The C ABI calls a batch stands for, with nothing around them but a sum of what they return.</summary>
    public static ulong BareLinks(NativeStore store, LinkRequest[] batch)
    {
        var handle = store.Handle;
        var any = store.Any;
        ulong sum = 0;
        foreach (var r in batch)
        {
            ulong id = 0;
            switch (r.Verb)
            {
                case LinkVerb.CreatePoint: Native.CreatePoint(handle, out id); break;
                case LinkVerb.Create: Native.CreateLink(handle, r.Source, r.Target, out id); break;
                case LinkVerb.Update: Native.Update(handle, r.Id, r.Source, r.Target); id = r.Id; break;
                case LinkVerb.Delete: Native.Delete(handle, r.Id); id = r.Id; break;
                default: Native.Each(handle, r.Query.Id ?? any, r.Query.Source ?? any, r.Query.Target ?? any, &Add, &sum); break;
            }
            sum += id;
        }
        return sum;
    }

    [UnmanagedCallersOnly]
    static int Add(void* context, ulong id, ulong source, ulong target)
    {
        *(ulong*)context += id;
        return 1;
    }

    public struct SumSink : ISink<Entry>
    {
        public ulong Sum;
        public void Add(in Entry found) => Sum += found.Value;
    }

    /// <summary>
    /// StackExchange.Redis as its user calls it: the same commands, one by one, in a transaction, or
    /// batched in the spec's windows, every reply read as its user reads it (<see cref="Read"/>).
    /// </summary>
    public static ulong BareRedis<TRequest, TFound, TCodec>(IDatabase db, Calls calls, long window, Mode mode, TRequest[] batch)
        where TCodec : struct, IRedisCodec<TRequest, TFound>
    {
        var codec = default(TCodec);
        ulong sum = 0;
        if (mode == Mode.NonTransaction)
        {
            foreach (var r in batch)
            {
                var (command, args, _) = codec.Command(r, calls);
                sum += Read(command, db.Execute(command, args));
            }
            return sum;
        }
        var (replies, commands) = (new Task<RedisResult>[batch.Length], new string[batch.Length]);
        if (mode == Mode.Transaction)
        {
            var transaction = db.CreateTransaction();
            for (var k = 0; k < batch.Length; k++)
            {
                var (command, args, _) = codec.Command(batch[k], calls);
                (replies[k], commands[k]) = (transaction.ExecuteAsync(command, args), command);
            }
            transaction.Execute();
        }
        else
        {
            // Pipelined in windows of at most `window` bytes of commands, each window's replies
            // read before the next is written, as the spec's pipeline_window_bytes says.
            var (pipeline, bytes, start) = (db.CreateBatch(), 0L, 0);
            for (var k = 0; k < batch.Length; k++)
            {
                var built = codec.Command(batch[k], calls);
                var size = built.Size();
                if (bytes > 0 && bytes + size > window)
                {
                    pipeline.Execute();
                    for (; start < k; start++) sum += Read(commands[start], replies[start].GetAwaiter().GetResult());
                    (pipeline, bytes) = (db.CreateBatch(), 0);
                }
                bytes += size;
                (replies[k], commands[k]) = (pipeline.ExecuteAsync(built.Name, built.Args), built.Name);
            }
            pipeline.Execute();
        }
        for (var k = 0; k < replies.Length; k++) sum += Read(commands[k], replies[k].GetAwaiter().GetResult());
        return sum;
    }

    /// <summary>
    /// A reply as its user reads it, the same in rust/examples/overhead.rs: an integer as a number,
    /// an array's ids as numbers (every item; HGETALL's field names, every other item, since its
    /// values are the links' "source:target" text), any other reply kept as it came.
    /// </summary>
    static ulong Read(string command, RedisResult reply)
    {
        switch (reply.Resp2Type)
        {
            case ResultType.Integer: return (ulong)(long)reply;
            case ResultType.Array:
                var (items, stride, sum) = ((RedisResult[])reply!, command == "HGETALL" ? 2 : 1, 0UL);
                for (var k = 0; k < items.Length; k += stride) sum += (ulong)(long)items[k];
                return sum;
            default: GC.KeepAlive(reply); return 1;
        }
    }
}
