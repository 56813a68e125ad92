using System.Diagnostics;

namespace RedisVSDoublets;

/// <summary>
/// Criterion's sampling, so both languages' numbers mean the same: a warm-up for the given time
/// estimates the wall time of one iteration (its untimed undo included); then the given number of samples fills the measurement
/// time, with iteration counts d, 2d, …, n·d (linear) or the same count in each sample (flat), or
/// linear unless its fewest iterations would take over twice the measurement time, then flat
/// (auto, decided as Criterion decides it).
/// Each sample is timed as a whole by the routine, which keeps the undo outside its timer.
/// The result is the median of the per-sample averages and their standard deviation, in ns.
/// </summary>
internal static class Sampler
{
    public static (double MedianNs, double StdDevNs) Measure(SamplingDef sampling, Func<long, long> routine)
    {
        double nsPerTick = 1e9 / Stopwatch.Frequency;
        var warmUp = Stopwatch.StartNew();
        var warmUpNs = sampling.WarmUpSeconds * 1e9;
        long iterations = 1, totalIterations = 0;
        while (warmUp.Elapsed.TotalNanoseconds < warmUpNs)
        {
            routine(iterations);
            totalIterations += iterations;
            // Doubling, as Criterion's warm-up does, but never past what the time left holds: a
            // last doubling would overrun the warm-up by up to its whole length, and runs of slow
            // cells (a round trip with an undo) went 1.24× over the spec's time.
            var left = (warmUpNs - warmUp.Elapsed.TotalNanoseconds) / (warmUp.Elapsed.TotalNanoseconds / totalIterations);
            iterations = Math.Clamp((long)Math.Ceiling(left), 1, iterations * 2);
        }
        // Iteration counts come from the wall time an iteration takes, its untimed undo included, so
        // that the sampling keeps to the spec's measurement time (the timed part alone made cells
        // with an undo overrun it by 2–3×).
        var perIteration = Math.Max(warmUp.Elapsed.TotalNanoseconds / Math.Max(totalIterations, 1), 1.0);
        var n = sampling.Samples;
        var budget = sampling.MeasurementSeconds * 1e9;
        var counts = new long[n];
        var linearRuns = n * (n + 1) / 2.0;
        var linearNs = linearRuns * Math.Ceiling(budget / perIteration / linearRuns) * perIteration;
        if (sampling.Mode == "flat" || sampling.Mode == "auto" && linearNs > 2 * budget)
        {
            var each = (long)Math.Max(1, Math.Ceiling(budget / (perIteration * n)));
            Array.Fill(counts, each);
        }
        else
        {
            var d = (long)Math.Max(1, Math.Ceiling(budget / (perIteration * n * (n + 1) / 2.0)));
            for (var k = 0; k < n; k++) counts[k] = d * (k + 1);
        }
        var averages = counts.Select(count => routine(count) * nsPerTick / count).ToArray();
        return Statistics(averages);
    }

    public static (double Median, double StdDev) Statistics(double[] values)
    {
        var sorted = values.Order().ToArray();
        var middle = sorted.Length / 2;
        var median = sorted.Length % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
        var mean = values.Average();
        var variance = values.Sum(v => (v - mean) * (v - mean)) / Math.Max(values.Length - 1, 1);
        return (median, Math.Sqrt(variance));
    }

    /// <summary>The bencher line of a cell, exactly as Criterion prints it, in the invariant culture.</summary>
    public static string BencherLine(string name, double medianNs, double stdDevNs) =>
        string.Create(System.Globalization.CultureInfo.InvariantCulture,
            $"test {name} ... bench: {Math.Round(medianNs),11:N0} ns/iter (+/- {Math.Round(stdDevNs):N0})");
}
