using System.Text.RegularExpressions;

namespace RedisVSDoublets;

/// <summary>
/// The harness's command line, as Criterion's is for the Rust bench: <c>--list</c> names the cells,
/// <c>--filter REGEX</c> (or a bare REGEX) keeps the cells whose <c>operation/backend</c> matches,
/// <c>--test</c> runs each kept cell's checks and one measured iteration, measuring nothing.
/// </summary>
public sealed record Options(bool List, bool Test, Regex? Filter)
{
    public const string Usage = "usage: RedisVSDoublets [--list] [--test] [--filter REGEX | REGEX]";

    public static Options Parse(IReadOnlyList<string> args)
    {
        var (list, test) = (false, false);
        string? filter = null;
        for (var k = 0; k < args.Count; k++)
        {
            switch (args[k])
            {
                case "--list": list = true; break;
                case "--test": test = true; break;
                case "--filter" when k + 1 < args.Count: filter = args[++k]; break;
                case var arg when !arg.StartsWith('-') && filter is null: filter = arg; break;
                case var arg: throw new ArgumentException($"unknown argument \"{arg}\"\n{Usage}");
            }
        }
        try { return new Options(list, test, filter is null ? null : new Regex(filter, RegexOptions.CultureInvariant)); }
        catch (ArgumentException e) { throw new ArgumentException($"--filter {filter}: not a regular expression: {e.Message}"); }
    }

    /// <summary>Whether the cell <c>operation/backend</c> is kept.</summary>
    public bool Keeps(string cell) => Filter?.IsMatch(cell) ?? true;
}
