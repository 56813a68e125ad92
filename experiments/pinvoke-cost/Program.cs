// dotnet run -c Release --project experiments/pinvoke-cost
// Times the cheapest call into the Rust doublets core (doublets_any: no store work), a point query
// answered through the enumeration callback, and the same query counted without a callback, so the
// difference shows what crossing the boundary adds to each operation of the C# Doublets stores.
using System.Diagnostics;
using RedisVSDoublets;

const int Calls = 5_000_000;
using var store = new NativeStore(Layout.United, external: false);
for (var k = 0; k < 1000; k++) store.CreatePoint();

double Time(string what, Action<int> call)
{
    for (var k = 0; k < Calls / 10; k++) call(k);
    var best = double.MaxValue;
    for (var round = 0; round < 5; round++)
    {
        var watch = Stopwatch.StartNew();
        for (var k = 0; k < Calls; k++) call(k);
        best = Math.Min(best, watch.Elapsed.TotalNanoseconds / Calls);
    }
    Console.WriteLine($"{what,-58} {best,6:F1} ns per call (best of 5 × {Calls:N0})");
    return best;
}

var any = store.Any;
Native.New(0, 0, out var bare);
Time("doublets_any (a P/Invoke round, no store work)", _ => Native.Any(bare));
Native.Free(bare);
Time("doublets_search(id, id) (one query, result returned)", k => store.Search((ulong)(k % 1000) + 1, (ulong)(k % 1000) + 1));
Time("doublets_each([id, *, *]) (one query, one callback)", k => store.Each((ulong)(k % 1000) + 1, any, any));
