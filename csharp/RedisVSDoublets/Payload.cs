namespace RedisVSDoublets;

/// <summary>What a payload request reports: a key and a number (a value's size, a counter, or how many keys a DEL removed).</summary>
internal readonly record struct Stored(ulong Key, ulong Value) : IComparable<Stored>
{
    public int CompareTo(Stored other) => (Key, Value).CompareTo((other.Key, other.Value));
}

internal enum PayloadVerb { Set, Get, Incr, Counter, Del }

/// <summary>
/// The payload suite's requests, the same as the Rust side's PayloadRequest: values of real sizes
/// under p:{key}, each key's counter under n:{key}. A value is built once, before anything is
/// measured, and shared by the requests that write or expect it.
/// </summary>
internal readonly record struct PayloadRequest(PayloadVerb Verb, ulong Key, byte[] Value) : IRequest<PayloadRequest, Stored>
{
    public const ulong MaxKey = long.MaxValue;
    /// <summary>The largest value a request may write: 1 MiB keeps a whole iteration well within memory.</summary>
    public const ulong MaxSize = 1 << 20;

    public static PayloadRequest Build(string verb, ulong?[] args)
    {
        var (kind, arity) = verb switch
        {
            "set" => (PayloadVerb.Set, 2), "get" => (PayloadVerb.Get, 2), "incr" => (PayloadVerb.Incr, 1), "del" => (PayloadVerb.Del, 1),
            _ => throw new RequestException($"unknown request \"{verb}\" (payload: set, get, incr, del)"),
        };
        if (args.Length != arity) throw new RequestException($"{verb} takes {arity} arguments, got {args.Length}");
        if (args.Any(a => a is null)) throw new RequestException($"{verb} takes numbers, not *");
        var key = args[0]!.Value;
        if (key is < 1 or > MaxKey) throw new RequestException($"{verb}: the key {key} is not from 1 to {MaxKey}");
        if (arity == 1) return new(kind, key, []);
        var size = args[1]!.Value;
        if (size is < 1 or > MaxSize) throw new RequestException($"{verb}: a value of {size} bytes is not from 1 to {MaxSize} bytes");
        return new(kind, key, Values.Of(key, (int)size));
    }

    public static ulong CountedAs(in Stored found) => found.Key;

    public bool Reads => Verb is PayloadVerb.Get or PayloadVerb.Counter;

    public static void Validate(ReadOnlySpan<PayloadRequest> batch) { }

    public override string ToString() => Verb is PayloadVerb.Set or PayloadVerb.Get ? $"{Verb} p:{Key} ({Value.Length} bytes)" : $"{Verb} {Key}";
}

internal static class Values
{
    /// <summary>
    /// The bytes <paramref name="key"/> holds at <paramref name="size"/> bytes: splitmix64's stream
    /// seeded by the key, so values differ per key and carry every byte from 0 to 255 (a text
    /// encoding would change them); the Rust side makes the same bytes.
    /// </summary>
    public static byte[] Of(ulong key, int size)
    {
        const ulong golden = 0x9E3779B97F4A7C15;
        var bytes = new byte[size];
        var state = unchecked(key * golden);
        Span<byte> block = stackalloc byte[8];
        for (var at = 0; at < size; at += 8)
        {
            state = unchecked(state + golden);
            var z = state;
            z = unchecked((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9);
            z = unchecked((z ^ (z >> 27)) * 0x94D049BB133111EB);
            z ^= z >> 31;
            System.Buffers.Binary.BinaryPrimitives.WriteUInt64LittleEndian(block, z);
            block[..Math.Min(8, size - at)].CopyTo(bytes.AsSpan(at));
        }
        return bytes;
    }

    /// <summary>What is wrong with <paramref name="found"/> as the reply to GET <paramref name="key"/>, or null when it is exactly <paramref name="expected"/>.</summary>
    public static string? Difference(string key, ReadOnlySpan<byte> expected, ReadOnlySpan<byte> found)
    {
        var at = expected.CommonPrefixLength(found);
        if (at == expected.Length && at == found.Length) return null;
        if (at == Math.Min(expected.Length, found.Length))
            return $"GET {key} returned {found.Length} bytes, expected {expected.Length} (equal up to byte {at})";
        return $"GET {key}: byte {at} is 0x{found[at]:x2}, expected 0x{expected[at]:x2}";
    }
}

/// <summary>The plain model of the payload suite: which keys hold a value of what size, and the counters.</summary>
internal sealed class PayloadModel : IModel<PayloadRequest, Stored>
{
    readonly SortedDictionary<ulong, int> sizes = [];
    readonly SortedDictionary<ulong, ulong> counters = [];

