using StackExchange.Redis;
using RedisVSDoublets;

namespace Clients;

/// <summary>The values a round writes: P bytes per key, different for every key (also at 1 byte, for up to 256 keys).</summary>
static class Payload
{
    public const string Pattern = "rvd:payload:*";

    public static string Key(int i) => $"rvd:payload:{i}";

    public static byte[][] Values(int n, int size) =>
        [.. Enumerable.Range(0, n).Select(i => Enumerable.Range(0, size).Select(j => (byte)(i + 7 * j + size)).ToArray())];

    /// <summary>What is wrong with <paramref name="found"/>, or null when it is exactly <paramref name="expected"/>.</summary>
    public static string? Difference(string key, byte[] expected, byte[]? found)
    {
        if (found is null) return $"GET {key} found nothing, expected {expected.Length} bytes";
        var at = expected.AsSpan().CommonPrefixLength(found);
        if (at == expected.Length && at == found.Length) return null;
        if (at == Math.Min(expected.Length, found.Length))
            return $"GET {key} returned {found.Length} bytes, expected {expected.Length} (equal up to byte {at})";
        return $"GET {key}: byte {at} is 0x{found[at]:x2}, expected 0x{expected[at]:x2}";
    }
}

/// <summary>One client library, as its user would call it for a batch of SETs or GETs.</summary>
interface IClient : IDisposable
{
    string Name { get; }
    void Set(Mode mode, string[] keys, byte[][] values);
    byte[]?[] Get(Mode mode, string[] keys);
    void Delete(string[] keys);
}

sealed class Disposables<T>(IReadOnlyList<T> items) : IDisposable where T : IDisposable
{
    public IReadOnlyList<T> Items { get; } = items;
    public void Dispose()
    {
        foreach (var item in Items) item.Dispose();
    }
}

static class Versions
{
    /// <summary>The package's version (its informational version, less any +commit suffix): assembly versions stay at x.0.0.</summary>
    public static string Of(Type type)
    {
        var assembly = type.Assembly;
        var version = assembly.GetCustomAttributes(typeof(System.Reflection.AssemblyInformationalVersionAttribute), false)
            .OfType<System.Reflection.AssemblyInformationalVersionAttribute>().FirstOrDefault()?.InformationalVersion
            ?? assembly.GetName().Version?.ToString(3);
        return $"{assembly.GetName().Name} {version?.Split('+')[0]}";
    }
}

/// <summary>
/// StackExchange.Redis multiplexes every caller over one connection: a call is written to it and
/// its reply matched in order. An IBatch writes its commands together (a pipeline), an
/// ITransaction wraps them in MULTI/EXEC; both complete when executed.
/// </summary>
sealed class StackExchangeClient(IDatabase db) : IClient
{
    public string Name => Versions.Of(typeof(IDatabase));

    public void Set(Mode mode, string[] keys, byte[][] values)
    {
        if (mode == Mode.NonTransaction)
        {
            for (var k = 0; k < keys.Length; k++) db.StringSet(keys[k], values[k]);
            return;
        }
        var sent = Batched(mode, batch => keys.Select((key, k) => (Task)batch.StringSetAsync(key, values[k])).ToArray());
        Task.WaitAll(sent);
    }

    public byte[]?[] Get(Mode mode, string[] keys)
    {
        if (mode == Mode.NonTransaction) return [.. keys.Select(key => (byte[]?)db.StringGet(key))];
        var sent = Batched(mode, batch => keys.Select(key => batch.StringGetAsync(key)).ToArray());
        return [.. sent.Select(reply => (byte[]?)reply.GetAwaiter().GetResult())];
    }

    T[] Batched<T>(Mode mode, Func<IDatabaseAsync, T[]> queue)
    {
        if (mode == Mode.Transaction)
        {
            var transaction = db.CreateTransaction();
            var queued = queue(transaction);
            if (!transaction.Execute()) throw new InvalidOperationException("the transaction was not committed");
            return queued;
        }
        var batch = db.CreateBatch();
        var sent = queue(batch);
        batch.Execute();
        return sent;
    }

