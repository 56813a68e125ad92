namespace RedisVSDoublets;

/// <summary>
/// The plain model of a links store, with doublets' id reuse (most recently deleted first; deleting
/// the highest id shrinks the range past every free id below it). It refuses duplicate
/// (source, target) pairs, which corrupt doublets' indexes, so every workload runs here first.
/// </summary>
internal sealed class LinksModel : IModel<LinkRequest, Link>
{
    readonly SortedDictionary<ulong, (ulong Source, ulong Target)> links = [];
    readonly SortedSet<(ulong, ulong)> outgoing = [];
    readonly SortedSet<(ulong, ulong)> incoming = [];
    readonly Dictionary<(ulong, ulong), ulong> pairs = [];
    readonly List<ulong> free = [];
    ulong allocated;

    public int Count => links.Count;
    public ulong NextId => free.Count > 0 ? free[^1] : allocated + 1;
    public IEnumerable<Link> Links => links.Select(l => new Link(l.Key, l.Value.Source, l.Value.Target));
    public ulong? Search(ulong source, ulong target) => pairs.TryGetValue((source, target), out var id) ? id : null;
    public Link? Get(ulong id) => links.TryGetValue(id, out var l) ? new Link(id, l.Source, l.Target) : null;

    void Index(ulong id, ulong source, ulong target)
    {
        if (source != 0 && target != 0)
        {
            if (Search(source, target) is { } other)
                throw new RequestException($"({source}, {target}) would duplicate link {other}: doublets corrupts its indexes on duplicate pairs");
            pairs[(source, target)] = id;
        }
        if (source != 0) outgoing.Add((source, id));
        if (target != 0) incoming.Add((target, id));
        links[id] = (source, target);
    }

    void Unindex(ulong id)
    {
        if (!links.Remove(id, out var link)) throw new RequestException($"link {id} does not exist");
        pairs.Remove((link.Source, link.Target));
        outgoing.Remove((link.Source, id));
        incoming.Remove((link.Target, id));
    }

    Link Create(ulong? source, ulong? target)
    {
        var id = NextId;
        var link = new Link(id, source ?? id, target ?? id);
        Index(id, link.Source, link.Target);
        if (free.Count > 0 && free[^1] == id) free.RemoveAt(free.Count - 1);
        else allocated++;
        return link;
    }

    Link Delete(ulong id)
    {
        Unindex(id);
        if (id < allocated) free.Add(id);
        else
        {
            allocated--;
            while (allocated > 0 && !links.ContainsKey(allocated))
            {
                free.Remove(allocated);
                allocated--;
            }
        }
        return new Link(id, 0, 0);
    }

    public string Census() => $"{links.Count} links";

    public void Run<TSink>(ReadOnlySpan<LinkRequest> batch, ref TSink sink) where TSink : struct, ISink<Link>
    {
        foreach (var r in batch)
        {
            switch (r.Verb)
            {
                case LinkVerb.CreatePoint: sink.Add(Create(null, null)); break;
                case LinkVerb.Create: sink.Add(Create(r.Source, r.Target)); break;
                case LinkVerb.Update:
                    var before = Get(r.Id) ?? throw new RequestException($"link {r.Id} does not exist");
                    Unindex(r.Id);
                    try { Index(r.Id, r.Source, r.Target); }
                    catch (RequestException) { Index(r.Id, before.Source, before.Target); throw; }
                    sink.Add(new Link(r.Id, r.Source, r.Target));
                    break;
                case LinkVerb.Delete: sink.Add(Delete(r.Id)); break;
                default:
                    foreach (var link in Each(r.Query)) sink.Add(link);
                    break;
            }
        }
    }

    IEnumerable<Link> Each(Query q)
    {
        IEnumerable<ulong> ids = q switch
        {
            { Id: { } id } => [id],
            { Source: { } s, Target: { } t } => Search(s, t) is { } found ? [found] : [],
            { Source: { } s } => outgoing.GetViewBetween((s, 0), (s, ulong.MaxValue)).Select(p => p.Item2),
            { Target: { } t } => incoming.GetViewBetween((t, 0), (t, ulong.MaxValue)).Select(p => p.Item2),
            _ => links.Keys,
        };
        return ids.Select(Get).OfType<Link>().Where(q.Matches).ToList();
    }

    public List<LinkRequest> Probes(ulong upTo)
    {
        var probes = new List<LinkRequest> { LinkRequest.Each(default) };
        for (ulong id = 1; id <= Math.Max(allocated, upTo); id++)
        {
            probes.Add(LinkRequest.Each(new Query(id, null, null)));
            probes.Add(LinkRequest.Each(new Query(null, id, null)));
            probes.Add(LinkRequest.Each(new Query(null, null, id)));
        }
        foreach (var link in Links)
            if (link.Source != 0 && link.Target != 0) probes.Add(LinkRequest.Each(new Query(null, link.Source, link.Target)));
        return probes;
    }

