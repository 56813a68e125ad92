namespace RedisVSDoublets;

/// <summary>How many ids or values a run reported, and their sum (wrapping, as in Rust).</summary>
internal struct Tally : IEquatable<Tally>
{
    public ulong Count;
    public ulong Sum;

    public void Add(ulong id)
    {
        Count++;
        Sum = unchecked(Sum + id);
    }

    public readonly bool Equals(Tally other) => Count == other.Count && Sum == other.Sum;
    public override readonly bool Equals(object? obj) => obj is Tally t && Equals(t);
    public override readonly int GetHashCode() => HashCode.Combine(Count, Sum);
    public override readonly string ToString() => $"{Count} ids summing to {Sum}";
}

/// <summary>Receives what a store found or changed; a struct sink costs no call through an interface.</summary>
internal interface ISink<T>
{
    void Add(in T found);
}

/// <summary>A request type of one suite: built from a spec verb, counted by the id of what it reports.</summary>
internal interface IRequest<TSelf, TFound> where TFound : IComparable<TFound>
{
    static abstract TSelf Build(string verb, ulong?[] args);
    static abstract ulong CountedAs(in TFound found);

    /// <summary>Whether the request only reads, so that concurrent clients may run it together.</summary>
    bool Reads { get; }

    /// <summary>Throws when any request of the batch cannot run; stores call it before the first write.</summary>
    static abstract void Validate(ReadOnlySpan<TSelf> batch);
}

/// <summary>A store that runs batches of requests: one batch is one benchmark iteration.</summary>
internal interface IStore<TRequest, TFound>
{
    void Run<TSink>(ReadOnlySpan<TRequest> batch, ref TSink sink) where TSink : struct, ISink<TFound>;

    /// <summary>Runs read-only requests for a check, by the fastest path the store has.</summary>
    void Check<TSink>(ReadOnlySpan<TRequest> batch, ref TSink sink) where TSink : struct, ISink<TFound> => Run(batch, ref sink);

    /// <summary>
    /// The store's own counts of what it holds (Redis: the keys in the database; doublets: its
    /// links). Probes check the ids an operation can reach; the census catches what lies beyond.
    /// </summary>
    string Census();

    /// <summary>
    /// A digest of everything the store holds, computed where the data is (doublets: its links, by
    /// the Rust core; Redis: DEBUG DIGEST), or null where it has none: its checks then read the
    /// whole background back.
    /// </summary>
    string? Digest() => null;

    /// <summary>
    /// Closes a durable store and opens it again from what it keeps (its files), for the check
    /// after each cell; false for a store that keeps nothing.
    /// </summary>
    bool Restart() => false;

    /// <summary>
    /// The store's own count of every change made to its data, by any client, where it keeps one
    /// that never goes back (else null): while it stays, nothing wrote, so a read-only cell that
    /// leaves it as the last check found it left the background as that check proved it.
    /// </summary>
    string? Changes() => null;

    /// <summary>
    /// What a server reports it has done so far (its INFO cpu commandstats reply, which the Rust
    /// side's split reads), or null for a store that reports nothing: an in-process one, or a
    /// server whose spec says why it does not (split_missing).
    /// </summary>
    string? Reading() => null;
}

/// <summary>The plain model a suite's stores are checked against.</summary>
internal interface IModel<TRequest, TFound> : IStore<TRequest, TFound>
{
    /// <summary>Read-only requests that pin the whole state down, probing ids at least up to <paramref name="upTo"/>.</summary>
    List<TRequest> Probes(ulong upTo);

    /// <summary>
    /// Read-only requests that pin down what lies around <paramref name="found"/> (what one
    /// operation reported): with the store's counts they show that undoing the operation restored
    /// it, without probing the whole background.
    /// </summary>
    List<TRequest> ProbesAround(IEnumerable<TFound> found);
}

internal struct TallySink<TRequest, TFound> : ISink<TFound>
    where TRequest : IRequest<TRequest, TFound>
    where TFound : IComparable<TFound>
{
    public Tally Tally;
    public void Add(in TFound found) => Tally.Add(TRequest.CountedAs(found));
}

internal readonly struct ListSink<T>(List<T> items) : ISink<T>
{
    public ListSink() : this([]) { }
    public List<T> Items => items;
    public void Add(in T found) => items.Add(found);
}

/// <summary>A request refused before anything was written.</summary>
internal sealed class RequestException(string message) : Exception(message);

internal readonly record struct Link(ulong Id, ulong Source, ulong Target) : IComparable<Link>
{
    public static Link Point(ulong id) => new(id, id, id);
    public int CompareTo(Link other) => (Id, Source, Target).CompareTo((other.Id, other.Source, other.Target));
}

internal readonly record struct Query(ulong? Id, ulong? Source, ulong? Target)
{
    public bool Matches(Link link) =>
        (Id is not { } i || i == link.Id) && (Source is not { } s || s == link.Source) && (Target is not { } t || t == link.Target);
}

internal enum LinkVerb { CreatePoint, Create, Update, Delete, Each }

