using System.Diagnostics;
using System.Runtime.InteropServices;
using HdrHistogram;

namespace RedisVSDoublets;

/// <summary>
/// Requests one user times at once (a pipeline, or a batch of an in-process store), what the
/// model says they report, in the model's order, whether they only read, and whether the store
/// holds the background before them (no work waits for its undo): a user stops only there.
/// </summary>
internal sealed record LoadBatch<TRequest, TFound>(TRequest[] Requests, TFound[] Expected, bool Reads, bool StartsStep);

/// <summary>One concurrent user of a store under load: runs a batch, reporting what it found.</summary>
internal interface ILoadClient<TRequest, TFound>
{
    ValueTask Run(LoadBatch<TRequest, TFound> batch, ListSink<TFound> found);
}

/// <summary>How long the users run: the warm-up is not counted.</summary>
internal readonly record struct Timing(double WarmUpSeconds, double Seconds)
{
    public static Timing Of(LoadDef load) => new(load.WarmUpSeconds, load.Seconds);
}

/// <summary>Latency percentiles of the timed batches, in nanoseconds.</summary>
internal sealed record Latency(long P50, long P90, long P99, long P999, long Max);

/// <summary>One load cell's figures, as the Rust side's load::Figure.</summary>
internal sealed record Figure(string Suite, string Operation, string Backend, int Clients, int Batch, long Requests, double PerSecond, Latency LatencyNs);

/// <summary>
/// The load measurement's sequence, as rust/src/load.rs has it: the users' plans, and one cell
/// (the background's counts checked, K users running their checked plans for the spec's time, the
/// whole background checked again). A wrong reply fails the cell before any figure exists.
/// </summary>
internal static class LoadCell
{
    /// <summary>
    /// Each of <paramref name="clients"/> users' batches of <paramref name="unit"/> requests for
    /// <paramref name="operation"/>: user c takes the i of 1..=B with i mod K = c, and for each its
    /// work and then its undo, its share cut to a whole number of batches. What each batch must
    /// report comes from running them, in order, on the model, which holds the background before and
    /// after (every undo restores it), so the answers also hold while other users work on theirs.
    /// </summary>
    public static LoadBatch<TRequest, TFound>[][] Plans<TRequest, TFound, TModel>(Operation operation, ulong[] sizes, TModel model, int clients, int unit)
        where TRequest : IRequest<TRequest, TFound>
        where TFound : IComparable<TFound>
        where TModel : IModel<TRequest, TFound>
    {
        var what = $"load {operation.Id}";
        var work = operation.Work.Build(sizes, TRequest.Build);
        var undo = operation.Undo?.Build(sizes, TRequest.Build) ?? [];
        var b = (int)sizes[0];
        var (w, u) = (work.Count / b, undo.Count / b);
        var step = w + u;
        // Whole steps per batch, and whole batches per share.
        var steps = Lcm(step, unit) / step;
        var plans = new LoadBatch<TRequest, TFound>[clients][];
        for (var c = 0; c < clients; c++)
        {
            var share = Enumerable.Range(1, b).Where(i => i % clients == c).ToList();
            var used = share.Count - share.Count % steps;
            if (used == 0)
                throw new SpecException($"{what}: B = {b} gives client {c} of {clients} {share.Count} steps, fewer than one batch of {unit} requests");
            var batches = new List<LoadBatch<TRequest, TFound>>();
            foreach (var chunk in share.Take(used).Chunk(steps))
            {
                var requests = new List<TRequest>(steps * step);
                foreach (var i in chunk)
                {
                    requests.AddRange(work.GetRange((i - 1) * w, w));
                    requests.AddRange(undo.GetRange((i - 1) * u, u));
                }
                var k = 0;
                foreach (var batch in requests.Chunk(unit))
                {
                    var expected = new ListSink<TFound>();
                    try { model.Run(batch, ref expected); }
                    catch (RequestException e) { throw new SpecException($"{what}: the model refuses {string.Join(", ", batch)}: {e.Message}"); }
                    batches.Add(new(batch, [.. expected.Items], batch.All(r => r.Reads), k++ == 0));
                }
            }
            plans[c] = [.. batches];
        }
        return plans;
    }

