using System.Diagnostics;

namespace RedisVSDoublets;

/// <summary>A check failed: the run stops and no time is printed for the cell.</summary>
internal sealed class ValidationException(string message) : Exception(message);

/// <summary>
/// What makes a number trustworthy, as on the Rust side: the background is loaded and checked,
/// every operation runs first on the model (which refuses workloads that would corrupt doublets)
/// and once on the store, checked, and the background is checked again after that iteration's undo
/// (around what it touched) and after measuring (whole: by the store's count of changes where the
/// operation only reads and the store keeps one, else by its digest where it has one, else read
/// back); between the measured iterations and that check, a server that reports where its time
/// goes gets a few more iterations that <see cref="Checks.Split"/> it, and a durable store is
/// closed, opened again from what it keeps and checked whole once more. <see cref="Checks.Cell"/>
/// is that sequence, shared by the bench and the tests.
/// </summary>
internal sealed class Prepared<TRequest, TFound>
    where TRequest : IRequest<TRequest, TFound>
    where TFound : IComparable<TFound>
{
    public Operation Operation { get; }
    public TRequest[] Work { get; }
    public TRequest[] Undo { get; }
    public Tally Expected { get; }
    /// <summary>The largest id or value the operation reports: checks probe up to it.</summary>
    public ulong Reaches { get; }

    public Prepared(Operation operation, ulong[] sizes)
    {
        Operation = operation;
        Work = [.. operation.Work.Build(sizes, TRequest.Build)];
        Undo = operation.Undo is null ? [] : [.. operation.Undo.Build(sizes, TRequest.Build)];
        Expected = operation.Expected.Tally(sizes);
        Reaches = (ulong)operation.Expected.Ids.Values(sizes).Max();
    }

    /// <summary>Whether the operation can change the store: some request of its work writes, or it has an undo.</summary>
    public bool Writes => Undo.Length > 0 || Work.Any(r => !r.Reads);

    /// <summary>One measured iteration: times the work alone, checks what it reported, then undoes it.</summary>
    public long Measure<TStore>(TStore store, string cell) where TStore : IStore<TRequest, TFound>
    {
        var tally = new TallySink<TRequest, TFound>();
        var start = Stopwatch.GetTimestamp();
        try { store.Run(Work, ref tally); }
        catch (Exception e) when (Checks.Failed(e)) { throw new ValidationException($"{cell}: {e.Message}"); }
        var elapsed = Stopwatch.GetTimestamp() - start;
        if (!tally.Tally.Equals(Expected)) throw new ValidationException($"{cell}: expected {Expected}, found {tally.Tally}");
        var ignore = new TallySink<TRequest, TFound>();
        store.Run(Undo, ref ignore);
        return elapsed;
    }

    /// <summary>
    /// The checked iteration before measuring: the model first, then the store must report the same;
    /// both undone. Returns what the work and the undo reported on the model, around which the
    /// caller checks that the undo restored the store.
    /// </summary>
    public List<TFound> Check<TStore, TModel>(TStore store, TModel model, string cell)
        where TStore : IStore<TRequest, TFound>
        where TModel : IModel<TRequest, TFound>
    {
        List<TFound> want;
        try { want = Checks.Run<TRequest, TFound, TModel>(model, Work); }
        catch (RequestException e) { throw new ValidationException($"{cell}: the model refuses the work: {e.Message}"); }
        var modelTally = Checks.Tally<TRequest, TFound>(want);
        if (!modelTally.Equals(Expected))
            throw new ValidationException($"{cell}: the spec expects {Expected}, but the model reports {modelTally}: the spec is wrong");
        List<TFound> got;
        try { got = Checks.Run<TRequest, TFound, TStore>(store, Work); }
        catch (Exception e) when (Checks.Failed(e)) { throw new ValidationException($"{cell}: {e.Message}"); }
        if (!got.SequenceEqual(want))
            throw new ValidationException($"{cell}: expected {Expected}, found {Checks.Tally<TRequest, TFound>(got)}{Checks.FirstDifference(want, got)}");
        var undone = Checks.Run<TRequest, TFound, TModel>(model, Undo);
        Checks.Run<TRequest, TFound, TStore>(store, Undo);
        return [.. want, .. undone];
    }
}

