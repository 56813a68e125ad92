using StackExchange.Redis;

namespace RedisVSDoublets;

/// <summary>How the requests of one iteration reach the server.</summary>
internal enum Mode
{
    /// <summary>Each request is one synchronous round trip.</summary>
    NonTransaction,
    /// <summary>The iteration's requests in one ITransaction (MULTI/EXEC).</summary>
    Transaction,
    /// <summary>The iteration's requests in one IBatch (pipelined).</summary>
    Pipeline,
}

internal static class Modes
{
    public static readonly Mode[] All = [Mode.NonTransaction, Mode.Transaction, Mode.Pipeline];
}

/// <summary>How a suite's requests become Redis commands and how the replies are read.</summary>
internal interface IRedisCodec<TRequest, TFound>
{
    /// <summary>SCAN patterns that cover every key the suite writes, so a run can remove exactly its own.</summary>
    static abstract string[] Keys { get; }

    /// <summary>The command, calling the library's functions (if it does) as <paramref name="calls"/> says.</summary>
    Command Command(in TRequest request, Calls calls);
    void Decode<TSink>(in TRequest request, Reply reply, ref TSink sink) where TSink : struct, ISink<TFound>;
}

/// <summary>
/// One database of <paramref name="server"/> holding a suite's data, reached through
/// <paramref name="client"/> in <see cref="Mode"/>, calling the library as the server does. Checks
/// and loads go through <paramref name="checks"/> (the bench gives every client's store the same
/// StackExchange.Redis one), or through the client itself, pipelined in chunks.
/// </summary>
internal sealed class RedisStore<TRequest, TFound, TCodec>(IRedisClient client, RedisServer server, IRedisClient? checks = null) : IStore<TRequest, TFound>, ILoadClient<TRequest, TFound>
    where TRequest : IRequest<TRequest, TFound>
    where TFound : IComparable<TFound>
    where TCodec : struct, IRedisCodec<TRequest, TFound>
{
    /// <summary>How many commands one check or load batch carries.</summary>
    public const int Chunk = 10_000;

    public Mode Mode { get; set; } = Mode.Pipeline;

    // Reused from batch to batch, so a measured iteration allocates only what its client does.
    readonly IRedisClient checks = checks ?? client;
    readonly Calls calls = server.Calls;
    readonly long window = server.Kind.PipelineWindow;
    Command[] commands = [];
    Reply[] replies = [];

    public string Census() => $"{checks.Call(new("DBSIZE", [])).Number()} keys";

    /// <summary>
    /// A durable server is stopped and started again on its files (<see cref="RedisServer.Restart"/>);
    /// then the store's clients connect again, so that the check after it and the next cell use
    /// live connections.
    /// </summary>
    public bool Restart()
    {
        if (!server.Restart()) return false;
        foreach (var each in new[] { client, checks }.Distinct()) each.Reconnect();
        return true;
    }

    public string? Digest() => server.HasDigest ? System.Text.Encoding.ASCII.GetString(checks.Call(new("DEBUG", ["DIGEST"])).Bytes()) : null;

    public string? Reading() => server.Splits
        ? System.Text.Encoding.ASCII.GetString(checks.Call(new("INFO", ["cpu", "commandstats"])).Bytes())
        : null;

    public string? Changes()
    {
        if (server.Kind.Changes.Count == 0) return null;
        var info = System.Text.Encoding.ASCII.GetString(checks.Call(new("INFO", ["persistence"])).Bytes()).Split('\n');
        return string.Join(" ", server.Kind.Changes.Select(field =>
        {
            var line = info.FirstOrDefault(l => l.StartsWith(field + ":", StringComparison.Ordinal))
                ?? throw new InvalidOperationException($"INFO persistence has no {field}");
            return $"{field}:{line[(field.Length + 1)..].Trim()}";
        }));
    }

    public void Run<TSink>(ReadOnlySpan<TRequest> batch, ref TSink sink) where TSink : struct, ISink<TFound>
    {
        TRequest.Validate(batch);
        var codec = default(TCodec);
        if (Mode == Mode.NonTransaction)
        {
            foreach (var request in batch)
                codec.Decode(request, client.Call(codec.Command(request, calls)), ref sink);
            return;
        }
        RunBatched(client, batch, Mode == Mode.Transaction, ref sink);
    }

    /// <summary>
    /// <see cref="Run"/> for a caller that awaits (the load's concurrent users): the same commands
    /// and replies, through the client's asynchronous calls.
    /// </summary>
    public async ValueTask RunAsync(TRequest[] batch, ListSink<TFound> sink)
    {
        TRequest.Validate(batch);
        var codec = default(TCodec);
        if (Mode == Mode.NonTransaction)
        {
            foreach (var request in batch)
            {
                var reply = await client.CallAsync(codec.Command(request, calls));
                codec.Decode(request, reply, ref sink);
            }
            return;
        }
        if (commands.Length < batch.Length) (commands, replies) = (new Command[batch.Length], new Reply[batch.Length]);
        for (var k = 0; k < batch.Length; k++) commands[k] = codec.Command(batch[k], calls);
        await client.BatchAsync(commands, batch.Length, Mode == Mode.Transaction, replies);
        for (var k = 0; k < batch.Length; k++) codec.Decode(batch[k], replies[k], ref sink);
    }

    ValueTask ILoadClient<TRequest, TFound>.Run(LoadBatch<TRequest, TFound> batch, ListSink<TFound> found) => RunAsync(batch.Requests, found);

    public void Check<TSink>(ReadOnlySpan<TRequest> batch, ref TSink sink) where TSink : struct, ISink<TFound>
    {
        TRequest.Validate(batch);
        for (var start = 0; start < batch.Length; start += Chunk)
            RunBatched(checks, batch[start..Math.Min(batch.Length, start + Chunk)], atomic: false, ref sink);
    }

    /// <summary>
    /// Sends a batch as one transaction, or as a pipeline in windows of at most the spec's
    /// pipeline_window_bytes of commands (a larger command alone), each window's replies read before
    /// the next is written; returns when every reply is read. FreeRedis and CSRedisCore write a whole
    /// pipeline before reading, and a server that stops reading while its replies wait (Garnet does
    /// past about 10 MB) would never answer; a transaction's commands are answered QUEUED until EXEC.
    /// </summary>
    void RunBatched<TSink>(IRedisClient through, ReadOnlySpan<TRequest> batch, bool atomic, ref TSink sink) where TSink : struct, ISink<TFound>
    {
        var codec = default(TCodec);
        if (commands.Length < batch.Length) (commands, replies) = (new Command[batch.Length], new Reply[batch.Length]);
        var (start, bytes) = (0, 0L);
        for (var k = 0; k < batch.Length; k++)
        {
            commands[k] = codec.Command(batch[k], calls);
            var size = commands[k].Size();
            if (!atomic && k > start && bytes + size > window)
            {
                Window(through, batch, start, k, atomic, ref sink);
                (start, bytes) = (k, 0);
            }
            bytes += size;
        }
        Window(through, batch, start, batch.Length, atomic, ref sink);
    }

    /// <summary>Sends the built commands from <paramref name="start"/> to <paramref name="end"/> together and decodes their replies.</summary>
    void Window<TSink>(IRedisClient through, ReadOnlySpan<TRequest> batch, int start, int end, bool atomic, ref TSink sink) where TSink : struct, ISink<TFound>
    {
        if (start == end) return; // an empty batch is not a command
        var codec = default(TCodec);
        through.Batch(commands.AsSpan(start, end - start), atomic, replies.AsSpan(start, end - start));
        for (var k = start; k < end; k++) codec.Decode(batch[k], replies[k], ref sink);
    }
}