    /// <summary>Every id a found link names (itself, its source, its target), probed three ways, and the pairs of the links the model holds at those ids.</summary>
    public List<LinkRequest> ProbesAround(IEnumerable<Link> found)
    {
        var probes = new List<LinkRequest>();
        foreach (var id in new SortedSet<ulong>(found.SelectMany(l => new[] { l.Id, l.Source, l.Target }).Where(id => id != 0)))
        {
            probes.Add(LinkRequest.Each(new Query(id, null, null)));
            probes.Add(LinkRequest.Each(new Query(null, id, null)));
            probes.Add(LinkRequest.Each(new Query(null, null, id)));
            if (links.TryGetValue(id, out var link) && link.Source != 0 && link.Target != 0)
                probes.Add(LinkRequest.Each(new Query(null, link.Source, link.Target)));
        }
        return probes;
    }
}

/// <summary>The plain model of the typical-usage structures.</summary>
internal sealed class UsageModel : IModel<UsageRequest, Entry>
{
    readonly SortedDictionary<ulong, ulong> map = [];
    readonly LinkedList<ulong> queue = [];
    readonly SortedSet<ulong> set = [];

    public ulong? Get(ulong key) => map.TryGetValue(key, out var v) ? v : null;
    public IEnumerable<ulong> Queue => queue;

    public string Census() => $"{map.Count} keys, {queue.Count} queue items, {set.Count} members";

    public void Run<TSink>(ReadOnlySpan<UsageRequest> batch, ref TSink sink) where TSink : struct, ISink<Entry>
    {
        UsageRequest.Validate(batch);
        foreach (var r in batch)
        {
            switch (r.Verb)
            {
                case UsageVerb.Get: if (Get(r.Key) is { } v) sink.Add(new Entry(r.Key, v)); break;
                case UsageVerb.Set: map[r.Key] = r.Value; sink.Add(new Entry(r.Key, r.Value)); break;
                case UsageVerb.Del: if (map.Remove(r.Key)) sink.Add(new Entry(r.Key, r.Key)); break;
                case UsageVerb.Incr:
                    var value = Get(r.Key) ?? 0;
                    if (value >= UsageRequest.Max) throw new RequestException($"INCR {r.Key}: {value} + 1 would overflow");
                    map[r.Key] = value + 1;
                    sink.Add(new Entry(r.Key, value + 1));
                    break;
                case UsageVerb.RPush: queue.AddLast(r.Key); sink.Add(new Entry(0, r.Key)); break;
                case UsageVerb.LPush: queue.AddFirst(r.Key); sink.Add(new Entry(0, r.Key)); break;
                case UsageVerb.LPop:
                    if (queue.First is { } first) { queue.RemoveFirst(); sink.Add(new Entry(0, first.Value)); }
                    break;
                case UsageVerb.RPop:
                    if (queue.Last is { } last) { queue.RemoveLast(); sink.Add(new Entry(0, last.Value)); }
                    break;
                case UsageVerb.SAdd: if (set.Add(r.Key)) sink.Add(new Entry(0, r.Key)); break;
                case UsageVerb.SRem: if (set.Remove(r.Key)) sink.Add(new Entry(0, r.Key)); break;
                case UsageVerb.SIsMember: if (set.Contains(r.Key)) sink.Add(new Entry(0, r.Key)); break;
                case UsageVerb.Queue:
                    ulong position = 1;
                    foreach (var item in queue) sink.Add(new Entry(position++, item));
                    break;
                case UsageVerb.Members:
                    foreach (var member in set) sink.Add(new Entry(0, member));
                    break;
            }
        }
    }

    public List<UsageRequest> Probes(ulong upTo)
    {
        var keys = new SortedSet<ulong>(map.Keys);
        var members = new SortedSet<ulong>(set);
        for (ulong k = 1; k <= upTo; k++) { keys.Add(k); members.Add(k); }
        var probes = new List<UsageRequest> { new(UsageVerb.Queue, 0, 0), new(UsageVerb.Members, 0, 0) };
        probes.AddRange(keys.Select(k => new UsageRequest(UsageVerb.Get, k, 0)));
        probes.AddRange(members.Select(m => new UsageRequest(UsageVerb.SIsMember, m, 0)));
        return probes;
    }

    /// <summary>The whole queue and set (one request each), and every number a found entry names, as a key and as a member.</summary>
    public List<UsageRequest> ProbesAround(IEnumerable<Entry> found)
    {
        var numbers = new SortedSet<ulong>(found.SelectMany(e => new[] { e.Key, e.Value }).Where(n => n is >= 1 and <= UsageRequest.Max));
        var probes = new List<UsageRequest> { new(UsageVerb.Queue, 0, 0), new(UsageVerb.Members, 0, 0) };
        probes.AddRange(numbers.Select(k => new UsageRequest(UsageVerb.Get, k, 0)));
        probes.AddRange(numbers.Select(m => new UsageRequest(UsageVerb.SIsMember, m, 0)));
        return probes;
    }
}
