using StackExchange.Redis;

namespace RedisVSDoublets;

/// <summary>How the requests of one iteration reach the server.</summary>
public enum Mode
{
    /// <summary>Each request is one synchronous round trip.</summary>
    NonTransaction,
    /// <summary>The iteration's requests in one ITransaction (MULTI/EXEC).</summary>
    Transaction,
    /// <summary>The iteration's requests in one IBatch (pipelined).</summary>
    Pipeline,
}

public static class Modes
{
    public static readonly Mode[] All = [Mode.NonTransaction, Mode.Transaction, Mode.Pipeline];
}

/// <summary>How a suite's requests become Redis commands and how the replies are read.</summary>
public interface IRedisCodec<TRequest, TFound>
{
    /// <summary>SCAN patterns that cover every key the suite writes, so a run can remove exactly its own.</summary>
    static abstract string[] Keys { get; }

    /// <summary>The command, calling the library's functions (if it does) as <paramref name="calls"/> says.</summary>
    (string Command, object[] Args) Command(in TRequest request, Calls calls);
    void Decode<TSink>(in TRequest request, RedisResult reply, ref TSink sink) where TSink : struct, ISink<TFound>;
}

/// <summary>One database of a server holding a suite's data, reached in <see cref="Mode"/>; <paramref name="calls"/> says how this server calls the library.</summary>
public sealed class RedisStore<TRequest, TFound, TCodec>(IDatabase db, Calls calls) : IStore<TRequest, TFound>
    where TRequest : IRequest<TRequest, TFound>
    where TFound : IComparable<TFound>
    where TCodec : struct, IRedisCodec<TRequest, TFound>
{
    /// <summary>How many commands one check or load batch carries.</summary>
    public const int Chunk = 10_000;

    public Mode Mode { get; set; } = Mode.Pipeline;

    public string Census() => $"{(long)db.Execute("DBSIZE")} keys";

    public void Run<TSink>(ReadOnlySpan<TRequest> batch, ref TSink sink) where TSink : struct, ISink<TFound>
    {
        TRequest.Validate(batch);
        var codec = default(TCodec);
        if (Mode == Mode.NonTransaction)
        {
            foreach (var request in batch)
            {
                var (command, args) = codec.Command(request, calls);
                codec.Decode(request, db.Execute(command, args), ref sink);
            }
            return;
        }
        RunBatched(batch, Mode == Mode.Transaction, ref sink);
    }

    public void Check<TSink>(ReadOnlySpan<TRequest> batch, ref TSink sink) where TSink : struct, ISink<TFound>
    {
        TRequest.Validate(batch);
        for (var start = 0; start < batch.Length; start += Chunk)
            RunBatched(batch[start..Math.Min(batch.Length, start + Chunk)], atomic: false, ref sink);
    }

    /// <summary>Sends a batch as one transaction or pipeline; returns when every reply is read.</summary>
    void RunBatched<TSink>(ReadOnlySpan<TRequest> batch, bool atomic, ref TSink sink) where TSink : struct, ISink<TFound>
    {
        if (batch.IsEmpty) return;
        var codec = default(TCodec);
        var replies = new Task<RedisResult>[batch.Length];
        if (atomic)
        {
            var transaction = db.CreateTransaction();
            for (var k = 0; k < batch.Length; k++)
            {
                var (command, args) = codec.Command(batch[k], calls);
                replies[k] = transaction.ExecuteAsync(command, args);
            }
            if (!transaction.Execute()) throw new InvalidOperationException("the transaction was not committed");
        }
        else
        {
            var pipeline = db.CreateBatch();
            for (var k = 0; k < batch.Length; k++)
            {
                var (command, args) = codec.Command(batch[k], calls);
                replies[k] = pipeline.ExecuteAsync(command, args);
            }
            pipeline.Execute();
        }
        for (var k = 0; k < batch.Length; k++)
            codec.Decode(batch[k], replies[k].GetAwaiter().GetResult(), ref sink);
    }
}

static class Reply
{
    /// <summary>A whole number, read from the reply's bytes in place (no string per number).</summary>
    public static ulong Number(RedisResult reply) => reply.Resp2Type switch
    {
        ResultType.Integer => (ulong)(long)reply,
        ResultType.BulkString or ResultType.SimpleString => (ulong)(long)reply,
        _ => throw new InvalidOperationException($"expected a number, got {reply.Resp2Type}: {reply}"),
    };

    /// <summary>The stored "source:target", both numbers read in place.</summary>
    public static (ulong Source, ulong Target) Endpoints(RedisResult reply)
    {
        if (reply.IsNull) throw new InvalidOperationException("a stored link is missing");
        var text = ((ReadOnlyMemory<byte>)(RedisValue)reply).Span;
        var colon = text.IndexOf((byte)':');
        if (colon < 0) throw new InvalidOperationException($"a stored link should read \"source:target\", got \"{reply}\"");
        return (Parse(text[..colon], reply), Parse(text[(colon + 1)..], reply));
    }

    static ulong Parse(ReadOnlySpan<byte> digits, RedisResult reply) =>
        System.Buffers.Text.Utf8Parser.TryParse(digits, out ulong value, out var used) && used == digits.Length
            ? value
            : throw new InvalidOperationException($"expected a number, got \"{reply}\"");
}

/// <summary>Link requests: changes call redis/links.lua, queries are one native read each.</summary>
public struct LinksCodec : IRedisCodec<LinkRequest, Link>
{
    public static string[] Keys { get; } = ["links", "links:*", "out:*", "in:*", "pair:*"];