static class Endpoints
{
    /// <summary>The stored "source:target", both numbers read in place.</summary>
    public static (ulong Source, ulong Target) Of(Reply reply)
    {
        if (reply.IsNull) throw new InvalidOperationException("a stored link is missing");
        var text = reply.Bytes();
        var colon = text.IndexOf((byte)':');
        if (colon < 0) throw new InvalidOperationException($"a stored link should read \"source:target\", got {reply}");
        return (Parse(text[..colon], reply), Parse(text[(colon + 1)..], reply));
    }

    static ulong Parse(ReadOnlySpan<byte> digits, Reply reply) =>
        System.Buffers.Text.Utf8Parser.TryParse(digits, out ulong value, out var used) && used == digits.Length
            ? value
            : throw new InvalidOperationException($"expected a number, got {reply}");
}

/// <summary>Link requests: changes call redis/links.lua, queries are one native read each.</summary>
internal struct LinksCodec : IRedisCodec<LinkRequest, Link>
{
    public static string[] Keys { get; } = ["links", "links:*", "out:*", "in:*", "pair:*"];

    public readonly Command Command(in LinkRequest r, Calls calls) => r.Verb switch
    {
        LinkVerb.CreatePoint => new(calls.Command, calls.CreatePoint),
        LinkVerb.Create => new(calls.Command, [.. calls.Create, r.Source, r.Target]),
        LinkVerb.Update => new(calls.Command, [.. calls.Update, r.Id, r.Source, r.Target]),
        LinkVerb.Delete => new(calls.Command, [.. calls.Delete, r.Id]),
        _ => r.Query switch
        {
            { Id: { } id } => new("HGET", ["links", id]),
            { Source: { } s, Target: { } t } => new("SMEMBERS", [$"pair:{s}:{t}"]),
            { Source: { } s } => new("HGETALL", [$"out:{s}"]),
            { Target: { } t } => new("HGETALL", [$"in:{t}"]),
            _ => new("HGETALL", ["links"]),
        },
    };

