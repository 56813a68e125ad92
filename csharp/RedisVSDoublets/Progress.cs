using System.Diagnostics;
using System.Globalization;

namespace RedisVSDoublets;

/// <summary>What a round costs, as the Rust side's Schedule says: its cells, and the seconds of their sampling, of what their fewest iterations take beyond it, of the stores' loads and of the checks after the cells.</summary>
internal readonly record struct Schedule(int Cells, double Sampling, double Beyond, double Loads, double Checks)
{
    public double Seconds => Sampling + Beyond + Loads + Checks;

    public Schedule Plus(Schedule other) =>
        new(Cells + other.Cells, Sampling + other.Sampling, Beyond + other.Beyond, Loads + other.Loads, Checks + other.Checks);

    public string Describe()
    {
        static string Minutes(double seconds) => string.Create(CultureInfo.InvariantCulture, $"{seconds / 60:F1} min");
        return $"{Minutes(Seconds)}: {Minutes(Sampling)} of warm-up and sampling, {Minutes(Beyond)} beyond it for the fewest iterations of slow cells and the splits, {Minutes(Loads)} of loads, {Minutes(Checks)} of checks and restarts";
    }
}

/// <summary>
/// A round's progress, as the Rust side prints it: after each load and cell, where its time went
/// (checks, sampling, the check after it and which proof that gave), and the time left, from the
/// spec's estimate scaled by how the round so far compares with it. Lines, each followed by a bar
/// where stderr is a terminal.
/// </summary>
internal sealed class Progress(Schedule plan)
{
    static readonly bool Terminal = !Console.IsErrorRedirected;
    readonly Stopwatch started = Stopwatch.StartNew();
    /// <summary>The seconds planned for what is done so far.</summary>
    double done;
    int cells;

    /// <summary>A line about what the round is doing.</summary>
    public void Note(string text) => Say(text);

    /// <summary>A store's background loaded and checked, against the <paramref name="planned"/> seconds.</summary>
    public void Loaded(string text, double planned)
    {
        done += planned;
        Say(text);
    }

    /// <summary>A cell checked and measured, against the <paramref name="planned"/> seconds.</summary>
    public void Cell(string name, Took took, double planned)
    {
        done += planned;
        cells++;
        Say(string.Create(CultureInfo.InvariantCulture,
            $"{name}: {took.Check.TotalSeconds:F1} s checked, {took.Measure.TotalSeconds:F1} s sampled{(took.Split is null ? "" : $", {took.Splitting.TotalSeconds:F1} s split")}, {took.Verify.TotalSeconds:F1} s {took.ProofText}{(took.Restart is { } restart ? $", {restart.TotalSeconds:F1} s restarted and checked whole" : "")}"));
    }

    /// <summary>How the round's time compares with its plan, and with the warm-up and sampling alone.</summary>
    public void Finish(uint round)
    {
        if (Terminal) Console.Error.Write("\r\x1b[K");
        var took = started.Elapsed.TotalSeconds;
        Console.Error.WriteLine(string.Create(CultureInfo.InvariantCulture,
            $"round {round} took {took / 60:F1} min against the {plan.Seconds / 60:F1} min planned for the {plan.Cells} cells it measured ({took / Math.Max(plan.Seconds, 1):F2}×) and their {plan.Sampling / 60:F1} min of sampling ({took / Math.Max(plan.Sampling, 1):F2}×)"));
    }

    /// <summary><paramref name="text"/>, then the time so far and the time left: the plan's remainder at the pace the round has kept against the plan so far, once that is a twentieth of the plan (and 10 s) long.</summary>
    void Say(string text)
    {
        var elapsed = started.Elapsed.TotalSeconds;
        var pace = done >= Math.Max(plan.Seconds / 20, 10) ? elapsed / done : 1.0;
        var left = Math.Max(plan.Seconds - done, 0) * pace;
        var time = string.Create(CultureInfo.InvariantCulture,
            $"{elapsed / 60:F1} min of {plan.Seconds / 60:F1} min planned, about {left / 60:F1} min left");
        if (!Terminal)
        {
            Console.Error.WriteLine($"{text} · {time}");
            return;
        }
        const int width = 30;
        var filled = plan.Cells == 0 ? width : width * cells / plan.Cells;
        Console.Error.WriteLine($"\r\x1b[K{text}");
        Console.Error.Write($"[{new string('#', filled)}{new string('-', width - filled)}] {cells}/{plan.Cells} cells, {time}");
    }
}