    static int Lcm(int a, int b)
    {
        static int Gcd(int a, int b) => b == 0 ? a : Gcd(b, a % b);
        return a / Gcd(a, b) * b;
    }

    /// <summary>What one user did in the measured time.</summary>
    sealed record Run(long Requests, double Seconds, LongHistogram Histogram);

    /// <summary>
    /// One cell: <paramref name="store"/> holds the background (its counts: it was checked whole
    /// after the load and after every cell), the users (one per plan) run their batches at once for
    /// the warm-up and the measured time, every reply checked against the plan, and the store holds
    /// exactly the background again. Figures exist only if all of that held.
    /// </summary>
    public static (long Requests, double PerSecond, Latency Latency) Measure<TRequest, TFound, TStore, TModel, TClient>(
        TStore store, Background<TRequest, TFound, TModel> background, IReadOnlyList<TClient> clients, bool tasks,
        LoadBatch<TRequest, TFound>[][] plans, Timing timing, string name)
        where TRequest : IRequest<TRequest, TFound>
        where TFound : IComparable<TFound>
        where TStore : IStore<TRequest, TFound>
        where TModel : IModel<TRequest, TFound>
        where TClient : ILoadClient<TRequest, TFound>
    {
        var census = store.Census();
        if (census != background.Census)
            throw new ValidationException($"{name}: before the load the store holds {census}, but held {background.Census} after loading the background");
        var runs = Concurrently(clients, tasks, plans, timing, name);
        try { background.Verify(store, name); }
        catch (ValidationException e) { throw new ValidationException($"{e.Message} (after the load)"); }
        var histogram = NewHistogram();
        var (requests, perSecond) = (0L, 0.0);
        foreach (var run in runs)
        {
            if (run.Requests == 0) throw new ValidationException($"{name}: a client finished no batch in the measured time");
            histogram.Add(run.Histogram);
            requests += run.Requests;
            perSecond += run.Requests / run.Seconds;
        }
        long At(double percentile) => histogram.GetValueAtPercentile(percentile);
        return (requests, perSecond, new Latency(At(50), At(90), At(99), At(99.9), histogram.GetMaxValue()));
    }

    // Up to an hour in nanoseconds, 3 significant digits, as the Rust side records.
    static LongHistogram NewHistogram() => new(1, 3_600_000_000_000, 3);

    /// <summary>
    /// Runs every user at once: tasks on the thread pool for a client that awaits, otherwise a thread
    /// each. The first failure (in user order) stops the others and is the result.
    /// </summary>
    static Run[] Concurrently<TRequest, TFound, TClient>(IReadOnlyList<TClient> clients, bool tasks, LoadBatch<TRequest, TFound>[][] plans, Timing timing, string name)
        where TRequest : IRequest<TRequest, TFound>
        where TFound : IComparable<TFound>
        where TClient : ILoadClient<TRequest, TFound>
    {
        var go = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        var failed = new Failed();
        var runs = new Task<Run>[clients.Count];
        for (var c = 0; c < clients.Count; c++)
        {
            var (client, plan, who) = (clients[c], plans[c], $"{name}: client {c + 1} of {clients.Count}");
            async Task<Run> Guarded()
            {
                try { return await Loop(client, plan, timing, failed); }
                catch (Exception e) when (Checks.Failed(e))
                {
                    failed.Set();
                    throw new ValidationException($"{who}: {e.Message}");
                }
                catch
                {
                    failed.Set();
                    throw;
                }
            }
            if (tasks)
            {
                runs[c] = Task.Run(async () => { await go.Task; return await Guarded(); });
                continue;
            }
            // A blocking client's awaits complete before they return, so its whole loop runs on its thread.
            var done = new TaskCompletionSource<Run>();
            new Thread(() =>
            {
                go.Task.Wait();
                try { done.SetResult(Guarded().GetAwaiter().GetResult()); }
                catch (Exception e) { done.SetException(e); }
            }) { IsBackground = true, Name = who }.Start();
            runs[c] = done.Task;
        }
        go.SetResult();
        try { Task.WaitAll(runs); }
        catch (AggregateException)
        {
            var first = runs.First(r => r.IsFaulted).Exception!.InnerException!;
            System.Runtime.ExceptionServices.ExceptionDispatchInfo.Throw(first);
        }
        return [.. runs.Select(r => r.Result)];
    }