/// <summary>
/// What a store must hold between cells: the model's state, up to the ids the suite's operations
/// reach, and the counts and digest the store gave after its checked load
/// (<see cref="IStore{TRequest, TFound}.Census"/>, <see cref="IStore{TRequest, TFound}.Digest"/>).
/// </summary>
internal sealed class Background<TRequest, TFound, TModel>(TModel model, ulong reaches, string census, string? digest, string? changes)
    where TRequest : IRequest<TRequest, TFound>
    where TFound : IComparable<TFound>
    where TModel : IModel<TRequest, TFound>
{
    public TModel Model { get; } = model;
    public ulong Reaches { get; } = reaches;
    public string Census { get; } = census;
    /// <summary>The store's digest after the checked load, where it has one.</summary>
    public string? Digest { get; } = digest;
    /// <summary>The store's count of changes read before the last check that proved it held the
    /// background: while the count stays, so does the background.</summary>
    public string? Changes { get; private set; } = changes;
    /// <summary>How each cell's time is split after its measured iterations, where the store
    /// reports it; null splits nothing.</summary>
    public SplitDef? Split { get; set; }

    /// <summary>Loads the requests into the store and checks it against the model, which holds them already.</summary>
    public static (Background<TRequest, TFound, TModel>, TimeSpan) Load<TStore>(TStore store, TModel model, TRequest[] requests, Tally expected, ulong reaches, string name)
        where TStore : IStore<TRequest, TFound>
    {
        var took = Checks.Load<TRequest, TFound, TStore, TModel>(store, model, requests, expected, name);
        var changes = store.Changes();
        Background<TRequest, TFound, TModel> loaded = new(model, reaches, store.Census(), store.Digest(), changes);
        if (store.Changes() != changes)
            throw new ValidationException($"{name}: the store changed while its counts and digest were taken after the load");
        return (loaded, took);
    }

    /// <summary>
    /// The store holds exactly the background: its digest is the one after the load, where it has
    /// one; else every probe answers as the model does and its counts are those after the load. A
    /// digest that differs fails, naming what differs where the probes find it. The count of
    /// changes is read first, so that a write during the check moves it past the proof.
    /// </summary>
    public Proof Verify<TStore>(TStore store, string name) where TStore : IStore<TRequest, TFound>
    {
        var changes = store.Changes();
        var proof = Prove(store, name);
        Changes = changes;
        return proof;
    }

    Proof Prove<TStore>(TStore store, string name) where TStore : IStore<TRequest, TFound>
    {
        if (Digest is null)
        {
            Verify(store, Model.Probes(Reaches), name);
            return Proof.ReadBack;
        }
        var now = store.Digest();
        if (now == Digest) return Proof.Digest;
        try { Verify(store, Model.Probes(Reaches), name); }
        catch (ValidationException e) { throw new ValidationException($"{e.Message} (its digest is {now}, {Digest} after the load)"); }
        throw new ValidationException($"{name}: the store's digest is {now}, but was {Digest} after loading the background; " +
            "every probe answers as the model does and the counts are the same, so what changed lies beyond what the probes read");
    }

    /// <summary>The store answers <paramref name="probes"/> as the model does, and its counts are those after the load.</summary>
    public void Verify<TStore>(TStore store, List<TRequest> probes, string name) where TStore : IStore<TRequest, TFound>
    {
        Checks.Probe<TRequest, TFound, TStore, TModel>(store, Model, name, probes);
        var census = store.Census();
        if (census != Census) throw new ValidationException($"{name}: the store holds {census}, but held {Census} after loading the background");
    }
}

/// <summary>How a check proved that a store held the whole background after a cell.</summary>
internal enum Proof
{
    /// <summary>The store's count of changes stayed as it was at the last proof: nothing wrote since.</summary>
    Unchanged,
    /// <summary>The store's digest is the one after the load.</summary>
    Digest,
    /// <summary>Every probe answered as the model does, with the counts after the load.</summary>
    ReadBack,
}

/// <summary>
/// Where a cell's time went: its checked iteration with the check around it, its measured
/// iterations (with their undos and the sampler's own work), the iterations that split its time
/// (with the split's result line, where the store reports it), and the whole check after them,
/// with the proof it gave.
/// </summary>
internal readonly record struct Took(TimeSpan Check, TimeSpan Measure, TimeSpan Splitting, string? Split, TimeSpan Verify, Proof Proof, TimeSpan? Restart)
{
    public string ProofText => Proof switch
    {
        Proof.Unchanged => "no change",
        Proof.Digest => "digest",
        _ => "read back",
    };
}

internal static class Checks
{
    /// <summary>What a store's failed request throws (a wrong reply, a client's or the server's error), as opposed to a bug of the harness.</summary>
    public static bool Failed(Exception e) =>
        e is ValidationException or InvalidOperationException or RequestException or StackExchange.Redis.RedisException
            or FreeRedis.RedisServerException or FreeRedis.RedisClientException or CSRedis.RedisException;

