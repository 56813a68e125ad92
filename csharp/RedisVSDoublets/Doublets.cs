using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

namespace RedisVSDoublets;

/// <summary>
/// The Rust doublets 0.18 core through its C ABI (rust/ffi): Platform.Data.Doublets cannot be
/// restored from this project's package sources. Blittable arguments, source-generated marshalling
/// and a function-pointer callback: a call allocates nothing.
/// </summary>
internal static unsafe partial class Native
{
    internal const string Library = "doublets_ffi";

    public enum Status { Ok = 0, NotFound = 1, Failed = 2, BadArgument = 3, Panicked = 4 }

    [LibraryImport(Library, EntryPoint = "doublets_new")] public static partial Status New(int layout, int external, out nint store);
    [LibraryImport(Library, EntryPoint = "doublets_open")] public static partial Status Open(int layout, int external, nint folder, byte* name, nuint nameLength, out nint store);
    [LibraryImport(Library, EntryPoint = "doublets_restart")] public static partial Status Restart(nint store);
    [LibraryImport(Library, EntryPoint = "durable_folder")]
    public static partial Status DurableFolder(byte* root, nuint rootLength, byte* variables, nuint variablesLength, byte* families, nuint familiesLength, ulong* sizes, nuint sizesLength, out nint folder, byte* into, nuint capacity, out nuint written);
    [LibraryImport(Library, EntryPoint = "durable_folder_free")] public static partial void DurableFolderFree(nint folder);
    [LibraryImport(Library, EntryPoint = "durable_folder_path")] public static partial Status DurableFolderPath(nint folder, byte* into, nuint capacity, out nuint written);
    [LibraryImport(Library, EntryPoint = "durable_folder_kills")] public static partial int DurableFolderKills(nint folder);
    [LibraryImport(Library, EntryPoint = "durable_remove_all")] public static partial void DurableRemoveAll();
    [LibraryImport(Library, EntryPoint = "network_open")]
    public static partial Status NetworkOpen(byte* name, nuint nameLength, ulong roundTripUs, ushort port, out nint network, byte* into, nuint capacity, out nuint written);
    [LibraryImport(Library, EntryPoint = "network_describe")]
    public static partial Status NetworkDescribe(nint network, byte* name, nuint nameLength, byte* url, nuint urlLength, byte* into, nuint capacity, out nuint written);
    [LibraryImport(Library, EntryPoint = "network_free")] public static partial void NetworkFree(nint network);
    [LibraryImport(Library, EntryPoint = "network_remove_all")] public static partial void NetworkRemoveAll();
    [LibraryImport(Library, EntryPoint = "doublets_free")] public static partial void Free(nint store);
    [LibraryImport(Library, EntryPoint = "doublets_any")] public static partial ulong Any(nint store);
    [LibraryImport(Library, EntryPoint = "doublets_create_point")] public static partial Status CreatePoint(nint store, out ulong id);
    [LibraryImport(Library, EntryPoint = "doublets_create_link")] public static partial Status CreateLink(nint store, ulong source, ulong target, out ulong id);
    [LibraryImport(Library, EntryPoint = "doublets_update")] public static partial Status Update(nint store, ulong id, ulong source, ulong target);
    [LibraryImport(Library, EntryPoint = "doublets_delete")] public static partial Status Delete(nint store, ulong id);
    [LibraryImport(Library, EntryPoint = "doublets_get")] public static partial Status Get(nint store, ulong id, out ulong source, out ulong target);
    [LibraryImport(Library, EntryPoint = "doublets_count")] public static partial Status Count(nint store, ulong index, ulong source, ulong target, out ulong count);
    [LibraryImport(Library, EntryPoint = "doublets_digest")] public static partial Status Digest(nint store, out ulong digest);
    [LibraryImport(Library, EntryPoint = "doublets_search")] public static partial Status Search(nint store, ulong source, ulong target, out ulong id);
    [LibraryImport(Library, EntryPoint = "doublets_each")]
    public static partial Status Each(nint store, ulong index, ulong source, ulong target, delegate* unmanaged<void*, ulong, ulong, ulong, int> callback, void* context);
}

internal enum Layout { United = 0, Split = 1 }