    sealed class Failed
    {
        volatile bool set;
        public bool IsSet => set;
        public void Set() => set = true;
    }

    /// <summary>One user: its batches in a loop, each timed and its replies checked, until the time is up.</summary>
    static async Task<Run> Loop<TRequest, TFound, TClient>(TClient client, LoadBatch<TRequest, TFound>[] plan, Timing timing, Failed failed)
        where TRequest : IRequest<TRequest, TFound>
        where TFound : IComparable<TFound>
        where TClient : ILoadClient<TRequest, TFound>
    {
        var histogram = NewHistogram();
        var found = new List<TFound>(plan.Max(b => b.Expected.Length));
        var sink = new ListSink<TFound>(found);
        var requests = 0L;
        var start = Stopwatch.GetTimestamp();
        var from = start + Ticks(timing.WarmUpSeconds);
        var until = from + Ticks(timing.Seconds);
        var last = from;
        for (var k = 0; ; k = k + 1 == plan.Length ? 0 : k + 1)
        {
            var batch = plan[k];
            var begin = Stopwatch.GetTimestamp();
            if (batch.StartsStep && (begin >= until || failed.IsSet)) break;
            found.Clear();
            await client.Run(batch, sink);
            var end = Stopwatch.GetTimestamp();
            if (!CollectionsMarshal.AsSpan(found).SequenceEqual(batch.Expected)) Check(batch, found);
            // A batch counts when it ends in the measured time, even if it began in the warm-up: a
            // user kept waiting across the warm-up's end shows as a slow batch, not as no batch.
            if (end > from)
            {
                histogram.RecordValue(Nanoseconds(end - begin));
                requests += batch.Requests.Length;
                last = end;
            }
        }
        return new(requests, (double)(last - from) / Stopwatch.Frequency, histogram);
    }

    static long Ticks(double seconds) => (long)(seconds * Stopwatch.Frequency);

    static long Nanoseconds(long ticks) => (long)(ticks * (1e9 / Stopwatch.Frequency));

    /// <summary>Replies that differ from the model's in order only (a query's links come in the store's own order) pass; any other difference is a wrong reply.</summary>
    static void Check<TRequest, TFound>(LoadBatch<TRequest, TFound> batch, List<TFound> found)
        where TFound : IComparable<TFound>
    {
        var want = batch.Expected.Order().ToList();
        var got = found.Order().ToList();
        if (!want.SequenceEqual(got))
            throw new ValidationException($"a wrong reply to {string.Join(", ", batch.Requests)}: expected {string.Join(", ", want)}, found {string.Join(", ", got)}");
    }

    /// <summary>What reading the clock costs, in nanoseconds: the mean of a million readings.</summary>
    public static double ClockCost()
    {
        const int reads = 1_000_000;
        var start = Stopwatch.GetTimestamp();
        var last = start;
        for (var k = 0; k < reads; k++) last = Stopwatch.GetTimestamp();
        return Nanoseconds(last - start) / (double)reads;
    }
}

/// <summary>
/// One in-process store shared by concurrent users behind a readers–writer lock: batches that only
/// read take it shared (and run in parallel), any other batch takes it alone. .NET's
/// ReaderWriterLockSlim holds back new readers while a writer waits, so writers do not starve.
/// </summary>
internal sealed class SharedStore<TRequest, TFound>(IStore<TRequest, TFound> store, ReaderWriterLockSlim gate) : ILoadClient<TRequest, TFound>
{
    public ValueTask Run(LoadBatch<TRequest, TFound> batch, ListSink<TFound> found)
    {
        if (batch.Reads) gate.EnterReadLock();
        else gate.EnterWriteLock();
        try { store.Run(batch.Requests, ref found); }
        finally
        {
            if (batch.Reads) gate.ExitReadLock();
            else gate.ExitWriteLock();
        }
        return ValueTask.CompletedTask;
    }
}