    /// <summary>A suite's requests for these sizes: its background and its operations, each checked against the suite's stores.</summary>
    public static (TRequest[] Background, List<Prepared<TRequest, TFound>> Prepared) Plan<TRequest, TFound>(Suite suite, ulong[] sizes)
        where TRequest : IRequest<TRequest, TFound>
        where TFound : IComparable<TFound> =>
        (suite.Background.Build(sizes, TRequest.Build).ToArray(),
         suite.Operations.Select(op => new Prepared<TRequest, TFound>(op, sizes)).ToList());

    /// <summary>
    /// One cell: the checked iteration; for an operation that writes, the background checked after
    /// its undo around what the operation touched, with the store's counts (so a bad undo is blamed
    /// on its own operation); then <paramref name="measure"/>, then the whole background checked
    /// again. A cell may print its time only after this returns. A read-only operation gets no
    /// check around what it read: that can be the whole background, which the check after the
    /// cell reads anyway; and where the store's count of changes has not moved since the last
    /// proof, nothing wrote, so that count is its check.
    /// </summary>
    public static Took Cell<TRequest, TFound, TStore, TModel>(Prepared<TRequest, TFound> prepared, TStore store, Background<TRequest, TFound, TModel> background, string cell, Action measure)
        where TRequest : IRequest<TRequest, TFound>
        where TFound : IComparable<TFound>
        where TStore : IStore<TRequest, TFound>
        where TModel : IModel<TRequest, TFound>
    {
        var started = Stopwatch.StartNew();
        var found = prepared.Check(store, background.Model, cell);
        if (prepared.Writes)
        {
            try { background.Verify(store, background.Model.ProbesAround(found), cell); }
            catch (ValidationException e) { throw new ValidationException($"{e.Message} (after the checked iteration and its undo)"); }
        }
        var check = started.Elapsed;
        measure();
        var measured = started.Elapsed - check;
        var split = background.Split is { } plan ? Split(prepared, store, plan, cell) : null;
        var splitting = started.Elapsed - check - measured;
        Proof proof;
        if (!prepared.Writes && background.Changes is not null && store.Changes() == background.Changes)
            proof = Proof.Unchanged;
        else
        {
            try { proof = background.Verify(store, cell); }
            catch (ValidationException e) { throw new ValidationException($"{e.Message} (after the measured iterations)"); }
        }
        var verify = started.Elapsed - check - measured - splitting;
        return new(check, measured, splitting, split, verify, proof, Restart(store, background, cell));
    }

    /// <summary>
    /// A durable store is closed and opened again from what it keeps, which must be the whole
    /// background and nothing else; how long that took, or null for a store that keeps nothing.
    /// </summary>
    static TimeSpan? Restart<TRequest, TFound, TStore, TModel>(TStore store, Background<TRequest, TFound, TModel> background, string cell)
        where TRequest : IRequest<TRequest, TFound>
        where TFound : IComparable<TFound>
        where TStore : IStore<TRequest, TFound>
        where TModel : IModel<TRequest, TFound>
    {
        var started = Stopwatch.StartNew();
        try
        {
            if (!store.Restart()) return null;
        }
        catch (Exception e) when (Failed(e)) { throw new ValidationException($"{cell}: closing the store and opening it again: {e.Message}"); }
        try { background.Verify(store, cell); }
        catch (ValidationException e) { throw new ValidationException($"{e.Message} (after closing the store and opening it again)"); }
        return started.Elapsed;
    }

    /// <summary>
    /// Where the cell's time goes on a store that reports it, as the Rust side's harness::split
    /// does: up to the plan's iterations after the measured ones, until its seconds have passed,
    /// each timed as a measured iteration is, with the store read just before and just after the
    /// work (the undo comes after the second reading). Returns the split's result line, or null
    /// for a store that reports nothing.
    /// </summary>
    public static string? Split<TRequest, TFound, TStore>(Prepared<TRequest, TFound> prepared, TStore store, SplitDef plan, string cell)
        where TRequest : IRequest<TRequest, TFound>
        where TFound : IComparable<TFound>
        where TStore : IStore<TRequest, TFound>
    {
        if (store.Reading() is not { } before) return null;
        using var split = new Split();
        var started = Stopwatch.StartNew();
        while (split.Iterations < plan.Iterations && (split.Iterations == 0 || started.Elapsed.TotalSeconds < plan.Seconds))
        {
            var tally = new TallySink<TRequest, TFound>();
            var cpu = RedisVSDoublets.Split.ProcessCpuNs();
            var start = Stopwatch.GetTimestamp();
            try { store.Run(prepared.Work, ref tally); }
            catch (Exception e) when (Failed(e)) { throw new ValidationException($"{cell}: {e.Message}"); }
            var wall = Stopwatch.GetElapsedTime(start).TotalNanoseconds;
            cpu = RedisVSDoublets.Split.ProcessCpuNs() - cpu;
            var after = store.Reading() ?? throw new ValidationException($"{cell}: the store stopped reporting");
            if (!tally.Tally.Equals(prepared.Expected))
                throw new ValidationException($"{cell}: splitting its time: expected {prepared.Expected}, found {tally.Tally}");
            try { split.Add(before, after, prepared.Work.Length, wall, cpu); }
            catch (ValidationException e) { throw new ValidationException($"{cell}: {e.Message}"); }
            var ignore = new TallySink<TRequest, TFound>();
            store.Run(prepared.Undo, ref ignore);
            before = store.Reading() ?? throw new ValidationException($"{cell}: the store stopped reporting");
        }
        return split.Line(cell);
    }