    public readonly (string, object[]) Command(in LinkRequest r, Calls calls) => r.Verb switch
    {
        LinkVerb.CreatePoint => (calls.Command, calls.CreatePoint),
        LinkVerb.Create => (calls.Command, [.. calls.Create, r.Source, r.Target]),
        LinkVerb.Update => (calls.Command, [.. calls.Update, r.Id, r.Source, r.Target]),
        LinkVerb.Delete => (calls.Command, [.. calls.Delete, r.Id]),
        _ => r.Query switch
        {
            { Id: { } id } => ("HGET", ["links", id]),
            { Source: { } s, Target: { } t } => ("SMEMBERS", [$"pair:{s}:{t}"]),
            { Source: { } s } => ("HGETALL", [$"out:{s}"]),
            { Target: { } t } => ("HGETALL", [$"in:{t}"]),
            _ => ("HGETALL", ["links"]),
        },
    };

    public readonly void Decode<TSink>(in LinkRequest r, RedisResult reply, ref TSink sink) where TSink : struct, ISink<Link>
    {
        switch (r.Verb)
        {
            case LinkVerb.CreatePoint: sink.Add(Link.Point(Reply.Number(reply))); return;
            case LinkVerb.Create or LinkVerb.Update: sink.Add(new Link(Reply.Number(reply), r.Source, r.Target)); return;
            case LinkVerb.Delete: sink.Add(new Link(Reply.Number(reply), 0, 0)); return;
        }
        var q = r.Query;
        // A measured iteration tallies only the ids it finds; the endpoints beside them are read
        // (and checked) by the checked iteration and the background checks, not in the timer.
        var idsOnly = typeof(TSink) == typeof(TallySink<LinkRequest, Link>);
        if (q.Id is { } id)
        {
            if (!reply.IsNull)
            {
                var (s, t) = idsOnly ? (0, 0) : Reply.Endpoints(reply);
                sink.Add(new Link(id, s, t));
            }
            return;
        }
        var items = (RedisResult[])reply!;
        if (q is { Source: { } source, Target: { } target })
        {
            foreach (var item in items) sink.Add(new Link(Reply.Number(item), source, target));
            return;
        }
        for (var k = 0; k + 1 < items.Length; k += 2)
        {
            var linkId = Reply.Number(items[k]);
            if (idsOnly)
            {
                sink.Add(new Link(linkId, 0, 0));
                continue;
            }
            sink.Add(q switch
            {
                { Source: { } s } => new Link(linkId, s, Reply.Number(items[k + 1])),
                { Target: { } t } => new Link(linkId, Reply.Number(items[k + 1]), t),
                _ => Endpoints(linkId, items[k + 1]),
            });
        }
    }

    static Link Endpoints(ulong id, RedisResult value)
    {
        var (s, t) = Reply.Endpoints(value);
        return new Link(id, s, t);
    }
}

/// <summary>Typical-usage requests as the native commands: strings k:{key}, the list queue, the set members.</summary>
public struct UsageCodec : IRedisCodec<UsageRequest, Entry>
{
    public static string[] Keys { get; } = ["k:*", "queue", "members"];

    public readonly (string, object[]) Command(in UsageRequest r, Calls calls) => r.Verb switch
    {
        UsageVerb.Get => ("GET", [$"k:{r.Key}"]),
        UsageVerb.Set => ("SET", [$"k:{r.Key}", r.Value]),
        UsageVerb.Del => ("DEL", [$"k:{r.Key}"]),
        UsageVerb.Incr => ("INCR", [$"k:{r.Key}"]),
        UsageVerb.RPush => ("RPUSH", ["queue", r.Key]),
        UsageVerb.LPush => ("LPUSH", ["queue", r.Key]),
        UsageVerb.LPop => ("LPOP", ["queue"]),
        UsageVerb.RPop => ("RPOP", ["queue"]),
        UsageVerb.SAdd => ("SADD", ["members", r.Key]),
        UsageVerb.SRem => ("SREM", ["members", r.Key]),
        UsageVerb.SIsMember => ("SISMEMBER", ["members", r.Key]),
        UsageVerb.Queue => ("LRANGE", ["queue", 0, -1]),
        _ => ("SMEMBERS", ["members"]),
    };

    public readonly void Decode<TSink>(in UsageRequest r, RedisResult reply, ref TSink sink) where TSink : struct, ISink<Entry>
    {
        // Replies that say "done" (1, OK) or "not there" (0, nil) report the request's own number.
        static bool Done(RedisResult reply) => !reply.IsNull && (reply.Resp2Type == ResultType.SimpleString || Reply.Number(reply) == 1);
        switch (r.Verb)
        {
            case UsageVerb.Get: if (!reply.IsNull) sink.Add(new Entry(r.Key, Reply.Number(reply))); break;
            case UsageVerb.Set: if (Done(reply)) sink.Add(new Entry(r.Key, r.Value)); break;
            case UsageVerb.Del: if (Done(reply)) sink.Add(new Entry(r.Key, r.Key)); break;
            case UsageVerb.Incr: sink.Add(new Entry(r.Key, Reply.Number(reply))); break;
            case UsageVerb.RPush or UsageVerb.LPush: Reply.Number(reply); sink.Add(new Entry(0, r.Key)); break;
            case UsageVerb.LPop or UsageVerb.RPop: if (!reply.IsNull) sink.Add(new Entry(0, Reply.Number(reply))); break;
            case UsageVerb.SAdd or UsageVerb.SRem or UsageVerb.SIsMember: if (Done(reply)) sink.Add(new Entry(0, r.Key)); break;
            case UsageVerb.Queue:
                ulong position = 1;
                foreach (var item in (RedisResult[])reply!) sink.Add(new Entry(position++, Reply.Number(item)));
                break;
            case UsageVerb.Members:
                foreach (var item in (RedisResult[])reply!) sink.Add(new Entry(0, Reply.Number(item)));
                break;
        }
    }
}