/// <summary>
/// Where the durable stores keep their files: the run's temporary folder, made by the Rust side as
/// the Rust bench makes it (inside the spec's durable_dir_env, refused on tmpfs unless
/// durable_tmpfs_env is 1, and when its disk has less free space than the stores need), each
/// store's files in a folder of their own. Disposing it removes it, with whatever is left in it;
/// <see cref="RemoveAll"/> does the same for an interrupt.
/// </summary>
internal sealed unsafe class DurableFolder : IDisposable
{
    nint handle;

    /// <summary>The folder it lies in, that folder's file system and device, and the disk's fsync latency, for the conditions.</summary>
    public string Describe { get; }

    public nint Handle => handle;

    /// <summary>Whether durable stores stop before a restart as a crash leaves them (a server gets SIGKILL) rather than closed (SIGTERM).</summary>
    public bool Kills => Native.DurableFolderKills(handle) == 1;

    /// <summary>The run's folder itself: a store's files lie in the folder named after it there.</summary>
    public string Path
    {
        get
        {
            var into = new byte[4096];
            nuint written;
            fixed (byte* pi = into)
                if (Native.DurableFolderPath(handle, pi, (nuint)into.Length, out written) != Native.Status.Ok)
                    throw new InvalidOperationException("the durable folder has no path: it was removed");
            return System.Text.Encoding.UTF8.GetString(into, 0, (int)written);
        }
    }

    public DurableFolder(string root, Spec spec, IEnumerable<string> families, ulong[] sizes, Func<string, string?> get)
    {
        // The durable variables that are set, as NAME=value lines: the Rust side reads and refuses them.
        var variables = new[] { spec.File.DurableDirEnv, spec.File.DurableTmpfsEnv, spec.File.DurableStopEnv }
            .Where(name => name.Length > 0 && get(name) is not null).Select(name => $"{name}={get(name)}");
        var (r, d, f, into) = (System.Text.Encoding.UTF8.GetBytes(root), System.Text.Encoding.UTF8.GetBytes(string.Join("\n", variables)),
            System.Text.Encoding.UTF8.GetBytes(string.Join(",", families)), new byte[4096]);
        Native.Status status;
        nuint written;
        fixed (byte* pr = r)
        fixed (byte* pd = d)
        fixed (byte* pf = f)
        fixed (ulong* ps = sizes)
        fixed (byte* pi = into)
            status = Native.DurableFolder(pr, (nuint)r.Length, pd, (nuint)d.Length, pf, (nuint)f.Length, ps, (nuint)sizes.Length, out handle, pi, (nuint)into.Length, out written);
        var text = System.Text.Encoding.UTF8.GetString(into, 0, (int)Math.Min(written, (nuint)into.Length));
        if (status != Native.Status.Ok) throw new ArgumentException(text);
        Describe = text;
    }

    /// <summary>Held so that the registrations live as long as the process.</summary>
    static readonly PosixSignalRegistration[] signals;

    // However the run ends, its folders go (a static constructor, so that they are registered
    // before the first folder is made).
    static DurableFolder() => signals = AtEnd.Clean(RemoveAll);

    /// <summary>For an interrupt: removes every run folder that exists now.</summary>
    public static void RemoveAll() => Native.DurableRemoveAll();

    public void Dispose()
    {
        if (handle != 0) Native.DurableFolderFree(handle);
        handle = 0;
    }
}

/// <summary>One doublets store: the calls the C# stores build on, with errors as exceptions.</summary>
internal sealed unsafe class NativeStore : IDisposable
{
    nint handle;
    // A buffer per thread: concurrent readers of one store (the load's) each enumerate into their own.
    [ThreadStatic] static Link[]? buffer;

    public ulong Any { get; }

    /// <summary>The native store, for experiments that call the C ABI directly.</summary>
    public nint Handle => handle;

    /// <summary>Whether durable stores stop before a restart as a crash leaves them (a server gets SIGKILL) rather than closed (SIGTERM).</summary>
    public bool Kills => Native.DurableFolderKills(handle) == 1;