    /// <summary>Runs a batch and returns what it reported, sorted (queries report in each store's own order).</summary>
    public static List<TFound> Run<TRequest, TFound, TStore>(TStore store, ReadOnlySpan<TRequest> batch, bool check = false)
        where TRequest : IRequest<TRequest, TFound>
        where TFound : IComparable<TFound>
        where TStore : IStore<TRequest, TFound>
    {
        var sink = new ListSink<TFound>();
        if (check) store.Check(batch, ref sink);
        else store.Run(batch, ref sink);
        sink.Items.Sort();
        return sink.Items;
    }

    public static Tally Tally<TRequest, TFound>(List<TFound> found)
        where TRequest : IRequest<TRequest, TFound>
        where TFound : IComparable<TFound>
    {
        var tally = new Tally();
        foreach (var f in found) tally.Add(TRequest.CountedAs(f));
        return tally;
    }

    public static string FirstDifference<T>(List<T> want, List<T> got)
    {
        var missing = want.Except(got).Take(1).ToList();
        if (missing.Count > 0) return $" (missing {missing[0]})";
        var extra = got.Except(want).Take(1).ToList();
        return extra.Count > 0 ? $" (unexpected {extra[0]})" : " (the same items, counted differently)";
    }

    /// <summary>Loads the background into the store and checks it against the model, which holds it already.</summary>
    public static TimeSpan Load<TRequest, TFound, TStore, TModel>(TStore store, TModel model, TRequest[] background, Tally expected, string name)
        where TRequest : IRequest<TRequest, TFound>
        where TFound : IComparable<TFound>
        where TStore : IStore<TRequest, TFound>
        where TModel : IModel<TRequest, TFound>
    {
        // Loading takes the store's check path: pipelined chunks for Redis, plain calls for doublets.
        var tally = new TallySink<TRequest, TFound>();
        var watch = Stopwatch.StartNew();
        store.Check(background, ref tally);
        var took = watch.Elapsed;
        if (!tally.Tally.Equals(expected)) throw new ValidationException($"{name}: loading the background reported {tally.Tally}, expected {expected}");
        Verify<TRequest, TFound, TStore, TModel>(store, model, name, 0);
        return took;
    }

    /// <summary>Checks that the store holds exactly what the model holds, probe by probe in chunks.</summary>
    public static void Verify<TRequest, TFound, TStore, TModel>(TStore store, TModel model, string name, ulong upTo)
        where TRequest : IRequest<TRequest, TFound>
        where TFound : IComparable<TFound>
        where TStore : IStore<TRequest, TFound>
        where TModel : IModel<TRequest, TFound> =>
        Probe<TRequest, TFound, TStore, TModel>(store, model, name, model.Probes(upTo));

    /// <summary>The store answers every probe as the model does.</summary>
    public static void Probe<TRequest, TFound, TStore, TModel>(TStore store, TModel model, string name, List<TRequest> list)
        where TRequest : IRequest<TRequest, TFound>
        where TFound : IComparable<TFound>
        where TStore : IStore<TRequest, TFound>
        where TModel : IModel<TRequest, TFound>
    {
        var probes = list.ToArray();
        for (var start = 0; start < probes.Length; start += 10_000)
        {
            var chunk = probes.AsSpan(start, Math.Min(10_000, probes.Length - start));
            var want = Run<TRequest, TFound, TModel>(model, chunk);
            var got = Run<TRequest, TFound, TStore>(store, chunk, check: true);
            if (want.SequenceEqual(got)) continue;
            foreach (var probe in chunk.ToArray())
            {
                var (w, g) = (Run<TRequest, TFound, TModel>(model, [probe]), Run<TRequest, TFound, TStore>(store, [probe], check: true));
                if (!w.SequenceEqual(g))
                    throw new ValidationException($"{name}: the background is damaged: {probe} should find {w.Count} items, found {g.Count}{FirstDifference(w, g)}");
            }
            throw new ValidationException($"{name}: the background is damaged{FirstDifference(want, got)}");
        }
    }
}