    public void Delete(string[] keys) => db.KeyDelete([.. keys.Select(k => (RedisKey)k)]);
    public void Dispose() { }
}

/// <summary>
/// FreeRedis keeps a pool of connections; a call borrows one for its round trip. StartPipe borrows
/// one connection, queues the commands and writes them together at EndPipe, which returns every
/// reply; Multi does the same inside MULTI/EXEC.
/// </summary>
sealed class FreeRedisClient(string host, int port) : IClient
{
    readonly FreeRedis.RedisClient client = new($"{host}:{port},database=0");
    public string Name => Versions.Of(typeof(FreeRedis.RedisClient));

    public void Set(Mode mode, string[] keys, byte[][] values)
    {
        switch (mode)
        {
            case Mode.NonTransaction:
                for (var k = 0; k < keys.Length; k++) client.Set(keys[k], values[k]);
                break;
            case Mode.Pipeline:
                using (var pipe = client.StartPipe())
                {
                    for (var k = 0; k < keys.Length; k++) pipe.Set(keys[k], values[k]);
                    pipe.EndPipe();
                }
                break;
            default:
                using (var transaction = client.Multi())
                {
                    for (var k = 0; k < keys.Length; k++) transaction.Set(keys[k], values[k]);
                    transaction.Exec();
                }
                break;
        }
    }

    public byte[]?[] Get(Mode mode, string[] keys)
    {
        switch (mode)
        {
            case Mode.NonTransaction:
                return [.. keys.Select(key => client.Get<byte[]>(key))];
            case Mode.Pipeline:
                using (var pipe = client.StartPipe())
                {
                    foreach (var key in keys) pipe.Get<byte[]>(key);
                    return Replies(pipe.EndPipe());
                }
            default:
                using (var transaction = client.Multi())
                {
                    foreach (var key in keys) transaction.Get<byte[]>(key);
                    return Replies(transaction.Exec());
                }
        }
    }

    static byte[]?[] Replies(object[] replies) => [.. replies.Select(r => r as byte[])];

    public void Delete(string[] keys) => client.Del(keys);
    public void Dispose() => client.Dispose();
}

/// <summary>
/// CSRedisCore's CSRedisClient keeps a pool of connections; a call borrows one. StartPipe queues
/// commands per connection and writes them together at EndPipe. Its pooled client has no MULTI/EXEC:
/// a transaction needs its single-connection CSRedis.RedisClient, which is what is timed here.
/// </summary>
sealed class CSRedisCoreClient(string host, int port) : IClient
{
    readonly CSRedis.CSRedisClient pooled = new($"{host}:{port},defaultDatabase=0,poolsize=4");
    readonly CSRedis.RedisClient single = new(host, port);
    public string Name => Versions.Of(typeof(CSRedis.CSRedisClient));

    public void Set(Mode mode, string[] keys, byte[][] values)
    {
        switch (mode)
        {
            case Mode.NonTransaction:
                for (var k = 0; k < keys.Length; k++) pooled.Set(keys[k], values[k]);
                break;
            case Mode.Pipeline:
                using (var pipe = pooled.StartPipe())
                {
                    for (var k = 0; k < keys.Length; k++) pipe.Set(keys[k], values[k]);
                    pipe.EndPipe();
                }
                break;
            default:
                single.Multi();
                for (var k = 0; k < keys.Length; k++) single.Set(keys[k], values[k]);
                single.Exec();
                break;
        }
    }

    public byte[]?[] Get(Mode mode, string[] keys)
    {
        switch (mode)
        {
            case Mode.NonTransaction:
                return [.. keys.Select(key => pooled.Get<byte[]>(key))];
            case Mode.Pipeline:
                using (var pipe = pooled.StartPipe())
                {
                    foreach (var key in keys) pipe.Get<byte[]>(key);
                    return [.. pipe.EndPipe().Select(r => r as byte[])];
                }
            default:
                single.Multi();
                foreach (var key in keys) single.GetBytes(key);
                return [.. single.Exec().Select(r => r as byte[])];
        }
    }

    public void Delete(string[] keys) => pooled.Del(keys);

    public void Dispose()
    {
        single.Dispose();
        pooled.Dispose();
    }
}