    /// <summary>
    /// Creating a store reserves and zero-fills 64 MiB (united) or 80 MiB (split): on the heap, or,
    /// given a durable folder, in files mapped from a folder of their own named
    /// <paramref name="name"/> in it, removed when the store is disposed.
    /// </summary>
    public NativeStore(Layout layout, bool external, DurableFolder? folder = null, string name = "")
    {
        if (folder is null) Check(Native.New((int)layout, external ? 1 : 0, out handle), "creating a store");
        else
        {
            var bytes = System.Text.Encoding.UTF8.GetBytes(name);
            fixed (byte* pn = bytes)
                Check(Native.Open((int)layout, external ? 1 : 0, folder.Handle, pn, (nuint)bytes.Length, out handle), $"opening the files of {name} in {folder.Describe}");
        }
        Any = Native.Any(handle);
    }

    /// <summary>Closes a durable store and opens it again from its files (synced first), as the Rust stores do; false for a store on the heap.</summary>
    public bool Restart()
    {
        var status = Native.Restart(handle);
        if (status == Native.Status.NotFound) return false;
        Check(status, "closing the store and opening it again from its files");
        return true;
    }

    static void Check(Native.Status status, string what, ulong id = 0)
    {
        switch (status)
        {
            case Native.Status.Ok: return;
            case Native.Status.NotFound: throw new RequestException($"link {id} does not exist");
            default: throw new InvalidOperationException($"doublets failed {what}: {status}");
        }
    }

    public ulong CreatePoint() { Check(Native.CreatePoint(handle, out var id), "creating a point"); return id; }
    public ulong CreateLink(ulong source, ulong target) { Check(Native.CreateLink(handle, source, target, out var id), "creating a link"); return id; }
    public void Update(ulong id, ulong source, ulong target) => Check(Native.Update(handle, id, source, target), "updating", id);
    public void Delete(ulong id) => Check(Native.Delete(handle, id), "deleting", id);
    public ulong Search(ulong source, ulong target) { Check(Native.Search(handle, source, target, out var id), "searching"); return id; }
    public ulong Count() { Check(Native.Count(handle, Any, Any, Any, out var count), "counting"); return count; }
    /// <summary>The Rust stores' own digest of every link (rust/src/digest.rs), as they show it.</summary>
    public string Digest() { Check(Native.Digest(handle, out var digest), "hashing"); return digest.ToString("x16"); }

    public (ulong Source, ulong Target) Get(ulong id)
    {
        Check(Native.Get(handle, id, out var source, out var target), "reading", id);
        return (source, target);
    }

    /// <summary>
    /// The links matching [index, source, target], in a buffer the thread's next call reuses. The callback
    /// writes each link into the buffer through a plain pointer (no handle to this object, no list),
    /// so a query costs what the C ABI costs; a buffer too small stops the enumeration, grows and
    /// runs the (read-only) query again, which happens only until it fits the largest answer.
    /// </summary>
    public ReadOnlySpan<Link> Each(ulong index, ulong source, ulong target)
    {
        buffer ??= new Link[1024];
        while (true)
        {
            var collector = new Collector { Capacity = buffer.Length };
            fixed (Link* data = buffer)
            {
                collector.Data = data;
                Check(Native.Each(handle, index, source, target, &Collect, &collector), "enumerating");
            }
            if (collector.Count <= collector.Capacity) return buffer.AsSpan(0, (int)collector.Count);
            buffer = new Link[buffer.Length * 2];
        }
    }

    /// <summary>
    /// Counts and sums the ids of the links matching [index, source, target] into
    /// <paramref name="tally"/> inside the callback itself, as a bare loop over the C ABI would sum
    /// them: the measured path, which needs no link kept.
    /// </summary>
    public void EachTally(ulong index, ulong source, ulong target, ref Tally tally)
    {
        fixed (Tally* into = &tally)
            Check(Native.Each(handle, index, source, target, &Count, into), "enumerating");
    }

    [UnmanagedCallersOnly]
    static int Count(void* context, ulong id, ulong source, ulong target)
    {
        ((Tally*)context)->Add(id);
        return 1;
    }

    struct Collector
    {
        public Link* Data;
        public long Count;
        public long Capacity;
    }