    public readonly void Decode<TSink>(in LinkRequest r, Reply reply, ref TSink sink) where TSink : struct, ISink<Link>
    {
        switch (r.Verb)
        {
            case LinkVerb.CreatePoint: sink.Add(Link.Point(reply.Number())); return;
            case LinkVerb.Create or LinkVerb.Update: sink.Add(new Link(reply.Number(), r.Source, r.Target)); return;
            case LinkVerb.Delete: sink.Add(new Link(reply.Number(), 0, 0)); return;
        }
        var q = r.Query;
        // A measured iteration tallies only the ids it finds; the endpoints beside them are read
        // (and checked) by the checked iteration and the background checks, not in the timer.
        var idsOnly = typeof(TSink) == typeof(TallySink<LinkRequest, Link>);
        if (q.Id is { } id)
        {
            if (!reply.IsNull)
            {
                var (s, t) = idsOnly ? (0, 0) : Endpoints.Of(reply);
                sink.Add(new Link(id, s, t));
            }
            return;
        }
        var items = reply;
        if (q is { Source: { } source, Target: { } target })
        {
            for (var k = 0; k < items.Count; k++) sink.Add(new Link(items[k].Number(), source, target));
            return;
        }
        for (var k = 0; k + 1 < items.Count; k += 2)
        {
            var linkId = items[k].Number();
            if (idsOnly)
            {
                sink.Add(new Link(linkId, 0, 0));
                continue;
            }
            sink.Add(q switch
            {
                { Source: { } s } => new Link(linkId, s, items[k + 1].Number()),
                { Target: { } t } => new Link(linkId, items[k + 1].Number(), t),
                _ => WithEndpoints(linkId, items[k + 1]),
            });
        }
    }

    static Link WithEndpoints(ulong id, Reply value)
    {
        var (s, t) = Endpoints.Of(value);
        return new Link(id, s, t);
    }
}

/// <summary>Typical-usage requests as the native commands: strings k:{key}, the list queue, the set members.</summary>
internal struct UsageCodec : IRedisCodec<UsageRequest, Entry>
{
    public static string[] Keys { get; } = ["k:*", "queue", "members"];

    public readonly Command Command(in UsageRequest r, Calls calls) => r.Verb switch
    {
        UsageVerb.Get => new("GET", [$"k:{r.Key}"]),
        UsageVerb.Set => new("SET", [$"k:{r.Key}", r.Value]),
        UsageVerb.Del => new("DEL", [$"k:{r.Key}"]),
        UsageVerb.Incr => new("INCR", [$"k:{r.Key}"]),
        UsageVerb.RPush => new("RPUSH", ["queue", r.Key]),
        UsageVerb.LPush => new("LPUSH", ["queue", r.Key]),
        UsageVerb.LPop => new("LPOP", ["queue"]),
        UsageVerb.RPop => new("RPOP", ["queue"]),
        UsageVerb.SAdd => new("SADD", ["members", r.Key]),
        UsageVerb.SRem => new("SREM", ["members", r.Key]),
        UsageVerb.SIsMember => new("SISMEMBER", ["members", r.Key]),
        UsageVerb.Queue => new("LRANGE", ["queue", 0, -1]),
        _ => new("SMEMBERS", ["members"]),
    };

    public readonly void Decode<TSink>(in UsageRequest r, Reply reply, ref TSink sink) where TSink : struct, ISink<Entry>
    {
        // Replies that say "done" (1, OK) or "not there" (0, nil) report the request's own number.
        static bool Done(Reply reply) => !reply.IsNull && (reply.IsOk || reply.Number() == 1);
        switch (r.Verb)
        {
            case UsageVerb.Get: if (!reply.IsNull) sink.Add(new Entry(r.Key, reply.Number())); break;
            case UsageVerb.Set: if (Done(reply)) sink.Add(new Entry(r.Key, r.Value)); break;
            case UsageVerb.Del: if (Done(reply)) sink.Add(new Entry(r.Key, r.Key)); break;
            case UsageVerb.Incr: sink.Add(new Entry(r.Key, reply.Number())); break;
            case UsageVerb.RPush or UsageVerb.LPush: reply.Number(); sink.Add(new Entry(0, r.Key)); break;
            case UsageVerb.LPop or UsageVerb.RPop: if (!reply.IsNull) sink.Add(new Entry(0, reply.Number())); break;
            case UsageVerb.SAdd or UsageVerb.SRem or UsageVerb.SIsMember: if (Done(reply)) sink.Add(new Entry(0, r.Key)); break;
            case UsageVerb.Queue:
                ulong position = 1;
                for (var k = 0; k < reply.Count; k++) sink.Add(new Entry(position++, reply[k].Number()));
                break;
            case UsageVerb.Members:
                for (var k = 0; k < reply.Count; k++) sink.Add(new Entry(0, reply[k].Number()));
                break;
        }
    }
}