    public void Run<TSink>(ReadOnlySpan<PayloadRequest> batch, ref TSink sink) where TSink : struct, ISink<Stored>
    {
        foreach (var r in batch)
        {
            switch (r.Verb)
            {
                case PayloadVerb.Set:
                    sizes[r.Key] = r.Value.Length;
                    sink.Add(new Stored(r.Key, (ulong)r.Value.Length));
                    break;
                case PayloadVerb.Get when sizes.TryGetValue(r.Key, out var size):
                    if (size != r.Value.Length) throw new RequestException($"GET p:{r.Key} holds {size} bytes, but the request expects {r.Value.Length}");
                    sink.Add(new Stored(r.Key, (ulong)size));
                    break;
                case PayloadVerb.Incr:
                    counters[r.Key] = counters.GetValueOrDefault(r.Key) + 1;
                    sink.Add(new Stored(r.Key, counters[r.Key]));
                    break;
                case PayloadVerb.Counter when counters.TryGetValue(r.Key, out var count):
                    sink.Add(new Stored(r.Key, count));
                    break;
                case PayloadVerb.Del:
                    var removed = (sizes.Remove(r.Key) ? 1UL : 0) + (counters.Remove(r.Key) ? 1UL : 0);
                    if (removed > 0) sink.Add(new Stored(r.Key, removed));
                    break;
            }
        }
    }

    public string Census() => $"{sizes.Count + counters.Count} keys";

    /// <summary>GET of the key's value (of no bytes where it holds none, so any value fails it) and of its counter.</summary>
    void Probe(ulong key, List<PayloadRequest> probes)
    {
        probes.Add(new(PayloadVerb.Get, key, Values.Of(key, sizes.GetValueOrDefault(key))));
        probes.Add(new(PayloadVerb.Counter, key, []));
    }

    public List<PayloadRequest> Probes(ulong upTo)
    {
        var last = Math.Max(upTo, Math.Max(sizes.Count > 0 ? sizes.Keys.Last() : 0, counters.Count > 0 ? counters.Keys.Last() : 0));
        var probes = new List<PayloadRequest>();
        for (ulong key = 1; key <= last; key++) Probe(key, probes);
        return probes;
    }

    public List<PayloadRequest> ProbesAround(IEnumerable<Stored> found)
    {
        var probes = new List<PayloadRequest>();
        foreach (var key in found.Select(f => f.Key).Distinct()) Probe(key, probes);
        return probes;
    }
}

/// <summary>Payload requests as the commands a cache's user sends; a GET's reply must be exactly the value written.</summary>
internal struct PayloadCodec : IRedisCodec<PayloadRequest, Stored>
{
    public static string[] Keys { get; } = ["p:*", "n:*"];

    public readonly Command Command(in PayloadRequest r, Calls calls) => r.Verb switch
    {
        PayloadVerb.Set => new("SET", [$"p:{r.Key}", r.Value]),
        PayloadVerb.Get => new("GET", [$"p:{r.Key}"], Bytes: true),
        PayloadVerb.Incr => new("INCR", [$"n:{r.Key}"]),
        PayloadVerb.Counter => new("GET", [$"n:{r.Key}"]),
        _ => new("DEL", [$"p:{r.Key}", $"n:{r.Key}"]),
    };

    public readonly void Decode<TSink>(in PayloadRequest r, Reply reply, ref TSink sink) where TSink : struct, ISink<Stored>
    {
        switch (r.Verb)
        {
            case PayloadVerb.Set:
                if (!reply.IsOk) throw new InvalidOperationException($"{r}: expected OK, got {reply}");
                sink.Add(new Stored(r.Key, (ulong)r.Value.Length));
                break;
            case PayloadVerb.Get when !reply.IsNull:
                var bytes = reply.Bytes();
                if (Values.Difference($"p:{r.Key}", r.Value, bytes) is { } wrong) throw new ValidationException(wrong);
                sink.Add(new Stored(r.Key, (ulong)bytes.Length));
                break;
            case PayloadVerb.Incr:
                sink.Add(new Stored(r.Key, reply.Number()));
                break;
            case PayloadVerb.Counter when !reply.IsNull:
                sink.Add(new Stored(r.Key, reply.Number()));
                break;
            case PayloadVerb.Del when reply.Number() is var removed && removed > 0:
                sink.Add(new Stored(r.Key, removed));
                break;
        }
    }
}
