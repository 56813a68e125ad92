using System.Globalization;

namespace RedisVSDoublets;

/// <summary>The spec's small arithmetic: sums and differences of i, the sizes (B, N) and whole numbers.</summary>
public sealed class Expr
{
    // (sign, kind, value): kind 0 is i, 1 a size (value = its index), 2 a number.
    readonly List<(int Sign, int Kind, ulong Value)> terms = [];

    public bool UsesVariable => terms.Any(t => t.Kind == 0);

    public static Expr Parse(string text, string[] symbols)
    {
        var expr = new Expr();
        var rest = text.Trim();
        if (rest.Length == 0) throw new FormatException("an empty expression");
        var sign = 1;
        var expectTerm = true;
        while (rest.Length > 0)
        {
            if (expectTerm)
            {
                var end = 0;
                while (end < rest.Length && char.IsAsciiLetterOrDigit(rest[end])) end++;
                var word = rest[..end];
                var index = Array.IndexOf(symbols, word);
                if (word == "i") expr.terms.Add((sign, 0, 0));
                else if (index >= 0) expr.terms.Add((sign, 1, (ulong)index));
                else if (word.Length > 0 && word.All(char.IsAsciiDigit)) expr.terms.Add((sign, 2, ulong.Parse(word, CultureInfo.InvariantCulture)));
                else throw new FormatException($"\"{word}\" is not i, a size ({string.Join(", ", symbols)}) or a whole number");
                rest = rest[end..].TrimStart();
                expectTerm = false;
            }
            else
            {
                sign = rest[0] switch
                {
                    '+' => 1,
                    '-' => -1,
                    _ => throw new FormatException($"expected + or - before \"{rest}\""),
                };
                rest = rest[1..].TrimStart();
                expectTerm = true;
            }
        }
        if (expectTerm) throw new FormatException($"\"{text}\" ends with an operator");
        return expr;
    }

    /// <summary>The value for these sizes and i, in 128 bits: a few terms of up to 2^64 never overflow it.</summary>
    public Int128 Eval(ulong[] sizes, Int128? i)
    {
        Int128 sum = 0;
        foreach (var (sign, kind, value) in terms)
            sum += sign * kind switch
            {
                0 => i ?? throw new InvalidOperationException("i is used only inside a for range"),
                1 => (Int128)sizes[value],
                _ => (Int128)value,
            };
        return sum;
    }
}

/// <summary><c>from to to</c> (ascending) or <c>from down to to</c> (descending), both ends included.</summary>
public sealed class Interval(Expr from, Expr to, bool descending, string text)
{
    public static Interval Parse(string text, string[] symbols)
    {
        var down = text.Split(" down to ");
        var up = text.Split(" to ");
        var (from, to, descending) = down.Length == 2 ? (down[0], down[1], true)
            : up.Length == 2 ? (up[0], up[1], false)
            : throw new FormatException($"\"{text}\" is not a range such as \"1 to N\" or \"B down to B-N+1\"");
        var (a, b) = (Expr.Parse(from, symbols), Expr.Parse(to, symbols));
        if (a.UsesVariable || b.UsesVariable) throw new FormatException($"the range \"{text}\" cannot use i");
        return new Interval(a, b, descending, text);
    }

    (Int128 Low, Int128 High) Bounds(ulong[] sizes)
    {
        var (first, last) = (from.Eval(sizes, null), to.Eval(sizes, null));
        var (low, high) = descending ? (last, first) : (first, last);
        if (low > high) throw new SpecException($"the range {text} is empty ({first} to {last})");
        return (low, high);
    }

    /// <summary>How many values the range has, without building them.</summary>
    public UInt128 Count(ulong[] sizes)
    {
        var (low, high) = Bounds(sizes);
        return (UInt128)(high - low) + 1;
    }

    public List<Int128> Values(ulong[] sizes)
    {
        var (low, high) = Bounds(sizes);
        var values = new List<Int128>((int)(high - low + 1));
        for (var v = low; v <= high; v++) values.Add(v);
        if (descending) values.Reverse();
        return values;
    }

    public override string ToString() => text;
}