/// <summary>The links-storage suite's requests, the same as the Rust side's LinkRequest.</summary>
internal readonly record struct LinkRequest(LinkVerb Verb, ulong Id, ulong Source, ulong Target, Query Query)
    : IRequest<LinkRequest, Link>
{
    /// <summary>Values stay below 2^63 so every store means the same number by them.</summary>
    public const ulong MaxValue = long.MaxValue;

    public static LinkRequest CreatePoint() => new(LinkVerb.CreatePoint, 0, 0, 0, default);
    public static LinkRequest Create(ulong source, ulong target) => new(LinkVerb.Create, 0, source, target, default);
    public static LinkRequest Update(ulong id, ulong source, ulong target) => new(LinkVerb.Update, id, source, target, default);
    public static LinkRequest Delete(ulong id) => new(LinkVerb.Delete, id, 0, 0, default);
    public static LinkRequest Each(Query query) => new(LinkVerb.Each, 0, 0, 0, query);

    static ulong Value(ulong?[] args, int k, string what) => args[k] switch
    {
        null => throw new RequestException($"{what} cannot be *"),
        > MaxValue and var v => throw new RequestException($"{what} {v} is above {MaxValue}"),
        var v => v.Value,
    };

    static ulong IdArg(ulong?[] args, int k) =>
        Value(args, k, "an id") is 0 ? throw new RequestException("an id cannot be 0 (null)") : args[k]!.Value;

    public static LinkRequest Build(string verb, ulong?[] args)
    {
        var arity = verb switch
        {
            "create_point" => 0,
            "delete" => 1,
            "create" => 2,
            "update" or "each" => 3,
            _ => throw new RequestException($"unknown request \"{verb}\" (links: create_point, create, update, delete, each)"),
        };
        if (args.Length != arity) throw new RequestException($"{verb} takes {arity} arguments, got {args.Length}");
        switch (verb)
        {
            case "create_point": return CreatePoint();
            case "create": return Create(Value(args, 0, "a source"), Value(args, 1, "a target"));
            case "update": return Update(IdArg(args, 0), Value(args, 1, "a source"), Value(args, 2, "a target"));
            case "delete": return Delete(IdArg(args, 0));
        }
        ulong? Part(int k) => args[k] is null ? null : IdArg(args, k);
        var query = new Query(Part(0), Part(1), Part(2));
        var valid = query switch
        {
            { Id: null, Source: null, Target: null } or { Id: not null, Source: null, Target: null } => true,
            { Id: null, Source: not null } or { Id: null, Target: not null } => true,
            _ => false,
        };
        return valid ? Each(query) : throw new RequestException("a query names an id alone, or a source and/or a target, or nothing");
    }

    public static ulong CountedAs(in Link found) => found.Id;

    public bool Reads => Verb == LinkVerb.Each;

    public static void Validate(ReadOnlySpan<LinkRequest> batch) { }
}

internal readonly record struct Entry(ulong Key, ulong Value) : IComparable<Entry>
{
    public int CompareTo(Entry other) => (Key, Value).CompareTo((other.Key, other.Value));
}

internal enum UsageVerb { Get, Set, Del, Incr, RPush, LPush, LPop, RPop, SAdd, SRem, SIsMember, Queue, Members }

/// <summary>The typical-usage suite's requests, the same as the Rust side's UsageRequest.</summary>
internal readonly record struct UsageRequest(UsageVerb Verb, ulong Key, ulong Value) : IRequest<UsageRequest, Entry>
{
    /// <summary>Keys, values and members run from 1 to the largest Redis counter.</summary>
    public const ulong Max = long.MaxValue;

    public static UsageRequest Build(string verb, ulong?[] args)
    {
        var (kind, arity) = verb switch
        {
            "get" => (UsageVerb.Get, 1), "set" => (UsageVerb.Set, 2), "del" => (UsageVerb.Del, 1), "incr" => (UsageVerb.Incr, 1),
            "rpush" => (UsageVerb.RPush, 1), "lpush" => (UsageVerb.LPush, 1), "lpop" => (UsageVerb.LPop, 0), "rpop" => (UsageVerb.RPop, 0),
            "sadd" => (UsageVerb.SAdd, 1), "srem" => (UsageVerb.SRem, 1), "sismember" => (UsageVerb.SIsMember, 1),
            "queue" => (UsageVerb.Queue, 0), "members" => (UsageVerb.Members, 0),
            _ => throw new RequestException($"unknown request \"{verb}\" (typical: get, set, del, incr, rpush, lpush, lpop, rpop, sadd, srem, sismember, queue, members)"),
        };
        if (args.Length != arity) throw new RequestException($"{verb} takes {arity} arguments, got {args.Length}");
        if (args.Any(a => a is null)) throw new RequestException($"{verb} takes numbers, not *");
        var request = kind == UsageVerb.Set ? new UsageRequest(kind, args[0]!.Value, args[1]!.Value)
            : new UsageRequest(kind, arity == 1 ? args[0]!.Value : 0, 0);
        request.CheckNumbers();
        return request;
    }

    /// <summary>The numbers a request carries: a key and a value for SET, one number for the rest that take one.</summary>
    public void CheckNumbers()
    {
        switch (Verb)
        {
            case UsageVerb.LPop or UsageVerb.RPop or UsageVerb.Queue or UsageVerb.Members: return;
            case UsageVerb.Set: Check(this, Key); Check(this, Value); return;
            default: Check(this, Key); return;
        }
        static void Check(UsageRequest request, ulong n)
        {
            if (n is < 1 or > Max) throw new RequestException($"{request}: {n} is not from 1 to {Max}; keys, values and members must be");
        }
    }

    public static ulong CountedAs(in Entry found) => found.Value;

    public bool Reads => Verb is UsageVerb.Get or UsageVerb.SIsMember or UsageVerb.Queue or UsageVerb.Members;

    public static void Validate(ReadOnlySpan<UsageRequest> batch)
    {
        foreach (var request in batch) request.CheckNumbers();
    }
}