    [UnmanagedCallersOnly]
    static int Collect(void* context, ulong id, ulong source, ulong target)
    {
        var collector = (Collector*)context;
        if (collector->Count == collector->Capacity)
        {
            collector->Count++; // more than fit: the caller grows the buffer and asks again
            return 0;
        }
        collector->Data[collector->Count++] = new Link(id, source, target);
        return 1;
    }

    public void Dispose()
    {
        if (handle != 0) Native.Free(handle);
        handle = 0;
    }
}

/// <summary>Links in a doublets store.</summary>
internal sealed class DoubletsLinks(Layout layout, DurableFolder? folder = null, string name = "") : IStore<LinkRequest, Link>, IDisposable
{
    readonly NativeStore store = new(layout, external: false, folder, name);

    /// <summary>The doublets store underneath, for experiments that call it directly.</summary>
    public NativeStore Core => store;

    public void Run<TSink>(ReadOnlySpan<LinkRequest> batch, ref TSink sink) where TSink : struct, ISink<Link>
    {
        var any = store.Any;
        foreach (var r in batch)
        {
            switch (r.Verb)
            {
                case LinkVerb.CreatePoint: sink.Add(Link.Point(store.CreatePoint())); break;
                case LinkVerb.Create: sink.Add(new Link(store.CreateLink(r.Source, r.Target), r.Source, r.Target)); break;
                case LinkVerb.Update: store.Update(r.Id, r.Source, r.Target); sink.Add(new Link(r.Id, r.Source, r.Target)); break;
                case LinkVerb.Delete: store.Delete(r.Id); sink.Add(new Link(r.Id, 0, 0)); break;
                // Measured iterations only tally what they find (the id of each link): the callback
                // tallies it directly instead of collecting the links first, which cost the
                // queries 1.2–1.4× a bare loop over the C ABI. Checks collect the links themselves.
                case LinkVerb.Each when typeof(TSink) == typeof(TallySink<LinkRequest, Link>):
                    store.EachTally(r.Query.Id ?? any, r.Query.Source ?? any, r.Query.Target ?? any,
                        ref Unsafe.As<TSink, TallySink<LinkRequest, Link>>(ref sink).Tally);
                    break;
                default:
                    foreach (var link in store.Each(r.Query.Id ?? any, r.Query.Source ?? any, r.Query.Target ?? any)) sink.Add(link);
                    break;
            }
        }
    }

    public string Census() => $"{store.Count()} links";

    public string? Digest() => store.Digest();

    public bool Restart() => store.Restart();

    public void Dispose() => store.Dispose();
}

/// <summary>
/// The typical-usage structures as links, exactly as the Rust side keeps them: numbers are external
/// references; a key-value pair is (key, value); a member is (set, member) with `set` a point link;
/// the queue is a singly linked list of nodes (next, value) with a head link (first, last). Every
/// change is ordered so no two links ever share a (source, target) pair.
/// </summary>
internal sealed class DoubletsUsage : IStore<UsageRequest, Entry>, IDisposable
{
    const ulong Half = ulong.MaxValue / 2;
    readonly NativeStore store;
    readonly ulong any, set, queue;

