using System.Text.RegularExpressions;

namespace RedisVSDoublets;

/// <summary>
/// The harness's command line, as Criterion's is for the Rust bench: <c>--list</c> names the cells,
/// <c>--filter REGEX</c> (or a bare REGEX) keeps the cells whose <c>operation/backend</c> matches,
/// <c>--test</c> runs each kept cell's checks and one measured iteration, measuring nothing;
/// <c>--load B</c> measures concurrent users instead (the spec's load section) at background B,
/// its filter matching <c>suite/operation/backend</c>.
/// </summary>
internal sealed record Options(bool List, bool Test, Regex? Filter, string? Load = null)
{
    public const string Usage = "usage: RedisVSDoublets [--list] [--test] [--filter REGEX | REGEX]\n       RedisVSDoublets --load B [--filter REGEX]   (B background links or keys, e.g. 100000)";

    public static Options Parse(IReadOnlyList<string> args)
    {
        var (list, test) = (false, false);
        string? filter = null, load = null;
        for (var k = 0; k < args.Count; k++)
        {
            switch (args[k])
            {
                case "--list": list = true; break;
                case "--test": test = true; break;
                case "--filter" when k + 1 < args.Count: filter = args[++k]; break;
                case "--load" when k + 1 < args.Count: load = args[++k]; break;
                case var arg when !arg.StartsWith('-') && filter is null: filter = arg; break;
                case var arg: throw new ArgumentException($"unknown argument \"{arg}\"\n{Usage}");
            }
        }
        if (load is not null && (list || test)) throw new ArgumentException($"--load measures concurrent users; it takes neither --list nor --test\n{Usage}");
        try { return new Options(list, test, filter is null ? null : new Regex(filter, RegexOptions.CultureInvariant), load); }
        catch (ArgumentException e) { throw new ArgumentException($"--filter {filter}: not a regular expression: {e.Message}"); }
    }

    /// <summary>Whether the cell <c>operation/backend</c> is kept.</summary>
    public bool Keeps(string cell) => Filter?.IsMatch(cell) ?? true;
}