    public DoubletsUsage(Layout layout, DurableFolder? folder = null, string name = "")
    {
        store = new NativeStore(layout, external: true, folder, name);
        any = store.Any;
        set = store.CreatePoint();
        queue = store.CreateLink(0, 0);
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    static ulong Raw(ulong number) => ulong.MaxValue - number + 1;

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    static ulong Number(ulong raw) => raw == Half + 1 ? 0 : raw > Half + 1 ? ulong.MaxValue - raw + 1 : raw;

    Link? KeyLink(ulong key)
    {
        var found = store.Each(any, Raw(key), any);
        return found.Length > 0 ? found[0] : null;
    }

    public void Run<TSink>(ReadOnlySpan<UsageRequest> batch, ref TSink sink) where TSink : struct, ISink<Entry>
    {
        UsageRequest.Validate(batch);
        foreach (var r in batch) RunOne(r, ref sink);
    }

    /// <summary>One request, which must already be validated (<see cref="UsageRequest.Validate"/>).</summary>
    public void RunOne<TSink>(UsageRequest r, ref TSink sink) where TSink : struct, ISink<Entry>
    {
        var s = store;
        switch (r.Verb)
        {
            case UsageVerb.Get:
                if (KeyLink(r.Key) is { } got) sink.Add(new Entry(r.Key, Number(got.Target)));
                break;
            case UsageVerb.Set:
                if (KeyLink(r.Key) is { } old) s.Update(old.Id, Raw(r.Key), Raw(r.Value));
                else s.CreateLink(Raw(r.Key), Raw(r.Value));
                sink.Add(new Entry(r.Key, r.Value));
                break;
            case UsageVerb.Del:
                if (KeyLink(r.Key) is { } gone) { s.Delete(gone.Id); sink.Add(new Entry(r.Key, r.Key)); }
                break;
            case UsageVerb.Incr:
                ulong value;
                if (KeyLink(r.Key) is { } counter)
                {
                    value = Number(counter.Target);
                    if (value >= UsageRequest.Max) throw new RequestException($"INCR {r.Key}: {value} + 1 would overflow");
                    s.Update(counter.Id, Raw(r.Key), Raw(++value));
                }
                else
                {
                    s.CreateLink(Raw(r.Key), Raw(value = 1));
                }
                sink.Add(new Entry(r.Key, value));
                break;
            case UsageVerb.RPush:
            {
                var (first, last) = s.Get(queue);
                var node = s.CreateLink(0, 0);
                if (last != 0) s.Update(last, node, s.Get(last).Target);
                s.Update(node, 0, Raw(r.Key));
                s.Update(queue, first == 0 ? node : first, node);
                sink.Add(new Entry(0, r.Key));
                break;
            }
            case UsageVerb.LPush:
            {
                var (first, last) = s.Get(queue);
                var node = first == 0 ? s.CreateLink(0, Raw(r.Key)) : s.CreateLink(first, Raw(r.Key));
                s.Update(queue, node, last == 0 ? node : last);
                sink.Add(new Entry(0, r.Key));
                break;
            }
            case UsageVerb.LPop:
            {
                var (first, last) = s.Get(queue);
                if (first == 0) break;
                var head = s.Get(first);
                s.Delete(first);
                s.Update(queue, head.Source, head.Source == 0 ? 0 : last);
                sink.Add(new Entry(0, Number(head.Target)));
                break;
            }
            case UsageVerb.RPop:
            {
                var (first, last) = s.Get(queue);
                if (last == 0) break;
                var tail = s.Get(last);
                // The head link starts at `first`; when first == last there is no node before the last.
                Link? before = null;
                if (first != last && s.Each(any, last, any) is { Length: > 0 } previous) before = previous[0];
                s.Delete(last);
                if (before is { } node)
                {
                    s.Update(node.Id, 0, node.Target);
                    s.Update(queue, first, node.Id);
                }
                else
                {
                    s.Update(queue, 0, 0);
                }
                sink.Add(new Entry(0, Number(tail.Target)));
                break;
            }
            case UsageVerb.SAdd:
                if (s.Search(set, Raw(r.Key)) == 0) { s.CreateLink(set, Raw(r.Key)); sink.Add(new Entry(0, r.Key)); }
                break;
            case UsageVerb.SRem:
                if (s.Search(set, Raw(r.Key)) is var member and not 0) { s.Delete(member); sink.Add(new Entry(0, r.Key)); }
                break;
            case UsageVerb.SIsMember:
                if (s.Search(set, Raw(r.Key)) != 0) sink.Add(new Entry(0, r.Key));
                break;
            case UsageVerb.Queue:
            {
                var (id, _) = s.Get(queue);
                var links = s.Count();
                for (ulong position = 1; id != 0; position++)
                {
                    if (position > links) throw new InvalidOperationException("the queue does not end: it has more nodes than the store has links");
                    var node = s.Get(id);
                    sink.Add(new Entry(position, Number(node.Target)));
                    id = node.Source;
                }
                break;
            }
            case UsageVerb.Members:
                foreach (var link in s.Each(any, set, any))
                    if (link.Id != set) sink.Add(new Entry(0, Number(link.Target)));
                break;
        }
    }

    public string Census() => $"{store.Count()} links";

    public string? Digest() => store.Digest();

    /// <summary>The set's and the queue's links keep their ids: they are links of the files.</summary>
    public bool Restart() => store.Restart();

    public void Dispose() => store.Dispose();
}
